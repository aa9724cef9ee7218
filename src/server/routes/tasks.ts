// Tasks: the task view with its related objects (`expanded` + path fields)
// and approval with step-up authentication (service-api.md §2.4, §4.4).
//
// The server issues step-up transactions (service-notes.md §2): an approve
// call without a transaction ID, on a step that needs step-up, issues one
// bound to (task, step, user) and answers with the step-up page URL; the task
// is unchanged. Confirming the page verifies the transaction. An approve call
// with a verified transaction approves the step and uses the transaction up
// (step-up-transactions.ts).
import { failedPrecondition, invalidArgument, notFound, permissionDenied } from '../../api/errors.js';
import {
  EXPANDED_TYPES,
  assembleExpanded,
  normalizePolicy,
  normalizeTaskView,
  parseExpandPaths,
  stepKind,
  validateApproveRequest,
  type ApprovalDefinition,
  type ApproveWithStepUpResponse,
  type ExpandKey,
  type ExpandedObject,
  type GetTaskResponse,
  type PolicyStep,
  type PolicyStepInstance,
  type TaskPolicy,
  type TaskView,
} from '../../api/tasks.js';
import { isoAt, type Clock } from '../../lib/clock.js';
import { ksuid } from '../../lib/ids.js';
import type { ServerModule } from '../module.js';
import type { RequestContext } from '../router.js';
import type { Store } from '../store/db.js';
import { DEMO_APPS } from './apps.js';
import { DEMO_USERS } from './auth.js';
import { registerStepUpPage } from './step-up-page.js';
import { issueTransaction, migrateStepUpTransactions, refuseUsed, registerStepUpTransactionRoutes, useTransaction } from './step-up-transactions.js';

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

