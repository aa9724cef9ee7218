// agctl task get <task-id>: GET /api/v1/tasks/{id}, as a summary or as the API's object.
import { normalizeTaskView, stepKind, type ExpandedObject } from '../../../../api/tasks.js';
import { getTask } from '../../../../client/tasks.js';
import type { CommandContext } from '../../../context.js';
import { nextCommand } from '../next-command.js';
import { resolveTaskArg } from '../task-ref.js';
import { expandPaths, named, person, resolver, stepLabel, stepOutcome, stepState, taskState, text } from '../summary.js';
import type { GetInput } from './command.js';

export async function run({ args: [taskId], opts }: GetInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  // The ID asked for: the one typed, or the one a task number names. It stands where the answer leaves the ID out.
  const id = await resolveTaskArg(ctx, api, taskId.trim());
  const res = await getTask(api, id, expandPaths(opts.expand));
  if (ctx.out.json) {
    ctx.out.printJson(res);
    return 0;
  }
  const view = normalizeTaskView(res.taskView);
  const expanded: ExpandedObject[] = Array.isArray(res.expanded) ? res.expanded : [];
  const resolve = resolver(ctx, view, expanded);
  const users = [...resolve('approversPath'), ...resolve('stepApproversPath'), ...resolve('createdByUserPath')];
  const userName = (id: string) =>
    person(
      users.find((u) => u.id === id),
      text(id),
    );
  const t = view.task;
  const current = t.policy.current;
  const rows: [string, string][] = [
    ['Task', `#${text(t.numericId)} ${text(t.displayName)}`],
    ['ID', text(t.id) || text(id)],
    ['State', taskState(view)],
    ['App', named(resolve('appPath')[0])],
    ['Requester', userName(t.createdByUserId)],
    ['Created', text(t.createdAt ?? '')],
  ];
  if (t.description) rows.push(['Description', text(t.description)]);
  rows.push(['Current step', current ? `${stepLabel(current)} ${text(current.id)} (${stepState(current)})` : 'none']);
  const approval = current?.approval;
  if (approval) {
    const fromView = resolve('stepApproversPath').map((u) => person(u, text(u.id)));
    const ids = t.stepApproverIds.length ? t.stepApproverIds : (approval.approval.users?.userIds ?? []);
    rows.push(['Can approve', fromView.length ? fromView.join(', ') : ids.map(userName).join(', ') || '-']);
    const provider = approval.approval.requiresStepUpProviderId;
    const approve = nextCommand(ctx.flags, ['task', 'approve-step-up', id]);
    rows.push([
      'Step-up',
      provider
        ? `required (provider ${text(provider)}): ${'line' in approve ? approve.line : `the command to approve it is not shown as one to paste: ${approve.why}`}`
        : 'not required',
    ]);
  }
  if (t.policy.next.length) rows.push(['Next steps', t.policy.next.map((n) => stepKind(n) || 'step').join(', ')]);
  ctx.out.fields(rows);
  if (ctx.out.picked) return 0;
  ctx.out.print('');
  if (!t.policy.history.length) {
    ctx.out.print('History: none');
    return 0;
  }
  ctx.out.print('History:');
  for (const [i, step] of t.policy.history.entries())
    ctx.out.print(`  ${i + 1}. ${stepLabel(step)} ${text(step.id)}: ${stepOutcome(step, userName)}`);
  return 0;
}
