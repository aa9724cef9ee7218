// Tasks: the task view with its related objects (`expanded` + path fields),
// the task search, and approval with step-up authentication (service-api.md
// §2.4, §4.4; service-notes.md §2).
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
  TASK_PATH_FIELDS,
  TASK_STATES,
  assembleExpanded,
  expandedCollector,
  expandedIndices,
  formatExpandedPath,
  normalizeTaskView,
  parseExpandPaths,
  stepKind,
  validateApproveRequest,
  validateTaskSearch,
  type ApprovalDefinition,
  type ApproveWithStepUpResponse,
  type ExpandKey,
  type ExpandedObject,
  type GetTaskResponse,
  type PolicyStep,
  type PolicyStepInstance,
  type TaskPolicy,
  type TaskSearchResponse,
  type TaskView,
} from '../../api/tasks.js';
import { decodePageToken, pageOf } from '../paging.js';
import { isoAt } from '../../lib/clock.js';
import { ksuid } from '../../lib/ids.js';
import type { ServerModule } from '../module.js';
import type { RequestContext } from '../router.js';
import type { Store } from '../store/db.js';
import { seedTasks } from '../fixtures/tasks.js';
import { registerStepUpPage } from './step-up-page.js';
import { FORM, OBJECT_BODY, POLICY, RELATED, STATES, TASK, type TaskRelated } from './task-state.js';
import {
  issueTransaction,
  migrateStepUpTransactions,
  refuseUsed,
  registerStepUpTransactionRoutes,
  useTransaction,
} from './step-up-transactions.js';

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

function loadTaskRow(store: Store, id: string): TaskRow | undefined {
  return store.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
}

function requireTask(store: Store, id: string): TaskRow {
  const row = loadTaskRow(store, id);
  if (!row) throw notFound(`task ${id} not found`);
  return row;
}

const parseRelated = (row: TaskRow): TaskRelated => RELATED.value(row.related);

/** The users who may act on an approval step. */
function approversOf(def: ApprovalDefinition, related: TaskRelated): string[] {
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
    if (o) out.push({ ...OBJECT_BODY.value(o.body), '@type': o.type, id });
  }
  return out;
}

function buildView(
  store: Store,
  row: TaskRow,
  callerId: string,
  keys: readonly ExpandKey[],
): { taskView: TaskView; expanded: ExpandedObject[] } {
  const related = parseRelated(row);
  const stored = TASK.value(row.task);
  const policy = POLICY.value(row.policy);
  const approverIds = allApprovers(policy, related);
  const stepApproverIds = row.state === 'open' ? currentApprovers(policy, related) : [];
  const createdBy = stored.createdByUserId;
  const insightIds = stored.insightIds;
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
    task: {
      ...stored,
      approverIds,
      form: FORM.value(row.form),
      policy,
      state: apiState(row),
      stepApproverIds,
    },
  });
  return { taskView, expanded };
}

/** The API's state of a stored task. */
const apiState = (row: TaskRow) => (row.state === 'open' ? TASK_STATES.open : TASK_STATES.closed);

function expandFromQuery(q: URLSearchParams): ExpandKey[] {
  return parseExpandPaths([...q.getAll('expand'), ...q.getAll('expand_mask.paths'), ...q.getAll('expandMask.paths')]);
}

// --- routes ----------------------------------------------------------------

function getTask(ctx: RequestContext): { body: GetTaskResponse } {
  const keys = expandFromQuery(ctx.query);
  const row = requireTask(ctx.store, ctx.params.task_id!);
  return { body: buildView(ctx.store, row, ctx.auth!.userId, keys) };
}

/**
 * POST /api/v1/search/tasks (service-notes.md §2): newest first, keyset pages
 * on (created_at, id); the views' path fields point into the page's one
 * `expanded`. `query` matches the name or description (ignoring case) or the
 * numeric ID (with or without "#"); `assignedOrStepApproverUserId` finds open
 * tasks whose current step the user may approve and closed tasks the user
 * approved a step of.
 */
