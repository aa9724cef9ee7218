// Tasks and step-up approval (service-api.md §2.4, §4.4; service-notes.md §2).
// The tenant issues the step-up transactions: an approve call without a
// `stepUpTransactionId` creates one (PENDING, an opaque ID of the tenant's) and
// answers {redirectUrl} to a page on this tenant that does not name the
// transaction; completing that page makes it VERIFIED. A client finds it
// through GET /api/v1/step-up/transactions/{id} and
// POST /api/v1/search/step-up/transactions. An approve with a verified,
// matching (task, step, user), unexpired and unused transaction approves the
// step and answers {taskView, expanded, ticketActionId}; any other ID is a
// 400 failed_precondition.
import { randomBytes } from 'node:crypto';
import { failedPrecondition, invalidArgument, isObject, jsonObject, notFound, pageToken, str, timestamp, type Router } from './http.js';
import { iso, ksuid, type FakeClock } from './ids.js';

export const TX_TTL_MS = 10 * 60 * 1000;
export const STATES = [
  'STEP_UP_TRANSACTION_STATE_UNSPECIFIED',
  'STEP_UP_TRANSACTION_STATE_PENDING',
  'STEP_UP_TRANSACTION_STATE_VERIFIED',
  'STEP_UP_TRANSACTION_STATE_ERROR',
] as const;
export type TxState = (typeof STATES)[number];
const TARGET_TYPES = ['TARGET_TYPE_UNSPECIFIED', 'TARGET_TYPE_TICKET', 'TARGET_TYPE_TEST'] as const;
const SEARCH_PAGE_DEFAULT = 10;
const TASK_STATES = ['TASK_STATE_UNSPECIFIED', 'TASK_STATE_OPEN', 'TASK_STATE_CLOSED'];
const protoDefault = (v: unknown) =>
  v === null ||
  v === false ||
  v === 0 ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'string' && /(^|_)UNSPECIFIED$/.test(v));
const TASK_SEARCH_MEMBERS = [
  'refs',
  'taskStates',
  'query',
  'assignedOrStepApproverUserId',
  'createdAfter',
  'createdBefore',
  'expandMask',
  'pageSize',
  'pageToken',
];
const SEARCH_PAGE_MAX = 100;

export interface StepUpTransaction {
  id: string;
  state: TxState;
  approveTask?: { taskId: string; policyStepId: string };
  test?: Record<string, never>;
  providerId: string;
  userId: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  /** Not part of the resource: whether an approval used it, and the page that completes it. */
  used: boolean;
  pageToken: string;
}

export interface StepInstance {
  id: string;
  policyGenerationId: string;
  state: string;
  approval?: Record<string, unknown>;
  provision?: Record<string, unknown>;
}

export interface FakeTask {
  id: string;
  numericId: string;
  displayName: string;
  createdByUserId: string;
  createdAt: string;
  policyId: string;
  current: StepInstance | null;
  history: StepInstance[];
  next: Record<string, unknown>[];
}

export interface ApproveAction {
  ticketActionId: string;
  taskId: string;
  policyStepId: string;
  userId: string;
  stepUpTransactionId: string;
  comment: string;
}

/** `@type` of a user in `expanded` (the service's c1.api.user.v1.User). */
export const USER_TYPE = 'type.googleapis.com/c1.api.user.v1.User';

/** Expand-mask paths this tenant answers (sdk-ts OpenAPI TaskExpandMask: the service's names); other names are ignored. */
const EXPANDS = ['created_by_user_id', 'step_approver_ids'] as const;

export class TaskStore {
  readonly tasks: FakeTask[] = [];
  /** Users as `expanded` shows them; an ID not here is shown with its ID as its name. */
  readonly users = new Map<string, { displayName: string; email: string }>([
    ['user-grace', { displayName: 'Grace Hopper', email: 'grace@example.com' }],
  ]);
  readonly transactions: StepUpTransaction[] = [];
  readonly actions: ApproveAction[] = [];
  /** Every approve request body, in order. */
  readonly approveRequests: { taskId: string; body: Record<string, unknown> }[] = [];

  constructor(
    private readonly clock: FakeClock,
    readonly providerId: string,
  ) {}

  /** A task whose current step is an approval that requires step-up. */
  addStepUpTask(opts: { displayName?: string; approverIds?: string[] } = {}): { taskId: string; stepId: string } {
    const generation = ksuid();
    const task: FakeTask = {
      id: ksuid(),
      numericId: String(1000 + this.tasks.length),
      displayName: opts.displayName ?? 'CRM Administrator for Grace Hopper',
      createdByUserId: 'user-grace',
      createdAt: iso(this.clock.now()),
      policyId: ksuid(),
      current: {
        id: ksuid(),
        policyGenerationId: generation,
        state: 'POLICY_STEP_STATE_ACTIVE',
        approval: { approval: { requiresStepUpProviderId: this.providerId, users: { userIds: opts.approverIds ?? [] } } },
      },
      history: [],
      next: [{ provision: { provisionPolicy: { manual: {} } } }],
    };
    this.tasks.push(task);
    return { taskId: task.id, stepId: task.current!.id };
  }

