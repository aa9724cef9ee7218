// Tasks and approval with step-up authentication (service-api.md §2.4, §4.4).
//
// Shared by the embedded server and the CLI:
//   - the wire types of the task view and of approve-with-step-up;
//   - request validation (pure; throws ApiError InvalidArgument);
//   - the expand mask (which related objects to return in `expanded`);
//   - the JSONPath helpers for the task view's `...Path` fields, which point
//     into the `expanded` array (`expanded[0]`, `expanded[1,2]`, ...);
//   - `normalizeTaskView`, which gives any task view the full shape of §2.4
//     (every member present, enum values as strings, unknown values kept).
import { z } from 'zod';
import { isJsonObject } from '../lib/json.js';
import { invalidArgument } from './errors.js';
import { itemProblem, normalize, parseRequest, shape, shapeOf, type Infer, type ListPage } from './shape.js';

// ---------------------------------------------------------------------------
// Path fields and the expand mask

/** The task view's path fields, in the order of §2.4. */
export const TASK_PATH_FIELDS = [
  'accessReviewPath',
  'appPath',
  'appUserLastUsagePath',
  'appUserPath',
  'approversPath',
  'createdByUserPath',
  'entitlementsPath',
  'identityUserPath',
  'insightsPath',
  'principalResourcePath',
  'resourceBindingsPath',
  'roleResourcePath',
  'scopeResourcePath',
  'stepApproversPath',
] as const;
export type TaskPathField = (typeof TASK_PATH_FIELDS)[number];

/** Expand-mask names: a path field without its `Path` suffix (`app`, `createdByUser`, ...). */
type StripPath<T> = T extends `${infer K}Path` ? K : never;
export type ExpandKey = StripPath<TaskPathField>;
export const EXPAND_KEYS: readonly ExpandKey[] = TASK_PATH_FIELDS.map((f) => f.slice(0, -'Path'.length) as ExpandKey);
export const pathFieldFor = (key: ExpandKey): TaskPathField => `${key}Path` as TaskPathField;

/** Value of `expandMask.paths` that selects every related object. */
export const EXPAND_ALL = '*';

/**
 * The service's names of the related objects (sdk-ts OpenAPI
 * `c1.api.task.v1.TaskExpandMask.paths`: "*", "access_review_id", "user_id",
 * "created_by_user_id", "app_id", "app_user_id", "app_entitlement_ids",
 * "step_approver_ids", "identity_user_id", "insight_ids"). The other keys have
 * no name there: they are sent as agctl names them (the embedded server knows them).
 */
export const SERVICE_EXPAND_NAMES: Partial<Record<ExpandKey, string>> = {
  accessReview: 'access_review_id',
  app: 'app_id',
  appUser: 'app_user_id',
  createdByUser: 'created_by_user_id',
  entitlements: 'app_entitlement_ids',
  identityUser: 'identity_user_id',
  insights: 'insight_ids',
  stepApprovers: 'step_approver_ids',
};

const KEY_BY_LOOSE_NAME = new Map<string, ExpandKey>([
  ...EXPAND_KEYS.map((k) => [loose(k), k] as const),
  ...Object.entries(SERVICE_EXPAND_NAMES).map(([k, name]) => [loose(name), k as ExpandKey] as const),
]);
function loose(name: string): string {
  return name.replace(/[_\-\s]/g, '').toLowerCase();
}

/**
 * Parses expand-mask paths into the selected keys, in canonical order.
 * Each entry may itself be a comma-separated list; `*` selects all. Names are
 * the path-field names without `Path` (`app`, `createdByUser`); snake_case
 * (`created_by_user`) and a trailing `Path` are accepted too.
 * Throws ApiError InvalidArgument for an unknown name.
 */
export function parseExpandPaths(paths: readonly string[] | null | undefined): ExpandKey[] {
  const selected = new Set<ExpandKey>();
  for (const entry of paths ?? []) {
    for (const raw of String(entry).split(',')) {
      const name = raw.trim();
      if (!name) continue;
      if (name === EXPAND_ALL) {
        for (const k of EXPAND_KEYS) selected.add(k);
        continue;
      }
      let l = loose(name);
      if (l.endsWith('path') && KEY_BY_LOOSE_NAME.has(l.slice(0, -4))) l = l.slice(0, -4);
      const key = KEY_BY_LOOSE_NAME.get(l);
      if (!key) {
        throw invalidArgument(
          `unknown expand path ${JSON.stringify(name.slice(0, 100))}; use ${EXPAND_ALL} or one of: ${EXPAND_KEYS.join(', ')}`,
        );
      }
      selected.add(key);
    }
  }
  return EXPAND_KEYS.filter((k) => selected.has(k));
}