async function searchTasks(ctx: RequestContext): Promise<{ body: TaskSearchResponse }> {
  const q = validateTaskSearch(await ctx.json());
  const { store } = ctx;
  const after = q.pageToken ? decodePageToken(q.pageToken, isTaskKey, 'pageToken') : null;
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (after) where.push('(created_at < @at OR (created_at = @at AND id < @id))'), Object.assign(params, { at: after[0], id: after[1] });
  if (q.ids.length) where.push(`id IN (${q.ids.map((_, i) => `@ref${i}`).join(', ')})`), q.ids.forEach((id, i) => (params[`ref${i}`] = id));
  if (q.createdAfter !== null) where.push('created_at >= @after'), (params.after = isoAt(q.createdAfter));
  if (q.createdBefore !== null) where.push('created_at < @before'), (params.before = isoAt(q.createdBefore));
  // Filtered by state here, not after reading every row: a state the rows never have (UNSPECIFIED) matches none.
  if (q.states.length)
    where.push(
      `state IN (${q.states.map((st) => (st === TASK_STATES.open ? "'open'" : st === TASK_STATES.closed ? "'closed'" : 'NULL')).join(', ')})`,
    );
  const rows = store.db
    .prepare(`SELECT * FROM tasks ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC`)
    .iterate(params) as IterableIterator<TaskRow>;
  const needle = q.query.toLowerCase();
  const numeric = /^#?(\d+)$/.exec(q.query)?.[1];
  const matches = (row: TaskRow): boolean => {
    // The task is read (given its full shape) only for a query its numeric ID does not match.
    if (needle && numeric !== String(row.numeric_id)) {
      const t = TASK.value(row.task);
      if (!`${t.displayName}\n${t.description}`.toLowerCase().includes(needle)) return false;
    }
    if (q.approverUserId) {
      const policy = POLICY.value(row.policy);
      const mine =
        row.state === 'open'
          ? currentApprovers(policy, parseRelated(row)).includes(q.approverUserId)
          : policy.history.some((h) => h.approval?.approved?.userId === q.approverUserId);
      if (!mine) return false;
    }
    return true;
  };
  const found: TaskRow[] = [];
  // Rows are read only until one past the page matched (matching runs no other statement).
  for (const row of rows) if (matches(row) && found.push(row) > q.pageSize) break;
  const { page, nextPageToken } = pageOf(found, q.pageSize, (r) => [r.created_at, r.id]);
  const { list, expanded } = mergeExpanded(page.map((row) => buildView(store, row, ctx.auth!.userId, q.expand)));
  return { body: { list, nextPageToken, expanded } };
}

const isTaskKey = (v: unknown): v is [string, string] =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';

/** Views built each with its own `expanded`, given one `expanded` for all: an object several views share appears once. */
function mergeExpanded(built: { taskView: TaskView; expanded: ExpandedObject[] }[]): { list: TaskView[]; expanded: ExpandedObject[] } {
  const { expanded, add } = expandedCollector();
  const list = built.map(({ taskView, expanded: own }) => {
    const global = own.map(add);
    const paths = Object.fromEntries(
      TASK_PATH_FIELDS.map((f) => [f, formatExpandedPath(expandedIndices(taskView[f], own.length).map((i) => global[i]!))]),
    );
    return { ...taskView, ...paths };
  });
  return { list, expanded };
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
    const policy = POLICY.value(row.policy);
    const current = policy.current;
    if (row.state === 'closed' || !current) throw failedPrecondition(`task ${taskId} is closed`);
    if (req.policyStepId !== current.id) {
      throw failedPrecondition(
        `policy step ${req.policyStepId} is not the current step of task ${taskId} (the current step is ${current.id})`,
      );
    }
    const approval = current.approval;
    if (!approval)
      throw failedPrecondition(
        `the current step ${current.id} of task ${taskId} is a ${stepKind(current) || 'untyped'} step, not an approval`,
      );
    if (approval.approved || approval.denied || approval.skipped)
      throw failedPrecondition(`the approval step ${current.id} is already decided`);
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
      return {
        redirectUrl: issueTransaction(store, ctx.baseUrl, { taskId, stepId: current.id, userId, providerId, now }).redirectUrl,
        ticketActionId: '',
      };
    }
    if (txId) useTransaction(store, txId, { taskId, stepId: current.id, userId, now });

    // Approve: outcome on the current instance, into history, next step becomes current.
    const stored = TASK.value(row.task);
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
    if (comment) stored.commentCount += 1;
    const actionId = ksuid(now);
    store.db
      .prepare(
        `INSERT INTO task_approve_actions (id, task_id, step_id, user_id, step_up_transaction_id, comment, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(actionId, taskId, current.id, userId, txId, comment, isoAt(now));
    const res = store.db
      .prepare('UPDATE tasks SET task = ?, policy = ?, state = ?, updated_at = ? WHERE id = ? AND updated_at = ?')
      .run(TASK.text(stored), POLICY.text(policy), closed ? 'closed' : 'open', isoAt(now), taskId, row.updated_at);
    if (res.changes !== 1) throw failedPrecondition(`task ${taskId} changed while approving; read it again`);
    return { redirectUrl: '', ticketActionId: actionId };
  });

  const { taskView, expanded } = buildView(store, requireTask(store, taskId), userId, keys);
  return { body: { expanded, redirectUrl: outcome.redirectUrl, taskView, ticketActionId: outcome.ticketActionId } };
}

// --- tables ----------------------------------------------------------------

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

export const tasksModule: ServerModule = {
  name: 'tasks',
  migrate,
  seed: seedTasks,
  routes(router) {
    router.get('/api/v1/tasks/:task_id', getTask);
    router.post('/api/v1/search/tasks', searchTasks, { maxBody: 16 * 1024 });
    router.post('/api/v1/tasks/:task_id/action/approve-with-step-up', approveWithStepUp, { maxBody: 64 * 1024 });
    registerStepUpTransactionRoutes(router);
    registerStepUpPage(router);
  },
};