  /** A transaction as some user's approve call would create it (a decoy, or a transaction for another step). */
  addTransaction(t: { taskId: string; policyStepId: string; userId: string; state?: TxState; createdAt?: number }): StepUpTransaction {
    const now = t.createdAt ?? this.clock.now();
    const tx: StepUpTransaction = {
      id: ksuid(),
      state: t.state ?? 'STEP_UP_TRANSACTION_STATE_PENDING',
      approveTask: { taskId: t.taskId, policyStepId: t.policyStepId },
      providerId: this.providerId,
      userId: t.userId,
      createdAt: iso(now),
      updatedAt: iso(now),
      expiresAt: iso(now + TX_TTL_MS),
      used: false,
      pageToken: randomBytes(24).toString('base64url'),
    };
    this.transactions.push(tx);
    return tx;
  }

  /** A closed task: its approval step was approved by `approvedBy`, nothing is left to do. */
  addClosedTask(opts: { displayName: string; approvedBy: string }): string {
    const { taskId } = this.addStepUpTask({ displayName: opts.displayName, approverIds: [opts.approvedBy] });
    const t = this.find(taskId)!;
    const step = t.current!;
    step.state = 'POLICY_STEP_STATE_DONE';
    step.approval = { ...step.approval, approved: { approvedAt: iso(this.clock.now()), userId: opts.approvedBy, stepUpTransactionId: '' } };
    t.history.push(step);
    t.current = null;
    t.next = [];
    return taskId;
  }

  /** The users who may approve the current step: its approval's `users.userIds`. */
  stepApprovers(t: FakeTask): string[] {
    const users = (t.current?.approval?.approval as { users?: { userIds?: string[] } } | undefined)?.users?.userIds;
    return t.current?.approval ? [...(users ?? [])] : [];
  }

  /** What a person completing the step-up page does: the transaction becomes VERIFIED. */
  verify(tx: StepUpTransaction): void {
    if (tx.state !== 'STEP_UP_TRANSACTION_STATE_PENDING') throw failedPrecondition('the step-up transaction is not pending');
    if (Date.parse(tx.expiresAt) <= this.clock.now()) throw failedPrecondition('the step-up transaction has expired');
    tx.state = 'STEP_UP_TRANSACTION_STATE_VERIFIED';
    tx.updatedAt = iso(this.clock.now());
  }

  /** The related objects the mask asks for (`*` or the service's names), as `expanded` and the path fields pointing into it. */
  expand(list: FakeTask[], paths: unknown): { expanded: Record<string, unknown>[]; pathsOf: (t: FakeTask) => Record<string, string> } {
    const names = new Set(
      Array.isArray(paths)
        ? paths.flatMap((p) =>
            String(p)
              .split(',')
              .map((x) => x.trim()),
          )
        : [],
    );
    const wanted = (n: (typeof EXPANDS)[number]) => names.has('*') || names.has(n);
    const expanded: Record<string, unknown>[] = [];
    const index = new Map<string, number>();
    const user = (id: string) => {
      if (!index.has(id))
        index.set(
          id,
          expanded.push({
            '@type': USER_TYPE,
            id,
            displayName: this.users.get(id)?.displayName ?? id,
            email: this.users.get(id)?.email ?? '',
          }) - 1,
        );
      return index.get(id)!;
    };
    const at = (ids: string[]) => (ids.length ? `expanded[${[...new Set(ids.map(user))].join(',')}]` : '');
    const byTask = new Map<FakeTask, Record<string, string>>();
    for (const t of list) {
      const p: Record<string, string> = {};
      if (wanted('created_by_user_id')) p.createdByUserPath = at([t.createdByUserId]);
      if (wanted('step_approver_ids')) p.stepApproversPath = at(this.stepApprovers(t));
      byTask.set(t, p);
    }
    return { expanded, pathsOf: (t) => byTask.get(t) ?? {} };
  }

  find(id: string): FakeTask | undefined {
    return this.tasks.find((t) => t.id === id);
  }

  view(t: FakeTask): Record<string, unknown> {
    return { taskView: this.taskView(t), expanded: [] };
  }

