// What the embedded server stores about a task beyond the spec's shapes: the
// state names it writes, the references from a task to its related objects,
// and the JSON columns of the task tables (src/server/store/json.ts).
// Shared by the task routes and the demo fixtures.
import { EXPAND_KEYS, normalizePolicy, normalizeTask, type ExpandKey, type Task } from '../../api/tasks.js';
import { shape, type Infer } from '../../api/shape.js';
import { JSON_OBJECT, jsonColumn, jsonColumnOf, nullable } from '../store/json.js';

// State names the embedded server writes. The spec knows only the
// *_UNSPECIFIED values; clients must treat every value as an opaque string.
export const STATES = {
  stepActive: 'POLICY_STEP_STATE_ACTIVE',
  stepDone: 'POLICY_STEP_STATE_DONE',
  approvalWaiting: 'APPROVAL_INSTANCE_STATE_WAITING',
  approvalDone: 'APPROVAL_INSTANCE_STATE_DONE',
  formDone: 'FORM_INSTANCE_STATE_DONE',
  formWaiting: 'FORM_INSTANCE_STATE_WAITING',
  provisionWaiting: 'PROVISION_INSTANCE_STATE_WAITING',
  waitWaiting: 'WAIT_INSTANCE_STATE_WAITING',
  actionWaiting: 'ACTION_INSTANCE_STATE_WAITING',
} as const;

const ids = { kind: 'strings', optional: true } as const;

/** References from a task to its related objects. */
const TASK_RELATED = shape({
  appId: 'string',
  identityUserId: 'string',
  /** IDs of rows in task_objects, per expand key (appUser, entitlements, insights, ...). */
  objects: { kind: 'object', of: Object.fromEntries(EXPAND_KEYS.map((k) => [k, ids])) as Record<ExpandKey, typeof ids> },
  /** Resolved owners for approval assignee kinds other than `users` and `self`. */
  owners: { kind: 'object', of: { app: ids, entitlement: ids, resource: ids, manager: ids, group: ids } },
});
export type TaskRelated = Infer<typeof TASK_RELATED>;

/** The members of a task the server derives when it shows one (approvers, form, policy, state), kept in their own columns or not stored. */
type Derived = 'approverIds' | 'form' | 'policy' | 'state' | 'stepApproverIds';
/** A task as stored in tasks.task. */
export type StoredTask = Omit<Task, Derived>;

// --- JSON columns (tables in tasks.ts) -------------------------------------

/** tasks.task: the task without the members the server derives. */
export const TASK = jsonColumnOf((raw): StoredTask => {
  const { approverIds, form, policy, state, stepApproverIds, ...stored } = normalizeTask(raw);
  return stored;
});
/** tasks.form: the task's form, NULL without one; read through the task's schema (its `form` member). */
export const FORM = nullable(jsonColumnOf((raw) => normalizeTask({ form: raw }).form));
/** tasks.policy */
export const POLICY = jsonColumnOf(normalizePolicy);
/** tasks.related */
export const RELATED = jsonColumn(TASK_RELATED);
/**
 * task_objects.body: a related object (app user, entitlement, insight, ...)
 * as the service would send it in `expanded`. agctl declares no shape for
 * these (the view passes them on untouched), so the object is kept as it is.
 */
export const OBJECT_BODY = JSON_OBJECT;
