// A task named on the command line by its ID, or by the number `task list`
// shows (`1041` or `#1041`).
import { ApiError } from '../../../api/errors.js';
import type { ApiClient } from '../../../client/api.js';
import { findTaskByNumber, getTask } from '../../../client/tasks.js';
import { CliError, Exit } from '../../../lib/exit.js';
import type { CommandContext } from '../../context.js';
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
  const notFound = new CliError(`no task with the ID or number ${arg} was found`, Exit.NotFound, {
    status: 404,
    hint: 'task IDs are the long IDs in the ID column of `agctl task list`; a number (#N) is looked up among the open and closed tasks the search finds',
  });
  if (arg.startsWith('#')) throw notFound;
  try {
    await getTask(api, arg);
    return arg;
  } catch (err) {
    throw err instanceof ApiError && err.status === 404 ? notFound : err;
  }
}