/** Expand-mask paths as sent to a server: `*`, or each key under the service's name for it (agctl's own name when the service has none). */
export function wireExpandPaths(paths: readonly string[]): string[] {
  if (paths.some((p) => p.split(',').some((x) => x.trim() === EXPAND_ALL))) return [EXPAND_ALL];
  return parseExpandPaths(paths).map((k) => SERVICE_EXPAND_NAMES[k] ?? k);
}

/** A related object as returned in `expanded`: it names its type in `@type`. */
export interface ExpandedObject {
  '@type': string;
  id?: string;
  [key: string]: unknown;
}

/** `@type` values of the related objects the embedded server returns. */
export const EXPANDED_TYPES = {
  app: 'type.googleapis.com/governance.app.v1.App',
  appUser: 'type.googleapis.com/governance.app.v1.AppUser',
  entitlement: 'type.googleapis.com/governance.app.v1.AppEntitlement',
  user: 'type.googleapis.com/governance.user.v1.User',
  insight: 'type.googleapis.com/governance.insight.v1.Insight',
} as const;

export type PathFields = Record<TaskPathField, string>;

export const emptyPathFields = (): PathFields => Object.fromEntries(TASK_PATH_FIELDS.map((f) => [f, ''])) as PathFields;

/** Formats the JSONPath of a set of `expanded` indices: '' for none, `expanded[3]`, `expanded[1,2]`. */
export function formatExpandedPath(indices: readonly number[]): string {
  return indices.length ? `expanded[${indices.join(',')}]` : '';
}

/**
 * Builds `expanded` and the path fields for the selected keys. `lookup` gives
 * the related objects of one key. An object reached through several keys
 * (same `@type` and `id`) appears once and the paths share its index.
 */
export function assembleExpanded(
  keys: readonly ExpandKey[],
  lookup: (key: ExpandKey) => readonly ExpandedObject[],
): { expanded: ExpandedObject[]; paths: PathFields } {
  const { expanded, add } = expandedCollector();
  const paths = emptyPathFields();
  for (const key of keys) {
    const indices: number[] = [];
    for (const obj of lookup(key)) {
      const i = add(obj);
      if (!indices.includes(i)) indices.push(i);
    }
    paths[pathFieldFor(key)] = formatExpandedPath(indices);
  }
  return { expanded, paths };
}

/** An `expanded` array being built: `add` returns an object's index, the same for an object (same `@type` and `id`) added again. */
export function expandedCollector(): { expanded: ExpandedObject[]; add(obj: ExpandedObject): number } {
  const expanded: ExpandedObject[] = [];
  const indexOf = new Map<string, number>();
  return {
    expanded,
    add(obj) {
      const identity = typeof obj.id === 'string' && obj.id ? `${obj['@type']}\u0000${obj.id}` : undefined;
      let i = identity !== undefined ? indexOf.get(identity) : undefined;
      if (i === undefined) {
        i = expanded.push(obj) - 1;
        if (identity !== undefined) indexOf.set(identity, i);
      }
      return i;
    },
  };
}

/** A path field that cannot be read or points outside `expanded`. */
export class PathResolutionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathResolutionError';
  }
}

const PATH_RE = /^\s*(?:\$\s*(?:\.\s*expanded|\[\s*(?:'expanded'|"expanded")\s*\])|expanded)\s*\[([^\]]*)\]\s*$/;

/**
 * Parses a JSONPath into `expanded` and returns the indices it selects, for an
 * array of `length` elements. Accepted: `expanded[i]`, `$.expanded[i]`,
 * `$['expanded'][i]`, unions `[i,j]`, slices `[a:b]` / `[a:b:s]`, negative
 * indices and `[*]`. An empty path selects nothing.
 */
export function expandedIndices(path: string, length: number): number[] {
  if (path.trim() === '') return [];
  const m = PATH_RE.exec(path);
  if (!m) throw new PathResolutionError(`unsupported path ${JSON.stringify(path.slice(0, 200))}: expected expanded[<index>]`);
  const inner = m[1]!.trim();
  if (inner === '*') return Array.from({ length }, (_, i) => i);
  const out: number[] = [];
  for (const part of inner.split(',')) {
    const p = part.trim();
    if (/^-?\d+$/.test(p)) {
      const n = Number(p);
      const i = n < 0 ? length + n : n;
      if (!Number.isSafeInteger(i) || i < 0 || i >= length) {
        throw new PathResolutionError(`path ${JSON.stringify(path)} points outside expanded (${length} objects)`);
      }
      out.push(i);
      continue;
    }
    const s = /^(-?\d*)\s*:\s*(-?\d*)(?:\s*:\s*(\d*))?$/.exec(p);
    if (!s)
      throw new PathResolutionError(`unsupported path ${JSON.stringify(path.slice(0, 200))}: bad index ${JSON.stringify(p.slice(0, 50))}`);
    const clamp = (v: string, dflt: number) => {
      if (v === '') return dflt;
      const n = Number(v);
      return Math.min(Math.max(n < 0 ? length + n : n, 0), length);
    };
    const step = s[3] ? Number(s[3]) : 1;
    if (step === 0) throw new PathResolutionError(`path ${JSON.stringify(path)} has a slice step of 0`);
    for (let i = clamp(s[1]!, 0); i < clamp(s[2]!, length); i += step) out.push(i);
  }
  return out;
}

