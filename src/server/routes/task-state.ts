// What the embedded server stores about a task beyond the spec's shapes: the
// state names it writes and the references from a task to its related objects.
// Shared by the task routes and the demo fixtures.
import type { ExpandKey } from '../../api/tasks.js';

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

/** References from a task to its related objects (stored as JSON in tasks.related). */
export interface TaskRelated {
  appId: string;
  identityUserId: string;
  /** IDs of rows in task_objects, per expand key (appUser, entitlements, insights, ...). */
  objects: Partial<Record<ExpandKey, string[]>>;
  /** Resolved owners for approval assignee kinds other than `users` and `self`. */
  owners: Partial<Record<'app' | 'entitlement' | 'resource' | 'manager' | 'group', string[]>>;
}
