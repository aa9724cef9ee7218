// The sparse variant of the tenant's answers (`startFakeTenant({ sparse: true })`):
// answers the vendor OpenAPI allows but a careless client mishandles.
// - Every member holding its type's default ('', false, 0, [], {}) is left
//   out, as proto3 JSON does.
// - Members the contract marks nullable are null where a client is tempted to
//   rely on them: a task's `id` in the task's Get, `taskView` and `expanded`
//   of a step-up redirect, timestamps, a rule's `settings`, an MCP server's
//   scopes.
// - Enum values the client cannot know (the service adds values; sdk-ts marks
//   its enums `x-speakeasy-unknown-values: allow`).
// - Every list's last page carries a `nextPageToken`; the page it leads to is
//   empty (`{}`: no list, no token).
// Each answer is still validated against the contract (server.ts), so a
// sparse answer the contract forbids fails the tests as a bug of the fake.
import { isObject } from './http.js';

/** Unknown enum values the sparse answers carry. */
export const UNKNOWN = {
  stepState: 'POLICY_STEP_STATE_PAUSED',
  taskState: 'TASK_STATE_ARCHIVED',
  authMethod: 'MCP_SERVER_AUTH_METHOD_PASSKEY',
  transportType: 'MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET',
} as const;

/** proto3 JSON: members with their type's default are not written. */
export function omitDefaults(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(omitDefaults);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = omitDefaults(x);
    if (
      y === '' ||
      y === false ||
      y === 0 ||
      y === undefined ||
      (Array.isArray(y) && y.length === 0) ||
      (isObject(y) && Object.keys(y).length === 0 && k !== 'test')
    )
      continue;
    out[k] = y;
  }
  return out;
}

type Answer = Record<string, any>;

const taskView = (v: Answer | undefined, opts: { nullId?: boolean } = {}) => {
  const t = v?.task;
  if (!isObject(t)) return;
  if (opts.nullId) t.id = null;
  t.description = null;
  t.createdAt = null;
  const current = (t.policy as Answer | undefined)?.current;
  if (isObject(current)) current.state = UNKNOWN.stepState;
  else if (t.state === 'TASK_STATE_CLOSED') t.state = UNKNOWN.taskState;
};

const mcpView = (s: Answer | undefined, i = 0) => {
  if (!isObject(s)) return;
  s.createdAt = null;
  s.lastCalledAt = null;
  s.oauth2Scopes = null;
  if (i % 2 === 0) s.authMethod = UNKNOWN.authMethod;
  if (s.transportType) s.transportType = UNKNOWN.transportType;
};

const rule = (r: Answer | undefined, i = 0) => {
  if (!isObject(r)) return;
  r.updatedAt = null;
  if (i % 2 === 0) r.settings = null;
};

/** What the sparse variant does to each operation's answer, after the defaults are left out. */
const TWEAKS: Record<string, (a: Answer, request: unknown) => void> = {
  'c1.api.task.v1.TaskService.Get': (a) => {
    taskView(a.taskView, { nullId: true });
    a.expanded ??= null;
  },
  // A search for given tasks (refs) answers their views without IDs: the client must still find the task.
  // Any other search: closed tasks without IDs (a list shows them as they are).
  'c1.api.task.v1.TaskSearchService.Search': (a, req) => {
    const byRef = isObject(req) && Array.isArray(req.refs) && req.refs.length > 0;
    for (const v of a.list ?? []) taskView(v, { nullId: byRef || v.task?.state === 'TASK_STATE_CLOSED' });
    a.expanded ??= null;
  },
  'c1.api.task.v1.TaskActionsService.ApproveWithStepUp': (a) => {
    if (a.redirectUrl) Object.assign(a, { taskView: null, expanded: null, ticketActionId: null });
    else taskView(a.taskView, { nullId: true });
  },
  'c1.api.stepup.v1.StepUpTransactionService.Get': (a) => {
    if (isObject(a.transaction)) Object.assign(a.transaction, { claims: null, errorMessage: null, updatedAt: null });
  },
  'c1.api.stepup.v1.StepUpTransactionService.Search': (a) => {
    for (const tx of a.list ?? []) Object.assign(tx, { claims: null, errorMessage: null, updatedAt: null });
  },
  'c1.api.app.v1.AppEntitlementRoutingRuleService.ListAppEntitlementRoutingRules': (a) => (a.list ?? []).forEach(rule),
  'c1.api.app.v1.AppEntitlementRoutingRuleService.GetAppEntitlementRoutingRule': (a) => rule(a.routingRule),
  'c1.api.ai_governance.v1.MCPServerService.List': (a) => (a.list ?? []).forEach(mcpView),
  'c1.api.ai_governance.v1.MCPServerService.Get': (a) => mcpView(a.mcpServer),
};

/** The sparse form of an answer to `operationId` (`request`: the request's JSON body). */
export function sparseAnswer(operationId: string, answer: unknown, request: unknown): unknown {
  const a = omitDefaults(answer);
  if (isObject(a)) TWEAKS[operationId]?.(a, request);
  return a;
}

/** Page tokens that lead past the last page (their page is empty). */
export class EndTokens {
  readonly #tokens = new Set<string>();

  /** The answer with a token on its last page (one whose `nextPageToken` is empty or left out). */
  mark(answer: unknown): unknown {
    if (!isObject(answer) || !('list' in answer) || answer.nextPageToken) return answer;
    const token = `end-${this.#tokens.size + 1}-${Math.random().toString(36).slice(2, 10)}`;
    this.#tokens.add(token);
    return { ...answer, nextPageToken: token };
  }

  /** Whether a request asks for the page past a last page. */
  past(query: URLSearchParams, body: unknown): boolean {
    const token = query.get('page_token') ?? (isObject(body) && typeof body.pageToken === 'string' ? body.pageToken : '');
    return this.#tokens.has(token);
  }
}
