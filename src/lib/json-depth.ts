// How deep agctl follows a JSON value. JSON.parse reads any depth, but
// JSON.stringify and redaction recurse and run out of stack some thousands of
// levels down, and jq (WebAssembly) some hundreds; no API answer nests
// anywhere near the bound, so deeper values are refused with a clear error
// before anything walks them.
import { CliError, Exit, type ExitCode } from './exit.js';

/** The deepest nesting of arrays and objects agctl prints, logs or sends on. */
export const MAX_JSON_DEPTH = 512;

/** Whether `value` nests arrays and objects deeper than `max` levels (walked without recursion). */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop() as Record<string, unknown>;
    const depth = depths.pop()!;
    if (depth > max) return true;
    // for...in, not Object.values: no array of every member's value for each object.
    for (const k in v) {
      const c = v[k];
      if (typeof c === 'object' && c !== null) {
        values.push(c);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The error for a value that nests too deep: exit 9 for a server's answer, `exitCode` for the user's own input. */
function tooDeep(what = 'the answer', exitCode: ExitCode = Exit.Server): CliError {
  return new CliError(`${what} nests deeper than ${MAX_JSON_DEPTH} levels`, exitCode);
}

/** `value`, or the error above when it nests too deep. */
export function checkJsonDepth<T>(value: T, what?: string, exitCode?: ExitCode): T {
  if (nestsDeeperThan(value)) throw tooDeep(what, exitCode);
  return value;
}