  /** The task view (sdk-ts OpenAPI c1.api.task.v1.TaskView; `state` and `stepApproverIds` of c1.api.task.v1.Task). */
  taskView(t: FakeTask): Record<string, unknown> {
    return {
      task: {
        id: t.id,
        numericId: t.numericId,
        displayName: t.displayName,
        description: '',
        createdByUserId: t.createdByUserId,
        createdAt: t.createdAt,
        commentCount: 0,
        emergencyAccess: false,
        approverIds: [],
        stepApproverIds: this.stepApprovers(t),
        state: t.current ? 'TASK_STATE_OPEN' : 'TASK_STATE_CLOSED',
        insightIds: [],
        annotations: [],
        actions: [],
        policy: {
          id: t.policyId,
          policyGenerationId: t.current?.policyGenerationId ?? '',
          current: t.current,
          history: t.history,
          next: t.next,
        },
      },
      objectPermissions: { read: true, edit: true, delete: false, extra: {} },
    };
  }
}

/** The transaction as the API shows it (without the tenant's own bookkeeping). */
export function txResource(tx: StepUpTransaction): Record<string, unknown> {
  const { used: _used, pageToken: _page, ...rest } = tx;
  return rest;
}

function stateFilter(v: unknown): TxState | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' && STATES[v]) return STATES[v];
  if (typeof v === 'string' && (STATES as readonly string[]).includes(v)) return v as TxState;
  throw invalidArgument(`state: invalid value ${JSON.stringify(v)}`);
}

function targetFilter(v: unknown): (typeof TARGET_TYPES)[number] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' && TARGET_TYPES[v]) return TARGET_TYPES[v];
  if (typeof v === 'string' && (TARGET_TYPES as readonly string[]).includes(v)) return v as (typeof TARGET_TYPES)[number];
  throw invalidArgument(`targetType: invalid value ${JSON.stringify(v)}`);
}