/** Resolves one path field into the objects of `expanded` it points to ([] for an empty path). */
export function resolveExpandedPath<T = unknown>(path: string, expanded: readonly T[]): T[] {
  return expandedIndices(path, expanded.length).map((i) => expanded[i]!);
}

/** Resolves every non-empty path field of a task view. */
export function resolveTaskViewPaths<T = unknown>(view: Partial<PathFields>, expanded: readonly T[]): Partial<Record<TaskPathField, T[]>> {
  const out: Partial<Record<TaskPathField, T[]>> = {};
  for (const f of TASK_PATH_FIELDS) {
    const p = view[f];
    if (typeof p === 'string' && p.trim() !== '') out[f] = resolveExpandedPath(p, expanded);
  }
  return out;
}

// ---------------------------------------------------------------------------
// The task view (§2.4) as schemas that read stored data or a tenant's answer
// tolerantly and give it the full shape: every member present with its
// default (proto3 JSON leaves empty members out), enum values as strings
// (unknown names kept, 0 read as UNSPECIFIED). One-of members (the kind of a
// step, the outcome of an instance, the typed sub-object of a form field)
// appear only when set.

/** Enum values travel as strings; unknown names pass through unchanged. */
export function enumValue(v: unknown, unspecified: string): string {
  if (typeof v === 'string' && v) return v;
  if (v === 0 || v === undefined || v === null || v === '') return unspecified;
  return String(v);
}

const str = z.transform((v): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v)));
const bool = z.transform((v) => v === true);
const int = z.transform((v): number => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : 0;
});
const timestamp = z.transform((v): string | null => (typeof v === 'string' && v ? v : null));
const strings = z.transform((v): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []));
const anyObject = z.transform((v): Record<string, unknown> => (isJsonObject(v) ? v : {}));
const objectOrNull = z.transform((v): Record<string, unknown> | null => (isJsonObject(v) ? v : null));
const enumOf = (unspecified: string) => z.transform((v) => enumValue(v, unspecified));
/** An object member: anything but an object reads as an empty one. */
const member = <T extends z.ZodType>(s: T) => z.preprocess((v) => (isJsonObject(v) ? v : {}), s);
/** A one-of member: present only when it is an object. */
const oneOf = <T extends z.ZodType>(s: T) => z.preprocess((v) => (isJsonObject(v) ? v : undefined), s.optional());
/** A list of objects: other entries are left out. */
const listOf = <T extends z.ZodType>(s: T) => z.preprocess((v) => (Array.isArray(v) ? v.filter(isJsonObject) : []), z.array(s));
/** A one-of member kept as sent. */
const opaque = oneOf(z.record(z.string(), z.unknown()));

const ExternalRefSchema = z.object({ externalRefSource: enumOf('EXTERNAL_REF_SOURCE_UNSPECIFIED'), name: str, url: str });
const AnnotationSchema = z.looseObject({ '@type': str });

export const FORM_FIELD_KINDS = [
  'boolField',
  'int64Field',
  'stringField',
  'stringMapField',
  'stringSliceField',
  'fileField',
  'oauth2Field',
] as const;
export type FormFieldKind = (typeof FORM_FIELD_KINDS)[number];

const FormFieldSchema = z.object({
  name: str,
  displayName: str,
  description: str,
  readOnly: bool,
  required: bool,
  adminConfig: member(z.object({ defaultValueCel: str, showToUser: bool })),
  sharedConfig: member(z.object({ defaultValueCel: str, inputTransformationCel: str, lockDefaultValues: bool })),
  userConfig: member(z.object({ inputTransformationCel: str })),
  /** Exactly one typed sub-object (defaults, placeholders, validation `rules`). */
  ...(Object.fromEntries(FORM_FIELD_KINDS.map((k) => [k, opaque])) as Record<FormFieldKind, typeof opaque>),
});