interface TaskRow {
  id: string;
  numeric_id: number;
  state: 'open' | 'closed';
  task: string;
  form: string | null;
  policy: string;
  related: string;
  created_at: string;
  updated_at: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function loadTaskRow(store: Store, id: string): TaskRow | undefined {
  return store.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
}

function requireTask(store: Store, id: string): TaskRow {
  const row = loadTaskRow(store, id);
  if (!row) throw notFound(`task ${id} not found`);
  return row;
}

const parseRelated = (row: TaskRow): TaskRelated => {
  const r = JSON.parse(row.related) as Partial<TaskRelated>;
  return { appId: r.appId ?? '', identityUserId: r.identityUserId ?? '', objects: r.objects ?? {}, owners: r.owners ?? {} };
};

/** The users who may act on an approval step. */
export function approversOf(def: ApprovalDefinition, related: TaskRelated): string[] {
  const out: string[] = [];
  if (def.users) {
    const self = def.users.allowSelfApproval === true;
    for (const u of def.users.userIds) if (self || u !== related.identityUserId) out.push(u);
  }
  if (def.self) out.push(related.identityUserId);
  if (def.appOwners) out.push(...(related.owners.app ?? []));
  if (def.entitlementOwners) out.push(...(related.owners.entitlement ?? []));
  if (def.resourceOwners) out.push(...(related.owners.resource ?? []));
  if (def.manager) out.push(...(related.owners.manager ?? []));
  if (def.group) out.push(...(related.owners.group ?? []));
  return [...new Set(out.filter(Boolean))];
}

function currentApprovers(policy: TaskPolicy, related: TaskRelated): string[] {
  const a = policy.current?.approval;
  return a && !a.approved ? approversOf(a.approval, related) : [];
}

/** Everyone who approved a step of this task plus the approvers of the current step. */
function allApprovers(policy: TaskPolicy, related: TaskRelated): string[] {
  const past = policy.history.map((s) => s.approval?.approved?.userId ?? '').filter(Boolean);
  return [...new Set([...past, ...currentApprovers(policy, related)])];
}

// --- related objects -------------------------------------------------------

function userObjects(store: Store, ids: readonly string[]): ExpandedObject[] {
  const get = store.db.prepare('SELECT id, display_name, email FROM users WHERE id = ?');
  const out: ExpandedObject[] = [];
  for (const id of ids) {
    const u = get.get(id) as { id: string; display_name: string; email: string } | undefined;
    if (u) out.push({ '@type': EXPANDED_TYPES.user, id: u.id, displayName: u.display_name, email: u.email });
  }
  return out;
}

function storedObjects(store: Store, ids: readonly string[]): ExpandedObject[] {
  const get = store.db.prepare('SELECT type, body FROM task_objects WHERE id = ?');
  const out: ExpandedObject[] = [];
  for (const id of ids) {
    const o = get.get(id) as { type: string; body: string } | undefined;
    if (o) out.push({ ...(JSON.parse(o.body) as Record<string, unknown>), '@type': o.type, id });
  }
  return out;
}

function buildView(store: Store, row: TaskRow, callerId: string, keys: readonly ExpandKey[]): { taskView: TaskView; expanded: ExpandedObject[] } {
  const related = parseRelated(row);
  const stored = JSON.parse(row.task) as Record<string, unknown>;
  const policy = normalizePolicy(JSON.parse(row.policy));
  const approverIds = allApprovers(policy, related);
  const stepApproverIds = row.state === 'open' ? currentApprovers(policy, related) : [];
  const createdBy = typeof stored.createdByUserId === 'string' ? stored.createdByUserId : '';
  const insightIds = Array.isArray(stored.insightIds) ? (stored.insightIds as string[]) : [];
  const lookup = (key: ExpandKey): ExpandedObject[] => {
    switch (key) {
      case 'app': {
        const a = store.db.prepare('SELECT id, display_name, description FROM apps WHERE id = ?').get(related.appId) as
          | { id: string; display_name: string; description: string }
          | undefined;
        return a ? [{ '@type': EXPANDED_TYPES.app, id: a.id, displayName: a.display_name, description: a.description }] : [];
      }
      case 'approvers':
        return userObjects(store, approverIds);
      case 'stepApprovers':
        return userObjects(store, stepApproverIds);
      case 'createdByUser':
        return userObjects(store, createdBy ? [createdBy] : []);
      case 'identityUser':
        return userObjects(store, related.identityUserId ? [related.identityUserId] : []);
      case 'insights':
        return storedObjects(store, insightIds);
      default:
        return storedObjects(store, related.objects[key] ?? []);
    }
  };
  const { expanded, paths } = assembleExpanded(keys, lookup);
  const taskView = normalizeTaskView({
    ...paths,
    objectPermissions: { read: true, edit: stepApproverIds.includes(callerId), delete: false, extra: {} },
    task: { ...stored, approverIds, form: row.form ? JSON.parse(row.form) : null, policy },
  });
  return { taskView, expanded };
}

function expandFromQuery(q: URLSearchParams): ExpandKey[] {
  return parseExpandPaths([...q.getAll('expand'), ...q.getAll('expand_mask.paths'), ...q.getAll('expandMask.paths')]);
}

// --- routes ----------------------------------------------------------------

function getTask(ctx: RequestContext): { body: GetTaskResponse } {
  const keys = expandFromQuery(ctx.query);
  const row = requireTask(ctx.store, ctx.params.task_id!);
  return { body: buildView(ctx.store, row, ctx.auth!.userId, keys) };
}

/** Turns a step definition into the instance that becomes current. */
function instantiate(def: PolicyStep, now: number): PolicyStepInstance {
  const id = ksuid(now);
  const at = isoAt(now);
  switch (stepKind(def)) {
    case 'approval':
      return { id, state: STATES.stepActive, approval: { approval: def.approval!, state: STATES.approvalWaiting, assignedAt: at } };
    case 'accept':
      return { id, state: STATES.stepDone, accept: { acceptMessage: def.accept!.acceptMessage } };
    case 'reject':
      return { id, state: STATES.stepDone, reject: { rejectMessage: def.reject!.rejectMessage } };
    case 'provision':
      return { id, state: STATES.stepActive, provision: { provision: def.provision, state: STATES.provisionWaiting } };
    case 'form':
      return { id, state: STATES.stepActive, form: { form: def.form?.form ?? null, data: {}, state: STATES.formWaiting } };
    case 'wait':
      return { id, state: STATES.stepActive, wait: { ...def.wait, state: STATES.waitWaiting } };
    case 'action':
      return { id, state: STATES.stepActive, action: { action: def.action, state: STATES.actionWaiting } };
    default:
      return { id, state: STATES.stepActive };
  }
}

async function approveWithStepUp(ctx: RequestContext): Promise<{ body: ApproveWithStepUpResponse }> {
  const req = validateApproveRequest(await ctx.json());
  const keys = parseExpandPaths(req.expandMask?.paths);
  const userId = ctx.auth!.userId;
  const taskId = ctx.params.task_id!;
  const { store } = ctx;
  const now = ctx.clock.now();

  const outcome = store.write((): { redirectUrl: string; ticketActionId: string } => {
    const row = requireTask(store, taskId);
    const txId = req.stepUpTransactionId;
    if (txId) refuseUsed(store, txId);
    const policy = normalizePolicy(JSON.parse(row.policy));
    const current = policy.current;
    if (row.state === 'closed' || !current) throw failedPrecondition(`task ${taskId} is closed`);
    if (req.policyStepId !== current.id) {
      throw failedPrecondition(`policy step ${req.policyStepId} is not the current step of task ${taskId} (the current step is ${current.id})`);
    }
    const approval = current.approval;
    if (!approval) throw failedPrecondition(`the current step ${current.id} of task ${taskId} is a ${stepKind(current) || 'untyped'} step, not an approval`);
    if (approval.approved || approval.denied || approval.skipped) throw failedPrecondition(`the approval step ${current.id} is already decided`);
    const related = parseRelated(row);
    if (!approversOf(approval.approval, related).includes(userId)) {
      throw permissionDenied(`user ${userId} is not an approver of step ${current.id} of task ${taskId}`);
    }
    if (approval.approval.requireApprovalReason && !req.comment.trim()) {
      throw invalidArgument('comment is required: this approval step requires an approval reason');
    }

    // A transaction ID, when sent, must name a verified transaction issued here for this task, step and user.
    const providerId = approval.approval.requiresStepUpProviderId;
    if (providerId && !txId) {
      return { redirectUrl: issueTransaction(store, ctx.baseUrl, { taskId, stepId: current.id, userId, providerId, now }).redirectUrl, ticketActionId: '' };
    }
    if (txId) useTransaction(store, txId, { taskId, stepId: current.id, userId, now });

    // Approve: outcome on the current instance, into history, next step becomes current.
    const stored = JSON.parse(row.task) as Record<string, unknown>;
    current.state = STATES.stepDone;
    approval.state = STATES.approvalDone;
    approval.approved = {
      approvedAt: isoAt(now),
      entitlements: (related.objects.entitlements ?? []).map((id) => ({ appId: related.appId, appEntitlementId: id })),
      stepUpTransactionId: txId,
      userId,
    };
    policy.history.push(current);
    const nextDef = policy.next.shift();
    policy.current = nextDef ? instantiate(nextDef, now) : null;
    const kind = stepKind(policy.current);
    const closed = !policy.current || kind === 'accept' || kind === 'reject';
    const comment = req.comment.trim();
    if (comment) stored.commentCount = (typeof stored.commentCount === 'number' ? stored.commentCount : 0) + 1;
    const actionId = ksuid(now);
    store.db
      .prepare(
        `INSERT INTO task_approve_actions (id, task_id, step_id, user_id, step_up_transaction_id, comment, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(actionId, taskId, current.id, userId, txId, comment, isoAt(now));
    const res = store.db
      .prepare('UPDATE tasks SET task = ?, policy = ?, state = ?, updated_at = ? WHERE id = ? AND updated_at = ?')
      .run(JSON.stringify(stored), JSON.stringify(policy), closed ? 'closed' : 'open', isoAt(now), taskId, row.updated_at);
    if (res.changes !== 1) throw failedPrecondition(`task ${taskId} changed while approving; read it again`);
    return { redirectUrl: '', ticketActionId: actionId };
  });

  const { taskView, expanded } = buildView(store, requireTask(store, taskId), userId, keys);
  return { body: { expanded, redirectUrl: outcome.redirectUrl, taskView, ticketActionId: outcome.ticketActionId } };
}

// --- tables and demo data --------------------------------------------------

function migrate(store: Store): void {
  store.db.exec(`
    CREATE TABLE IF NOT EXISTS tasks (
      id TEXT PRIMARY KEY,
      numeric_id INTEGER NOT NULL UNIQUE,
      state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
      task TEXT NOT NULL,
      form TEXT,
      policy TEXT NOT NULL,
      related TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS task_objects (
      id TEXT PRIMARY KEY,
      type TEXT NOT NULL,
      body TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS task_approve_actions (
      id TEXT PRIMARY KEY,
      task_id TEXT NOT NULL REFERENCES tasks(id),
      step_id TEXT NOT NULL,
      user_id TEXT NOT NULL,
      step_up_transaction_id TEXT NOT NULL,
      comment TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
  `);
  migrateStepUpTransactions(store);
}

/** The demo requester: the user asking for access in the seeded tasks. */
export const DEMO_REQUESTER = { id: 'user-grace', displayName: 'Grace Hopper', email: 'grace@example.com' } as const;
export const STEP_UP_PROVIDER_ID = 'stepup-embedded';

const DEMO_OBJECTS: { id: string; type: string; body: Record<string, unknown> }[] = [
  {
    id: 'ent-crm-admin',
    type: EXPANDED_TYPES.entitlement,
    body: { appId: DEMO_APPS.crm.id, displayName: 'CRM Administrator', slug: 'admin', description: 'Full administrative access to the CRM' },
  },
  {
    id: 'ent-crm-reports',
    type: EXPANDED_TYPES.entitlement,
    body: { appId: DEMO_APPS.crm.id, displayName: 'CRM Report Viewer', slug: 'reports', description: 'Read-only access to CRM reports' },
  },
  {
    id: 'appuser-crm-grace',
    type: EXPANDED_TYPES.appUser,
    body: { appId: DEMO_APPS.crm.id, identityUserId: DEMO_REQUESTER.id, displayName: 'grace.hopper', email: DEMO_REQUESTER.email },
  },
  {
    id: 'appuser-crm-ci',
    type: EXPANDED_TYPES.appUser,
    body: { appId: DEMO_APPS.crm.id, identityUserId: DEMO_USERS.ci.id, displayName: 'ci-robot', email: DEMO_USERS.ci.email },
  },
  {
    id: 'insight-crm-dormant',
    type: EXPANDED_TYPES.insight,
    body: { title: 'Dormant account', description: 'The CRM account of this user was not used in the last 60 days' },
  },
];

const REQUEST_FORM = {
  id: 'form-crm-access',
  displayName: 'CRM access request',
  description: 'Details collected when access to the CRM is requested',
  fieldGroups: [
    { default: true, displayName: 'Request', fields: ['justification', 'durationDays', 'environment'], helpText: 'Tell approvers what you need', name: 'request' },
    { default: false, displayName: 'Notifications', fields: ['notifyManager', 'managerEmail'], helpText: '', name: 'notifications' },
  ],
  fieldRelationships: [{ fieldNames: ['managerEmail'], dependentOn: { dependencyFieldNames: ['notifyManager'] } }],
  fields: [
    {
      name: 'justification',
      displayName: 'Justification',
      description: 'Why the access is needed',
      required: true,
      stringField: { defaultValue: '', placeholder: 'Why do you need this access?', textField: { multiline: true }, rules: { minLen: '10', maxLen: '1000' } },
    },
    {
      name: 'durationDays',
      displayName: 'Duration (days)',
      adminConfig: { defaultValueCel: '30', showToUser: true },
      int64Field: { defaultValue: '30', placeholder: '30', numberField: { step: '1' }, rules: { gte: '1', lte: '90' } },
    },
    {
      name: 'environment',
      displayName: 'Environment',
      sharedConfig: { defaultValueCel: '"production"', lockDefaultValues: false },
      stringField: {
        defaultValue: 'production',
        selectField: { options: [{ value: 'production', displayName: 'Production' }, { value: 'sandbox', displayName: 'Sandbox' }] },
        rules: { in: ['production', 'sandbox'] },
      },
    },
    { name: 'notifyManager', displayName: 'Notify my manager', boolField: { defaultValue: true, checkboxField: {} } },
    {
      name: 'managerEmail',
      displayName: 'Manager email',
      userConfig: { inputTransformationCel: 'value.lowerAscii()' },
      stringField: { placeholder: 'manager@example.com', textField: {}, rules: { email: true, maxLen: '254' } },
    },
  ],
};

export interface NewTask {
  displayName: string;
  description?: string;
  createdByUserId: string;
  identityUserId: string;
  entitlementIds?: string[];
  appUserId?: string;
  insightIds?: string[];
  owners?: TaskRelated['owners'];
  current: PolicyStepInstance | null;
  history?: PolicyStepInstance[];
  next?: PolicyStep[];
  closed?: boolean;
  /** Extra task members (origin, actions, externalRefs, annotations, data, ...). */
  extra?: Record<string, unknown>;
  form?: unknown;
  createdAt?: number;
}

/** Inserts a task (demo data, and tests that need a fresh one). Returns its ID. */
export function insertTask(store: Store, clock: Clock, spec: NewTask): string {
  const now = clock.now();
  const id = ksuid(now);
  const max = store.db.prepare('SELECT MAX(numeric_id) AS n FROM tasks').get() as { n: number | null };
  const numericId = Math.max(max.n ?? 0, 1040) + 1;
  const createdAt = isoAt(spec.createdAt ?? now);
  const task = {
    id,
    numericId: String(numericId),
    displayName: spec.displayName,
    description: spec.description ?? '',
    createdByUserId: spec.createdByUserId,
    analysisId: '',
    createdAt,
    deletedAt: null,
    commentCount: 0,
    emergencyAccess: false,
    insightIds: spec.insightIds ?? [],
    annotations: [],
    data: {},
    actions: [],
    origin: 'TASK_ORIGIN_UNSPECIFIED',
    externalRefs: [],
    ...spec.extra,
  };
  const related: TaskRelated = {
    appId: DEMO_APPS.crm.id,
    identityUserId: spec.identityUserId,
    objects: { entitlements: spec.entitlementIds ?? [], appUser: spec.appUserId ? [spec.appUserId] : [] },
    owners: spec.owners ?? {},
  };
  const policy = {
    id: 'policy-crm-access',
    policyGenerationId: '3',
    current: spec.current,
    history: spec.history ?? [],
    next: spec.next ?? [],
  };
  store.db
    .prepare('INSERT INTO tasks (id, numeric_id, state, task, form, policy, related, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(id, numericId, spec.closed ? 'closed' : 'open', JSON.stringify(task), spec.form === undefined ? null : JSON.stringify(spec.form), JSON.stringify(policy), JSON.stringify(related), createdAt, createdAt);
  return id;
}

export function approvalInstance(clock: Clock, def: Partial<ApprovalDefinition>, at = clock.now()): PolicyStepInstance {
  return {
    id: ksuid(at),
    state: STATES.stepActive,
    approval: { approval: def as ApprovalDefinition, state: STATES.approvalWaiting, assignedAt: isoAt(at) },
  };
}

/**
 * Inserts a task whose current step is an approval requiring step-up, with
 * `approverIds` as its approvers (default: the two demo users), followed by
 * a provisioning step and acceptance. Returns the task and step IDs.
 */
export function insertStepUpTask(
  store: Store,
  clock: Clock,
  opts: { approverIds?: string[]; requireApprovalReason?: boolean; displayName?: string } = {},
): { taskId: string; stepId: string } {
  const now = clock.now();
  const created = now - 2 * 3600_000;
  const current = approvalInstance(clock, {
    users: { userIds: opts.approverIds ?? [DEMO_USERS.admin.id, DEMO_USERS.ci.id], allowSelfApproval: false },
    requiresStepUpProviderId: STEP_UP_PROVIDER_ID,
    allowReassignment: true,
    allowedReassignees: [DEMO_USERS.admin.id],
    requireApprovalReason: opts.requireApprovalReason ?? false,
    requireDenialReason: true,
    escalationEnabled: true,
    escalation: { escalationComment: 'Escalated to the app owner after two days', expiration: '172800s', reassignToApprovers: { approverIds: [DEMO_USERS.admin.id] } },
  }, now - 3600_000);
  const data = { justification: 'Quarterly pipeline clean-up needs admin rights', durationDays: 30, environment: 'production', notifyManager: true, managerEmail: DEMO_USERS.admin.email };
  const taskId = insertTask(store, clock, {
    displayName: opts.displayName ?? 'CRM Administrator for Grace Hopper',
    description: 'Grace asks for administrative access to the CRM for the quarterly clean-up',
    createdByUserId: DEMO_REQUESTER.id,
    identityUserId: DEMO_REQUESTER.id,
    entitlementIds: ['ent-crm-admin'],
    appUserId: 'appuser-crm-grace',
    insightIds: ['insight-crm-dormant'],
    owners: { app: [DEMO_USERS.admin.id] },
    createdAt: created,
    form: REQUEST_FORM,
    history: [
      {
        id: ksuid(created),
        state: STATES.stepDone,
        form: { form: REQUEST_FORM, data, completed: { completedAt: isoAt(created), userId: DEMO_REQUESTER.id }, state: STATES.formDone },
      },
    ],
    current,
    next: [
      {
        provision: {
          assigned: false,
          provisionPolicy: { connector: {} },
          provisionTarget: { appId: DEMO_APPS.crm.id, appEntitlementId: 'ent-crm-admin', appUserId: 'appuser-crm-grace', grantDuration: '2592000s' },
        },
      },
      { accept: { acceptMessage: 'Access granted' } },
    ],
    extra: {
      data,
      // Values outside the spec's known enum values, passed through as they are.
      actions: ['TASK_ACTION_TYPE_UNSPECIFIED', 'TASK_ACTION_TYPE_APPROVE_WITH_STEP_UP'],
      externalRefs: [{ externalRefSource: 'EXTERNAL_REF_SOURCE_JIRA', name: 'IT-1042', url: 'https://tickets.example.com/browse/IT-1042' }],
      annotations: [{ '@type': 'type.googleapis.com/governance.task.v1.RiskAnnotation', level: 'high', reason: 'administrative entitlement' }],
    },
  });
  return { taskId, stepId: current.id };
}

function seed({ store, clock }: { store: Store; clock: Clock }) {
  store.db.prepare('INSERT OR IGNORE INTO users (id, display_name, email) VALUES (?, ?, ?)').run(DEMO_REQUESTER.id, DEMO_REQUESTER.displayName, DEMO_REQUESTER.email);
  const insObj = store.db.prepare('INSERT OR IGNORE INTO task_objects (id, type, body) VALUES (?, ?, ?)');
  for (const o of DEMO_OBJECTS) insObj.run(o.id, o.type, JSON.stringify({ id: o.id, ...o.body }));
  const now = clock.now();

  const stepUp = insertStepUpTask(store, clock);
  const stepUp2 = insertStepUpTask(store, clock, { displayName: 'CRM Administrator for Grace Hopper (sandbox)' });

  // Approval by the requester's manager (Ada), no step-up.
  const noStepUpStep = approvalInstance(clock, { manager: { allowSelfApproval: false }, requiresStepUpProviderId: '' }, now - 1800_000);
  const noStepUp = insertTask(store, clock, {
    displayName: 'CRM Report Viewer for CI Robot',
    description: 'Read-only reports for the nightly export job',
    createdByUserId: DEMO_USERS.ci.id,
    identityUserId: DEMO_USERS.ci.id,
    entitlementIds: ['ent-crm-reports'],
    appUserId: 'appuser-crm-ci',
    owners: { manager: [DEMO_USERS.admin.id] },
    createdAt: now - 3600_000,
    current: noStepUpStep,
    next: [{ accept: { acceptMessage: 'Access granted' } }],
  });

  // Waiting for a condition before the approval.
  const waitStep: PolicyStepInstance = {
    id: ksuid(now),
    state: STATES.stepActive,
    wait: { name: 'Wait for HR onboarding', condition: { condition: 'subject.status == "ACTIVE"' }, timeoutDuration: '604800s', comments: {}, state: STATES.waitWaiting },
  };
  const waiting = insertTask(store, clock, {
    displayName: 'CRM Report Viewer for Grace Hopper',
    createdByUserId: DEMO_REQUESTER.id,
    identityUserId: DEMO_REQUESTER.id,
    entitlementIds: ['ent-crm-reports'],
    appUserId: 'appuser-crm-grace',
    current: waitStep,
    next: [
      { approval: { users: { userIds: [DEMO_USERS.admin.id, DEMO_USERS.ci.id] }, requiresStepUpProviderId: STEP_UP_PROVIDER_ID } as ApprovalDefinition },
      { accept: { acceptMessage: 'Access granted' } },
    ],
  });

  // Closed: approved by Ada yesterday, accepted.
  const yesterday = now - 86400_000;
  const done = approvalInstance(clock, { users: { userIds: [DEMO_USERS.admin.id] }, requiresStepUpProviderId: '' }, yesterday - 3600_000);
  done.state = STATES.stepDone;
  done.approval!.state = STATES.approvalDone;
  done.approval!.approved = {
    approvedAt: isoAt(yesterday),
    entitlements: [{ appId: DEMO_APPS.crm.id, appEntitlementId: 'ent-crm-reports' }],
    stepUpTransactionId: '',
    userId: DEMO_USERS.admin.id,
  };
  const closed = insertTask(store, clock, {
    displayName: 'CRM Report Viewer for Ada Admin',
    createdByUserId: DEMO_USERS.admin.id,
    identityUserId: DEMO_USERS.admin.id,
    entitlementIds: ['ent-crm-reports'],
    createdAt: yesterday - 7200_000,
    history: [done],
    current: { id: ksuid(yesterday), state: STATES.stepDone, accept: { acceptMessage: 'Access granted' } },
    closed: true,
    extra: { commentCount: 1 },
  });

  return {
    tasks: {
      stepUp: stepUp.taskId,
      stepUpStepId: stepUp.stepId,
      stepUp2: stepUp2.taskId,
      stepUp2StepId: stepUp2.stepId,
      noStepUp,
      noStepUpStepId: noStepUpStep.id,
      waiting,
      waitingStepId: waitStep.id,
      closed,
      approvers: { stepUp: [DEMO_USERS.admin.id, DEMO_USERS.ci.id], noStepUp: [DEMO_USERS.admin.id] },
      requester: DEMO_REQUESTER.id,
    },
  };
}

export const tasksModule: ServerModule = {
  name: 'tasks',
  migrate,
  seed,
  routes(router) {
    router.get('/api/v1/tasks/:task_id', getTask);
    router.post('/api/v1/tasks/:task_id/action/approve-with-step-up', approveWithStepUp, { maxBody: 64 * 1024 });
    registerStepUpTransactionRoutes(router);
    registerStepUpPage(router);
  },
};
