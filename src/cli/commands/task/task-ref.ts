// A task named on the command line by its ID, or by the number `task list`
// shows (`1041` or `#1041`).
import type { ApiClient } from '../../../client/api.js';
import { findTaskByNumber, getTask } from '../../../client/tasks.js';
import { CliError, Exit } from '../../../lib/exit.js';
import type { CommandContext } from '../../context.js';
import { withNotFoundHint } from '../../errors.js';
import { text } from './summary.js';

/**
 * The task ID `arg` names. A number is looked up with the task search and the
 * task found is said on stderr; a bare integer that is no task's number is
 * still tried as an ID. Neither found: exit 5 with a hint.
 */
export async function resolveTaskArg(ctx: Pick<CommandContext, 'out'>, api: ApiClient, arg: string): Promise<string> {
  const n = /^#?(\d+)$/.exec(arg)?.[1];
  if (n === undefined) return arg;
  const found = await findTaskByNumber(api, n);
  if (found) {
    ctx.out.info(`Task #${n} is ${text(found.task.id)}${found.task.displayName ? ` (${text(found.task.displayName)})` : ''}`);
    return found.task.id;
  }
  const message = `no task with the ID or number ${arg} was found`;
  const hint =
    'task IDs are the long IDs in the ID column of `agctl task list`; a number (#N) is looked up among the open and closed tasks the search finds';
  if (arg.startsWith('#')) throw new CliError(message, Exit.NotFound, { status: 404, hint });
  await withNotFoundHint(getTask(api, arg), hint, message);
  return arg;
}