const FormDefinitionSchema = z.object({
  id: str,
  displayName: str,
  description: str,
  fieldGroups: listOf(z.object({ default: bool, displayName: str, fields: strings, helpText: str, name: str })),
  fieldRelationships: listOf(
    z.object({
      fieldNames: strings,
      atLeastOne: opaque,
      dependentOn: oneOf(z.object({ dependencyFieldNames: strings })),
      mutuallyExclusive: opaque,
      requiredTogether: opaque,
    }),
  ),
  fields: listOf(FormFieldSchema),
});
/** A form, or null when there is none. */
const form = z.preprocess((v) => (isJsonObject(v) ? v : null), FormDefinitionSchema.nullable());

export const APPROVAL_ASSIGNEE_KINDS = [
  'agent',
  'appOwners',
  'entitlementOwners',
  'expression',
  'group',
  'manager',
  'resourceOwners',
  'self',
  'users',
  'webhook',
] as const;

const ApprovalDefinitionSchema = z.object({
  allowDelegation: bool,
  allowReassignment: bool,
  requireApprovalReason: bool,
  requireDenialReason: bool,
  requireReassignmentReason: bool,
  allowedReassignees: strings,
  /** Set when approving needs a step-up authentication with this provider. */
  requiresStepUpProviderId: str,
  escalationEnabled: bool,
  escalation: objectOrNull,
  agent: opaque,
  appOwners: opaque,
  entitlementOwners: opaque,
  expression: opaque,
  group: opaque,
  manager: opaque,
  resourceOwners: opaque,
  self: opaque,
  users: oneOf(z.looseObject({ userIds: strings, allowSelfApproval: bool })) as z.ZodType<
    { userIds: string[]; allowSelfApproval?: boolean; [key: string]: unknown } | undefined
  >,
  webhook: opaque,
});
export type ApprovalDefinition = z.infer<typeof ApprovalDefinitionSchema>;

const ApprovalInstanceSchema = z.object({
  approval: member(ApprovalDefinitionSchema),
  state: enumOf('APPROVAL_INSTANCE_STATE_UNSPECIFIED'),
  assignedAt: timestamp,
  approved: oneOf(
    z.object({
      approvedAt: str,
      entitlements: listOf(z.object({ appId: str, appEntitlementId: str })),
      stepUpTransactionId: str,
      userId: str,
    }),
  ),
  denied: opaque,
  reassigned: opaque,
  reassignedByError: opaque,
  restarted: opaque,
  skipped: opaque,
  escalationInstance: opaque,
});

/** Kind-specific objects of non-approval steps: kept as stored, with their `state` filled in. */
const stepObject = (unspecified: string) => oneOf(z.looseObject({ state: enumOf(unspecified) }));

export const POLICY_STEP_KINDS = ['accept', 'reject', 'action', 'approval', 'form', 'provision', 'wait'] as const;
export type PolicyStepKind = (typeof POLICY_STEP_KINDS)[number];

const accept = oneOf(z.object({ acceptMessage: str }));
const reject = oneOf(z.object({ rejectMessage: str }));

const PolicyStepInstanceSchema = z.object({
  id: str,
  state: enumOf('POLICY_STEP_STATE_UNSPECIFIED'),
  accept,
  reject,
  action: stepObject('ACTION_INSTANCE_STATE_UNSPECIFIED'),
  approval: oneOf(ApprovalInstanceSchema),
  // Typed as the other step objects: stored forms are data, read through `form` only here.
  form: oneOf(z.looseObject({ state: enumOf('FORM_INSTANCE_STATE_UNSPECIFIED'), form, data: anyObject })) as unknown as ReturnType<
    typeof stepObject
  >,
  provision: stepObject('PROVISION_INSTANCE_STATE_UNSPECIFIED'),
  wait: stepObject('WAIT_INSTANCE_STATE_UNSPECIFIED'),
});
export type PolicyStepInstance = z.infer<typeof PolicyStepInstanceSchema>;

const PolicyStepSchema = z.object({
  accept,
  reject,
  action: opaque,
  approval: oneOf(ApprovalDefinitionSchema),
  form: opaque,
  provision: opaque,
  wait: opaque,
});
export type PolicyStep = z.infer<typeof PolicyStepSchema>;

const TaskPolicySchema = z.object({
  id: str,
  policyGenerationId: str,
  current: z.preprocess((v) => (isJsonObject(v) ? v : null), PolicyStepInstanceSchema.nullable()),
  history: listOf(PolicyStepInstanceSchema),
  next: listOf(PolicyStepSchema),
});
export type TaskPolicy = z.infer<typeof TaskPolicySchema>;

