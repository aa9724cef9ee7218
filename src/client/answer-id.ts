// An answer read by ID must be about that ID: a server (a broken proxy, a
// cache keyed wrongly, a hostile tenant) that answers a read of rule r-001
// with rule r-002 would otherwise have agctl show r-002 as what it is about
// to delete, or change, under r-001's name. Which member names the ID in each
// answer, and what a missing one means, is in docs/api-decisions.md
// ("Answers about the ID asked for").
import { CliError, Exit } from '../lib/exit.js';

/**
 * Throws (exit 9) when `got`, the ID an answer names for `what` ("rule",
 * "task"), is not `asked`; `request` says what was asked ("a read of", the
 * default, or "the approval of"). A missing ID (undefined, null, '') passes
 * only with `missingOk` (a member the contract lets the service leave out);
 * the caller then shows the ID asked for. Both IDs are shown escaped, as
 * every error line is.
 */
export function checkAnswerId(what: string, asked: string, got: unknown, opts: { missingOk?: boolean; request?: string } = {}): void {
  if (got === asked) return;
  const missing = got === undefined || got === null || got === '';
  if (missing && opts.missingOk) return;
  const named = missing ? `no ${what} ID` : typeof got === 'string' ? `${what} "${got}"` : `a ${what} ID that is not a string`;
  throw new CliError(`the server answered ${opts.request ?? 'a read of'} ${what} "${asked}" with ${named}`, Exit.Server, {
    code: 'answer_about_other_id',
    hint: `agctl shows and acts on an answer only when it is about the ${what} asked for; the server, or a proxy in between, mixed up its answers`,
  });
}
