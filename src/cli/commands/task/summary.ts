// What the task commands show of a task: names of related objects, steps and
// their outcomes, the short form of the service's enum values. Text a server
// sent shows its control characters as escapes (\x1b), as everywhere else.
import { ApiError } from '../../../api/errors.js';
import {
  resolveExpandedPath,
  stepKind,
  type ExpandedObject,
  type PolicyStepInstance,
  type TaskPathField,
  type TaskView,
  wireExpandPaths,
} from '../../../api/tasks.js';
import { UsageError } from '../../../lib/exit.js';
import { isJsonObject } from '../../../lib/json.js';
import type { CommandContext } from '../../context.js';
import { escapeControls } from '../../escape.js';

/** A server's string as it may reach the terminal (control characters as escapes); '' for anything else. */
export const text = (v: unknown): string => (typeof v === 'string' ? escapeControls(v) : '');

/** "Name (id)" of a related object; `fallback` when there is none. */
export function named(o: ExpandedObject | undefined, fallback = '-'): string {
  if (!o) return fallback;
  const name = text(o.displayName) || text(o.name);
  const id = text(o.id);
  return name && id ? `${name} (${id})` : name || id || fallback;
}

/** "Name <email>" of a user object; `fallback` (an ID) when there is none. */
export function person(o: ExpandedObject | undefined, fallback: string): string {
  if (!o) return fallback || '-';
  const name = text(o.displayName) || text(o.id);
  const email = text(o.email);
  return email ? `${name} <${email}>` : name;
}

/**
 * Resolves a view's path fields into `expanded`; a path that cannot be read
 * gives nothing (and a --debug line), and so does an entry of `expanded` that
 * is not an object (null, a string, ...).
 */
export function resolver(ctx: Pick<CommandContext, 'debug'>, view: TaskView, expanded: readonly unknown[]) {
  return (field: TaskPathField): ExpandedObject[] => {
    try {
      return resolveExpandedPath(view[field], expanded).filter((v): v is ExpandedObject => isJsonObject(v));
    } catch (err) {
      ctx.debug(`${field}: ${(err as Error).message}`);
      return [];
    }
  };
}

/** The short form of an enum value with a known prefix, lower case (POLICY_STEP_STATE_ACTIVE -> active); other values as they are. */
function shortState(value: string, prefix: string): string {
  return value.startsWith(prefix) && value.length > prefix.length ? value.slice(prefix.length).toLowerCase() : escapeControls(value);
}

/**
 * The task's state in the words of `task list --state`: open or closed (a
 * value agctl does not know, as received). A task whose state is left out is
 * open while it has a current step.
 */
export function taskState(v: TaskView): string {
  if (v.task.state === 'TASK_STATE_UNSPECIFIED') return v.task.policy.current ? 'open' : 'closed';
  return shortState(v.task.state, 'TASK_STATE_');
}

/** The kind of a step, with "(step-up)" for an approval that needs it; '-' for none. */
export function stepLabel(step: PolicyStepInstance | null): string {
  if (!step) return '-';
  const kind = stepKind(step) || 'step';
  return kind === 'approval' && step.approval?.approval.requiresStepUpProviderId ? 'approval (step-up)' : kind;
}

export const stepState = (step: PolicyStepInstance | null) => (step ? shortState(step.state, 'POLICY_STEP_STATE_') : '-');

/** One line on the step that follows an approval (what `approve-step-up` reports). */
export function describeStep(step: PolicyStepInstance | null, approvers: ExpandedObject[], remaining: number): string {
  if (!step) return 'none (the task is closed)';
  const kind = stepKind(step);
  switch (kind) {
    case 'accept':
      return `accept: ${text(step.accept?.acceptMessage) || 'accepted'} (the task is closed)`;
    case 'reject':
      return `reject: ${text(step.reject?.rejectMessage) || 'rejected'} (the task is closed)`;
    case 'approval': {
      const who = approvers.map((u) => text(u.displayName) || text(u.id)).filter(Boolean);
      return `approval ${text(step.id)}${who.length ? ` by ${who.join(', ')}` : ''}`;
    }
    default:
      return `${kind || 'step'} ${text(step.id)}${remaining ? `, then ${remaining} more` : ''}`;
  }
}

/** What happened in a past step, in words ("approved by Ada Admin at ..., with step-up ..."). */
export function stepOutcome(step: PolicyStepInstance, userName: (id: string) => string): string {
  const a = step.approval;
  if (a?.approved) {
    const o = a.approved;
    return `approved by ${userName(o.userId)}${o.approvedAt ? ` at ${text(o.approvedAt)}` : ''}${o.stepUpTransactionId ? ` (step-up ${text(o.stepUpTransactionId)})` : ''}`;
  }
  for (const k of ['denied', 'skipped', 'reassigned', 'restarted', 'reassignedByError'] as const)
    if (a?.[k]) return k === 'reassignedByError' ? 'reassigned after an error' : k;
  if (step.accept) return `accepted${step.accept.acceptMessage ? `: ${text(step.accept.acceptMessage)}` : ''}`;
  if (step.reject) return `rejected${step.reject.rejectMessage ? `: ${text(step.reject.rejectMessage)}` : ''}`;
  const completed = (step.form as { completed?: { userId?: unknown; completedAt?: unknown } } | undefined)?.completed;
  if (completed)
    return `completed by ${userName(text(completed.userId))}${completed.completedAt ? ` at ${text(completed.completedAt)}` : ''}`;
  return stepState(step);
}

/** Related objects requested when --expand is absent: what the summaries show. */
const DEFAULT_EXPAND = ['app', 'createdByUser', 'approvers', 'stepApprovers'];

/** --expand as the expand-mask paths sent (checked here: an unknown name is a usage error; the service's names are used where it has them). */
export function expandPaths(raw: string | undefined): string[] {
  if (raw === undefined) return wireExpandPaths(DEFAULT_EXPAND);
  const paths = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  try {
    return wireExpandPaths(paths);
  } catch (err) {
    if (err instanceof ApiError) throw new UsageError(`--expand: ${err.message}`);
    throw err;
  }
}