const TaskSchema = z.object({
  id: str,
  numericId: str,
  displayName: str,
  description: str,
  createdByUserId: str,
  analysisId: str,
  createdAt: timestamp,
  deletedAt: timestamp,
  commentCount: int,
  emergencyAccess: bool,
  approverIds: strings,
  insightIds: strings,
  annotations: listOf(AnnotationSchema),
  data: anyObject,
  actions: z.transform((v) => (Array.isArray(v) ? v.map((a) => enumValue(a, 'TASK_ACTION_TYPE_UNSPECIFIED')) : [])),
  origin: enumOf('TASK_ORIGIN_UNSPECIFIED'),
  externalRefs: listOf(ExternalRefSchema),
  form,
  policy: member(TaskPolicySchema),
  // Not in service-api.md §2.4; in the service's Task (sdk-ts OpenAPI `c1.api.task.v1.Task`, read-only):
  /** TASK_STATE_OPEN or TASK_STATE_CLOSED. */
  state: enumOf('TASK_STATE_UNSPECIFIED'),
  /** "IDs of the users allowed to review this step": the approvers of the current step. */
  stepApproverIds: strings,
});
export type Task = z.infer<typeof TaskSchema>;

const TaskViewSchema = member(
  z.object({
    ...(Object.fromEntries(TASK_PATH_FIELDS.map((f) => [f, str])) as Record<TaskPathField, typeof str>),
    objectPermissions: member(z.object({ delete: bool, edit: bool, read: bool, extra: anyObject })),
    task: member(TaskSchema),
  }),
);
export type TaskView = z.infer<typeof TaskViewSchema>;

/** Gives a task view (stored, or received from a tenant) the full shape of §2.4. */
export const normalizeTaskView = (raw: unknown): TaskView => TaskViewSchema.parse(raw);
export const normalizePolicy = (raw: unknown): TaskPolicy => member(TaskPolicySchema).parse(raw);
/** Gives a task (as the embedded server stores it) the full shape of §2.4. */
export const normalizeTask = (raw: unknown): Task => member(TaskSchema).parse(raw);

/** The kind of a step instance or definition (`approval`, `provision`, ...), or '' when none is set. */
export function stepKind(step: PolicyStepInstance | PolicyStep | null | undefined): PolicyStepKind | '' {
  if (!step) return '';
  for (const k of POLICY_STEP_KINDS) if ((step as Record<string, unknown>)[k] !== undefined) return k;
  return '';
}

// ---------------------------------------------------------------------------
// Requests and responses

/**
 * Response of approve-with-step-up (service-notes.md §2). `ticketActionId` is
 * the ID of the approve action the request created; '' when nothing was
 * approved (redirect). `taskActionId` is read only from servers that predate
 * the service's name for it.
 */
export interface ApproveWithStepUpResponse {
  expanded: ExpandedObject[];
  redirectUrl: string;
  /** Left out by the service on a redirect (proto3 JSON omits unset members). */
  taskView?: TaskView;
  ticketActionId: string;
  taskActionId?: string;
}

// ---------------------------------------------------------------------------
// Step-up transactions (service-notes.md §2: c1.api.stepup.v1.*), issued by the server.

export const STEP_UP_STATES = {
  unspecified: 'STEP_UP_TRANSACTION_STATE_UNSPECIFIED',
  pending: 'STEP_UP_TRANSACTION_STATE_PENDING',
  verified: 'STEP_UP_TRANSACTION_STATE_VERIFIED',
  error: 'STEP_UP_TRANSACTION_STATE_ERROR',
} as const;

export const STEP_UP_TARGET_TYPES = ['TARGET_TYPE_UNSPECIFIED', 'TARGET_TYPE_TICKET', 'TARGET_TYPE_TEST'] as const;
export type StepUpTargetType = (typeof STEP_UP_TARGET_TYPES)[number];

/**
 * A step-up transaction (the vendor's `c1.api.stepup.v1.StepUpTransaction`):
 * the type, the client's check and `normalizeStepUpTransaction` come from
 * this table (src/api/shape.ts); the embedded server's view is of its type.
 */
const STEP_UP_TRANSACTION = shape({
  id: { kind: 'string', required: true },
  state: { kind: 'string', default: STEP_UP_STATES.unspecified },
  /** Set for a transaction that approves a task step (the other target is `test`). */
  approveTask: { kind: 'object', optional: true, of: { taskId: 'string', policyStepId: 'string' } },
  test: { kind: 'object', optional: true, of: {} },
  providerId: 'string',
  userId: 'string',
  claims: { kind: 'object', nullable: true },
  errorMessage: 'string',
  createdAt: { kind: 'string', nullable: true },
  updatedAt: { kind: 'string', nullable: true },
  expiresAt: { kind: 'string', nullable: true },
});
export type StepUpTransaction = Infer<typeof STEP_UP_TRANSACTION>;