export function registerTasks(router: Router, store: TaskStore, clock: FakeClock, baseUrl: () => string): void {
  router.add('GET', '/api/v1/tasks/{id}', (_req, [id]) => {
    const t = store.find(id!);
    if (!t) throw notFound(`task ${id} not found`);
    return store.view(t);
  });

  router.add('POST', '/api/v1/tasks/{id}/action/approve-with-step-up', (req, [id]) => {
    const body = jsonObject(req);
    store.approveRequests.push({ taskId: id!, body });
    const t = store.find(id!);
    if (!t) throw notFound(`task ${id} not found`);
    const stepId = str(body, 'policyStepId');
    const txId = str(body, 'stepUpTransactionId');
    const comment = str(body, 'comment');
    if (body.expandMask !== undefined && body.expandMask !== null && !isObject(body.expandMask))
      throw invalidArgument('expandMask: expected an object');
    if (stepId === '') throw invalidArgument('policyStepId is required');
    if (!t.current || t.current.id !== stepId) throw failedPrecondition(`policy step ${stepId} is not the current step of task ${t.id}`);
    if (!t.current.approval) throw failedPrecondition(`policy step ${stepId} is not an approval step`);
    const userId = req.userId!;

    if (txId === '') {
      const tx = store.addTransaction({ taskId: t.id, policyStepId: stepId, userId });
      return { redirectUrl: `${baseUrl()}/step-up/complete/${tx.pageToken}` };
    }

    const tx = store.transactions.find((x) => x.id === txId);
    if (!tx) throw failedPrecondition('unknown step-up transaction');
    if (tx.approveTask?.taskId !== t.id || tx.approveTask.policyStepId !== stepId || tx.userId !== userId) {
      throw failedPrecondition('the step-up transaction belongs to another task, step or user');
    }
    if (tx.used) throw failedPrecondition('the step-up transaction was already used');
    if (Date.parse(tx.expiresAt) <= clock.now()) throw failedPrecondition('the step-up transaction has expired');
    if (tx.state !== 'STEP_UP_TRANSACTION_STATE_VERIFIED') throw failedPrecondition('the step-up transaction is not verified');

    tx.used = true;
    const now = iso(clock.now());
    const step = t.current;
    step.state = 'POLICY_STEP_STATE_DONE';
    step.approval = { ...step.approval, approved: { approvedAt: now, userId, stepUpTransactionId: tx.id } };
    t.history.push(step);
    const following = t.next.shift();
    t.current = following
      ? { id: ksuid(), policyGenerationId: step.policyGenerationId, state: 'POLICY_STEP_STATE_ACTIVE', ...following }
      : null;
    const action: ApproveAction = {
      ticketActionId: ksuid(),
      taskId: t.id,
      policyStepId: stepId,
      userId,
      stepUpTransactionId: tx.id,
      comment,
    };
    store.actions.push(action);
    return { ...store.view(t), ticketActionId: action.ticketActionId };
  });

  // The service's task search (sdk-ts OpenAPI c1.api.task.v1.TaskSearchService.Search): the filters agctl
  // sends, the page token in the body, pageSize 0 = 25 and under 10 raised to 10 as documented; any other
  // member of TaskSearchRequest is refused here (an assumption: a client must not rely on filters it did not test).
  router.add('POST', '/api/v1/search/tasks', (req) => {
    const b = jsonObject(req);
    // A member at its protobuf default (false, 0, "", [], …_UNSPECIFIED) is absent, as protobuf JSON reads it.
    for (const [k, v] of Object.entries(b))
      if (!TASK_SEARCH_MEMBERS.includes(k) && !protoDefault(v)) throw invalidArgument(`${k}: unknown or unsupported field`);
    const states = b.taskStates ?? [];
    if (!Array.isArray(states) || states.some((x) => !TASK_STATES.includes(x)))
      throw invalidArgument(`taskStates: expected an array of ${TASK_STATES.join(', ')}`);
    const query = str(b, 'query').trim().toLowerCase();
    const approver = str(b, 'assignedOrStepApproverUserId');
    if (
      b.pageSize !== undefined &&
      b.pageSize !== null &&
      !(Number.isInteger(b.pageSize) && (b.pageSize as number) >= 0 && (b.pageSize as number) <= 100)
    ) {
      throw invalidArgument('pageSize: expected an integer from 0 to 100');
    }
    const asked = (b.pageSize as number | undefined) ?? 0;
    const size = asked === 0 ? 25 : Math.max(asked, 10);
    const token = str(b, 'pageToken');
    const offset = token ? pageToken.decode(token, (v): v is number => Number.isInteger(v) && (v as number) >= 0) : 0;
    const wanted = states.filter((x) => x !== 'TASK_STATE_UNSPECIFIED');
    const refs = b.refs ?? [];
    if (!Array.isArray(refs) || !refs.every(isObject)) throw invalidArgument('refs: expected an array of {id}');
    const ids = refs.map((r) => str(r, 'id', 'refs.'));
    const all = store.tasks.filter((t) => {
      if (ids.length && !ids.includes(t.id)) return false;
      const state = t.current ? 'TASK_STATE_OPEN' : 'TASK_STATE_CLOSED';
      if (wanted.length && !wanted.includes(state)) return false;
      if (query && !(t.displayName.toLowerCase().includes(query) || t.numericId === query.replace(/^#/, ''))) return false;
      // "Currently assigned to this user, or closed and previously approved by this user."
      if (
        approver &&
        !(
          store.stepApprovers(t).includes(approver) ||
          (!t.current && t.history.some((h) => (h.approval?.approved as { userId?: string } | undefined)?.userId === approver))
        )
      )
        return false;
      return true;
    });
    const page = all.slice(offset, offset + size);
    const { expanded, pathsOf } = store.expand(page, isObject(b.expandMask) ? b.expandMask.paths : undefined);
    return {
      list: page.map((t) => ({ ...store.taskView(t), ...pathsOf(t) })),
      nextPageToken: offset + size < all.length ? pageToken.encode(offset + size) : '',
      expanded,
    };
  });

  router.add('GET', '/api/v1/step-up/transactions/{id}', (_req, [id]) => {
    const tx = store.transactions.find((x) => x.id === id);
    if (!tx) throw notFound(`step-up transaction ${id} not found`);
    return { transaction: txResource(tx) };
  });

  router.add('POST', '/api/v1/search/step-up/transactions', (req) => {
    const b = jsonObject(req);
    const taskId = str(b, 'taskId');
    const userId = str(b, 'userId');
    const providerId = str(b, 'providerId');
    const state = stateFilter(b.state);
    const target = targetFilter(b.targetType);
    const after = timestamp(b, 'createdAfter');
    const before = timestamp(b, 'createdBefore');
    if (b.pageSize !== undefined && b.pageSize !== null && !(Number.isInteger(b.pageSize) && (b.pageSize as number) >= 0))
      throw invalidArgument('pageSize: expected a non-negative integer');
    const size = Math.min((b.pageSize as number | undefined) || SEARCH_PAGE_DEFAULT, SEARCH_PAGE_MAX);
    const token = str(b, 'pageToken');
    const offset = token ? pageToken.decode(token, (v): v is number => Number.isInteger(v) && (v as number) >= 0) : 0;
    const all = store.transactions.filter((tx) => {
      const created = Date.parse(tx.createdAt);
      return (
        (!taskId || tx.approveTask?.taskId === taskId) &&
        (!userId || tx.userId === userId) &&
        (!providerId || tx.providerId === providerId) &&
        (!state || state === 'STEP_UP_TRANSACTION_STATE_UNSPECIFIED' || tx.state === state) &&
        (!target || target === 'TARGET_TYPE_UNSPECIFIED' || (target === 'TARGET_TYPE_TICKET' ? !!tx.approveTask : !!tx.test)) &&
        (after === undefined || created > after) &&
        (before === undefined || created < before)
      );
    });
    const page = all.slice(offset, offset + size);
    return { list: page.map(txResource), nextPageToken: offset + size < all.length ? pageToken.encode(offset + size) : '' };
  });
}
