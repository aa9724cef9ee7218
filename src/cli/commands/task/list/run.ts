// agctl task list: the service's task search (POST /api/v1/search/tasks), every page followed.
import { TASK_STATES, normalizeTaskView, type TaskSearchRequest, type TaskView } from '../../../../api/tasks.js';
import { CliError, Exit, UsageError } from '../../../../lib/exit.js';
import { callerUserId } from '../../../../client/introspect.js';
import { listAllTasks } from '../../../../client/tasks.js';
import type { CommandContext } from '../../../context.js';
import { stepLabel, taskState, text } from '../summary.js';
import { COLUMNS, TASK_LIST_DEFAULT_LIMIT, type ListInput } from './command.js';

const STATES = { open: [TASK_STATES.open], closed: [TASK_STATES.closed], all: [] } as const;

export async function run({ opts }: ListInput, ctx: CommandContext): Promise<number> {
  if (opts.mine && opts.state === 'closed')
    throw new UsageError(
      '--mine lists tasks whose current step you may approve, and closed tasks have none',
      'leave out --state closed, or --mine',
    );
  const api = await ctx.api();
  const req: Omit<TaskSearchRequest, 'pageSize' | 'pageToken'> = {
    ...(opts.state !== 'all' ? { taskStates: [...STATES[opts.state]] } : {}),
  };
  if (opts.query?.trim()) req.query = opts.query.trim();
  let keep: ((v: TaskView) => boolean) | undefined;
  if (opts.mine) {
    const me = await callerUserId(api);
    if (!me)
      throw new CliError(
        '--mine needs your user ID, and the server did not give it (GET /api/v1/auth/introspect answered no userId)',
        Exit.Server,
      );
    req.assignedOrStepApproverUserId = me;
    // The service's filter also finds closed tasks the user approved: only the current step's approvers are kept.
    keep = (v) => normalizeTaskView(v).task.stepApproverIds.includes(me);
  }
  const limit = opts.limit ?? TASK_LIST_DEFAULT_LIMIT;
  // One more than the limit tells whether more tasks match.
  const found = await listAllTasks(api, req, { limit: limit + 1, pageSize: opts.pageSize ?? Math.min(limit + 1, 100), keep });
  const views = found.slice(0, limit);
  await ctx.out.list(views, {
    empty: `No ${opts.state === 'all' ? '' : `${opts.state} `}tasks${opts.mine ? ' for you to approve' : ''}${req.query ? ` matching "${text(req.query)}"` : ''}`,
    columns: COLUMNS,
    row: (raw) => {
      const v = normalizeTaskView(raw);
      const t = v.task;
      const current = t.policy.current;
      // STATE is the task's, in the words of --state (the step's own state is in task get).
      return {
        ID: text(t.id) || '-',
        NUMBER: t.numericId ? `#${t.numericId}` : '-',
        NAME: text(t.displayName),
        STEP: stepLabel(current),
        STATE: taskState(v),
        CREATED: text(t.createdAt ?? '') || '-',
      };
    },
  });
  // A note, after the table and on stderr: a script reading stdout gets the table alone.
  if (found.length > limit) ctx.out.info(`More tasks match: showing the first ${limit} (--limit to see more)`);
  return 0;
}