/** What is wrong with a step-up transaction received from a server, if anything. */
export const stepUpTransactionProblem = (t: unknown): string | undefined => itemProblem(STEP_UP_TRANSACTION, t, 'a step-up transaction');

/** Gives a step-up transaction received from a server the full shape (proto3 JSON leaves out empty members). */
export const normalizeStepUpTransaction = (raw: unknown): StepUpTransaction => normalize(STEP_UP_TRANSACTION, raw);

/** POST /api/v1/search/step-up/transactions: every member optional. */
const STEP_UP_SEARCH_REQUEST = shape({
  taskId: { kind: 'string', optional: true },
  state: {
    kind: 'string',
    optional: true,
    values: Object.values(STEP_UP_STATES) as string[],
    error: `state must be one of ${Object.values(STEP_UP_STATES).join(', ')}`,
  },
  userId: { kind: 'string', optional: true },
  providerId: { kind: 'string', optional: true },
  targetType: {
    kind: 'string',
    optional: true,
    values: STEP_UP_TARGET_TYPES,
    error: `targetType must be one of ${STEP_UP_TARGET_TYPES.join(', ')}`,
  },
  createdAfter: { kind: 'string', optional: true },
  createdBefore: { kind: 'string', optional: true },
  pageSize: { kind: 'number', optional: true, error: 'pageSize must be a non-negative integer' },
  pageToken: { kind: 'string', optional: true },
});
export type SearchStepUpTransactionsRequest = Infer<typeof STEP_UP_SEARCH_REQUEST>;

export type SearchStepUpTransactionsResponse = ListPage<StepUpTransaction>;

export interface GetStepUpTransactionResponse {
  transaction: StepUpTransaction;
}

/** GET /api/v1/auth/introspect (service route; cone's `whoami` reads `userId` from it). */
export interface IntrospectResponse {
  principleId: string;
  userId: string;
  roles: string[];
  permissions: string[];
  features: string[];
}

export interface GetTaskResponse {
  taskView: TaskView;
  expanded: ExpandedObject[];
}

// What the client checks of the task answers (their members as above; the
// rest of a view is read tolerantly by normalizeTaskView). Tables of members
// (src/api/shape.ts) typed against the types above: a member renamed or
// retyped there fails the typecheck here.

/** A task view of a search page: its `task`, when there is one, an object whose `id`, when there is one, is a string (the contract lets either be null or left out). */
export const TASK_VIEW_CHECKED = shapeOf<TaskView>()({ task: { kind: 'object', of: { id: 'string' } } });

/** A task's answer: `taskView` with its `task` must be there; `expanded` may be left out. */
export const TASK_ANSWER_CHECKED = shapeOf<GetTaskResponse>()({
  taskView: { kind: 'object', required: true, of: { task: { kind: 'object', required: true } } },
  expanded: 'array',
});

/** The IDs of an approve-with-step-up answer (its task view is checked as TASK_ANSWER_CHECKED, unless it redirects). */
export const APPROVE_ANSWER_CHECKED = shapeOf<ApproveWithStepUpResponse>()({
  redirectUrl: 'string',
  ticketActionId: 'string',
  taskActionId: 'string',
});

// ---------------------------------------------------------------------------
// Task search (service-notes.md §2: `POST /api/v1/search/tasks`, sdk-ts OpenAPI
// `c1.api.task.v1.TaskSearchRequest`/`TaskSearchResponse`).

export const TASK_STATES = { unspecified: 'TASK_STATE_UNSPECIFIED', open: 'TASK_STATE_OPEN', closed: 'TASK_STATE_CLOSED' } as const;

/** The members of the search request agctl sends (the service has many more filters). */
export interface TaskSearchRequest {
  /** The tasks with these IDs (sdk-ts OpenAPI `c1.api.task.v1.TaskRef`). */
  refs?: { id: string }[];
  taskStates?: string[];
  query?: string;
  /** "Tasks currently assigned to this user, or that are closed and were previously approved by this user." */
  assignedOrStepApproverUserId?: string;
  createdAfter?: string;
  createdBefore?: string;
  expandMask?: { paths: string[] };
  /** 0 to 100: 0 is the default (25), under 10 is raised to 10. */
  pageSize?: number;
  pageToken?: string;
}

/** The list holds task views; their path fields point into the one `expanded` of the page. */
export interface TaskSearchResponse {
  list: TaskView[];
  nextPageToken: string;
  expanded: ExpandedObject[];
}

const TASK_SEARCH_PAGE_SIZE_DEFAULT = 25;
const TASK_SEARCH_PAGE_SIZE_MIN = 10;
const TASK_SEARCH_PAGE_SIZE_MAX = 100;

