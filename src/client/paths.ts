// Path segments of API routes. An ID given on the command line becomes exactly
// one segment: values a URL parser would collapse into another route (".",
// "..", "") or that no ID holds (control characters) are refused before any
// request; everything else is percent-encoded.
import { UsageError } from '../lib/exit.js';
import { CONTROL_CHAR } from '../lib/controls.js';

/** Why `value` cannot be a path ID, or undefined when it can. */
function pathIdProblem(value: string): string | undefined {
  if (value.trim() === '') return 'it is empty';
  if (value === '.' || value === '..') return 'it would address another route';
  if (CONTROL_CHAR.test(value)) return 'it contains a control character';
  return undefined;
}

/** Returns `value` when it can be one path segment; a usage error naming `what` (e.g. "rule ID") otherwise. */
export function checkPathId(value: string, what: string): string {
  const problem = pathIdProblem(value);
  if (problem) throw new UsageError(`invalid ${what} "${value}": ${problem}`);
  return value;
}

/** `value` checked and percent-encoded as one path segment. */
export function pathSegment(value: string, what: string): string {
  return encodeURIComponent(checkPathId(value, what));
}