/** Members of TaskSearchRequest the embedded server does not implement: refused when set, rather than ignored. */
const TASK_SEARCH_UNSUPPORTED = [
  'accessReviewIds',
  'accountOwnerIds',
  'accountTypes',
  'actorId',
  'appEntitlementIds',
  'appResourceIds',
  'appResourceTypeIds',
  'appUserSubjectIds',
  'applicationIds',
  'assigneesInIds',
  'currentStep',
  'emergencyStatus',
  'excludeAppEntitlementIds',
  'excludeAppResourceTypeIds',
  'excludeIds',
  'includeDeleted',
  'myWorkUserIds',
  'olderThanDuration',
  'openerIds',
  'openerOrSubjectUserId',
  'previouslyActedOnIds',
  'sortBy',
  'stepApprovalTypes',
  'subjectIds',
  'taskTypes',
  'userEmploymentStatuses',
];
const TASK_SEARCH_SUPPORTED = [
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

/** Task IDs a search may name in `refs`. */
export const TASK_SEARCH_REFS_MAX = 100;

export interface ParsedTaskSearch {
  /** `refs` IDs: only these tasks ([] for no such filter). */
  ids: string[];
  states: string[];
  query: string;
  approverUserId: string;
  createdAfter: number | null;
  createdBefore: number | null;
  expand: ExpandKey[];
  pageSize: number;
  pageToken: string;
}

/**
 * A member at its protobuf default (null, false, 0, "", [], an enum's
 * `…_UNSPECIFIED` or `UNSPECIFIED`): protobuf JSON reads it as absent, and the vendor's clients
 * send members so (`includeDeleted: false`, `sortBy: "…_UNSPECIFIED"`).
 */
export const isProtoDefault = (v: unknown): boolean =>
  v === null ||
  v === undefined ||
  v === false ||
  v === 0 ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'string' && /^([A-Z][A-Z0-9_]*_)?UNSPECIFIED$/.test(v));

/** Validates a task search body as the embedded server reads it. Throws ApiError InvalidArgument naming the member. */
export function validateTaskSearch(body: unknown): ParsedTaskSearch {
  if (!isJsonObject(body)) throw invalidArgument('request body must be a JSON object');
  for (const [k, v] of Object.entries(body)) {
    if (isProtoDefault(v)) continue;
    if (TASK_SEARCH_UNSUPPORTED.includes(k))
      throw invalidArgument(
        `${k}: this filter is not implemented by the embedded server (it implements ${TASK_SEARCH_SUPPORTED.join(', ')})`,
      );
    if (!TASK_SEARCH_SUPPORTED.includes(k)) throw invalidArgument(`${k}: unknown field`);
  }
  const text = (name: string) => bodyText(body, name);
  const time = (name: string) => bodyTime(body, name);
  const rawStates = body.taskStates ?? [];
  if (!Array.isArray(rawStates)) throw invalidArgument('taskStates must be an array of TASK_STATE_* values');
  const known = Object.values(TASK_STATES) as string[];
  for (const st of rawStates)
    if (typeof st !== 'string' || !known.includes(st))
      throw invalidArgument(`taskStates: unknown value ${JSON.stringify(st)}; expected ${known.join(', ')}`);
  const mask = body.expandMask ?? null;
  if (mask !== null && (!isJsonObject(mask) || (mask.paths != null && !Array.isArray(mask.paths))))
    throw invalidArgument('expandMask must be an object with paths: [string]');
  const size = body.pageSize ?? 0;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size > TASK_SEARCH_PAGE_SIZE_MAX)
    throw invalidArgument(`pageSize must be an integer from 0 to ${TASK_SEARCH_PAGE_SIZE_MAX}`);
  const refs = body.refs ?? [];
  if (
    !Array.isArray(refs) ||
    refs.length > TASK_SEARCH_REFS_MAX ||
    !refs.every((r) => isJsonObject(r) && (r.id === undefined || r.id === null || typeof r.id === 'string'))
  ) {
    throw invalidArgument(`refs must be an array of at most ${TASK_SEARCH_REFS_MAX} objects {id: string}`);
  }
  return {
    ids: refs.map((r) => String((r as { id?: string | null }).id ?? '')),
    states: (rawStates as string[]).filter((st) => st !== TASK_STATES.unspecified),
    query: text('query').trim(),
    approverUserId: text('assignedOrStepApproverUserId'),
    createdAfter: time('createdAfter'),
    createdBefore: time('createdBefore'),
    expand: parseExpandPaths(mask === null ? [] : ((mask.paths as string[] | null | undefined) ?? [])),
    pageSize: size === 0 ? TASK_SEARCH_PAGE_SIZE_DEFAULT : Math.max(size, TASK_SEARCH_PAGE_SIZE_MIN),
    pageToken: text('pageToken'),
  };
}

/** Step-up transactions expire this long after the server issued them. */
export const STEP_UP_TRANSACTION_TTL_MS = 10 * 60 * 1000;
export const COMMENT_MAX_LENGTH = 4096;
export const ID_MAX_LENGTH = 200;
export const EXPAND_PATHS_MAX = 64;

/** An optional string member: absent or null reads as ''. */
const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .max(max, { error: `${name} is longer than ${max} characters` })
    .nullish()
    .transform((v) => v ?? '');

/**
 * Body of approve-with-step-up. `policyStepId` is required (approving must
 * name the step the caller saw); `stepUpTransactionId` is opaque (issued by
 * the server): empty on the first call, which answers `redirectUrl`
 * (service-notes.md §2).
 */
const ApproveWithStepUpRequestSchema = z.object(
  {
    policyStepId: text('policyStepId', ID_MAX_LENGTH)
      .transform((v) => v.trim())
      .refine((v) => v !== '', {
        error: 'policyStepId is required: the ID of the current policy step (see taskView.task.policy.current.id)',
      }),
    stepUpTransactionId: text('stepUpTransactionId', ID_MAX_LENGTH).transform((v) => v.trim()),
    comment: text('comment', COMMENT_MAX_LENGTH),
    expandMask: z
      .object(
        {
          paths: z
            .array(z.string(), { error: 'expandMask.paths must be an array of strings' })
            .max(EXPAND_PATHS_MAX, { error: `expandMask.paths has more than ${EXPAND_PATHS_MAX} entries` })
            .nullish()
            .transform((paths) => paths ?? [])
            // Throws InvalidArgument naming an unknown path.
            .refine((paths) => parseExpandPaths(paths).length >= 0),
        },
        { error: 'expandMask must be an object with paths: [string]' },
      )
      .nullish()
      .transform((v) => v ?? null),
  },
  { error: 'request body must be a JSON object' },
);
export type ApproveWithStepUpRequest = z.infer<typeof ApproveWithStepUpRequestSchema>;

/** Validates an approve-with-step-up body. Throws ApiError InvalidArgument with a message naming the member. */
export function validateApproveRequest(body: unknown): ApproveWithStepUpRequest {
  const r = ApproveWithStepUpRequestSchema.safeParse(body);
  if (!r.success) throw invalidArgument(r.error.issues[0]!.message);
  return r.data;
}

/** A string member of a search body: absent or null reads as ''. Throws ApiError InvalidArgument naming it. */
function bodyText(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw invalidArgument(`${name} must be a string`);
  if (v.length > ID_MAX_LENGTH * 4) throw invalidArgument(`${name} is too long`);
  return v;
}

/** An RFC 3339 member of a search body as epoch milliseconds, null when absent. */
function bodyTime(body: Record<string, unknown>, name: string): number | null {
  const v = bodyText(body, name);
  if (!v) return null;
  const ms = /^\d{4}-\d\d-\d\dT/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw invalidArgument(`${name} must be an RFC 3339 date-time`);
  return ms;
}

export const STEP_UP_SEARCH_PAGE_SIZE_DEFAULT = 50;
export const STEP_UP_SEARCH_PAGE_SIZE_MAX = 100;

/** Validates a step-up transaction search body (every member optional). Throws ApiError InvalidArgument naming the member. */
export function validateStepUpSearch(body: unknown): Required<Omit<SearchStepUpTransactionsRequest, 'createdAfter' | 'createdBefore'>> & {
  createdAfter: number | null;
  createdBefore: number | null;
} {
  const b = parseRequest(STEP_UP_SEARCH_REQUEST, body, invalidArgument);
  const text = (name: string) => bodyText(b, name);
  const time = (name: string) => bodyTime(b, name);
  const state = b.state || STEP_UP_STATES.unspecified;
  const targetType = b.targetType || 'TARGET_TYPE_UNSPECIFIED';
  const size = b.pageSize ?? 0;
  if (!Number.isInteger(size) || size < 0) throw invalidArgument('pageSize must be a non-negative integer');
  return {
    taskId: text('taskId'),
    state,
    userId: text('userId'),
    providerId: text('providerId'),
    targetType,
    createdAfter: time('createdAfter'),
    createdBefore: time('createdBefore'),
    pageSize: Math.min(size || STEP_UP_SEARCH_PAGE_SIZE_DEFAULT, STEP_UP_SEARCH_PAGE_SIZE_MAX),
    pageToken: text('pageToken'),
  };
}
