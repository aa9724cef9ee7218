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
import { invalidArgument } from './errors.js';

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

const KEY_BY_LOOSE_NAME = new Map(EXPAND_KEYS.map((k) => [loose(k), k]));
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
        throw invalidArgument(`unknown expand path ${JSON.stringify(name.slice(0, 100))}; use ${EXPAND_ALL} or one of: ${EXPAND_KEYS.join(', ')}`);
      }
      selected.add(key);
    }
  }
  return EXPAND_KEYS.filter((k) => selected.has(k));
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
  const expanded: ExpandedObject[] = [];
  const indexOf = new Map<string, number>();
  const paths = emptyPathFields();
  for (const key of keys) {
    const indices: number[] = [];
    for (const obj of lookup(key)) {
      const identity = typeof obj.id === 'string' && obj.id ? `${obj['@type']}\u0000${obj.id}` : undefined;
      let i = identity !== undefined ? indexOf.get(identity) : undefined;
      if (i === undefined) {
        i = expanded.push(obj) - 1;
        if (identity !== undefined) indexOf.set(identity, i);
      }
      if (!indices.includes(i)) indices.push(i);
    }
    paths[pathFieldFor(key)] = formatExpandedPath(indices);
  }
  return { expanded, paths };
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
    if (!s) throw new PathResolutionError(`unsupported path ${JSON.stringify(path.slice(0, 200))}: bad index ${JSON.stringify(p.slice(0, 50))}`);
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
// Task view types (§2.4). One-of members (the kind of a step, the outcome of
// an instance, the typed sub-object of a form field) appear only when set;
// every other member is always present.

export interface ObjectPermissions {
  delete: boolean;
  edit: boolean;
  read: boolean;
  extra: Record<string, unknown>;
}

export interface ExternalRef {
  externalRefSource: string;
  name: string;
  url: string;
}

export interface Annotation {
  '@type': string;
  [key: string]: unknown;
}

export interface FormFieldGroup {
  default: boolean;
  displayName: string;
  fields: string[];
  helpText: string;
  name: string;
}

export interface FormFieldRelationship {
  fieldNames: string[];
  atLeastOne?: Record<string, unknown>;
  dependentOn?: { dependencyFieldNames: string[] };
  mutuallyExclusive?: Record<string, unknown>;
  requiredTogether?: Record<string, unknown>;
}

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

export interface FormField {
  name: string;
  displayName: string;
  description: string;
  readOnly: boolean;
  required: boolean;
  adminConfig: { defaultValueCel: string; showToUser: boolean };
  sharedConfig: { defaultValueCel: string; inputTransformationCel: string; lockDefaultValues: boolean };
  userConfig: { inputTransformationCel: string };
  /** Exactly one typed sub-object (defaults, placeholders, validation `rules`). */
  boolField?: Record<string, unknown>;
  int64Field?: Record<string, unknown>;
  stringField?: Record<string, unknown>;
  stringMapField?: Record<string, unknown>;
  stringSliceField?: Record<string, unknown>;
  fileField?: Record<string, unknown>;
  oauth2Field?: Record<string, unknown>;
}

export interface FormDefinition {
  id: string;
  displayName: string;
  description: string;
  fieldGroups: FormFieldGroup[];
  fieldRelationships: FormFieldRelationship[];
  fields: FormField[];
}

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
export type ApprovalAssigneeKind = (typeof APPROVAL_ASSIGNEE_KINDS)[number];

export interface ApprovalDefinition {
  allowDelegation: boolean;
  allowReassignment: boolean;
  requireApprovalReason: boolean;
  requireDenialReason: boolean;
  requireReassignmentReason: boolean;
  allowedReassignees: string[];
  /** Set when approving needs a step-up authentication with this provider. */
  requiresStepUpProviderId: string;
  escalationEnabled: boolean;
  escalation: Record<string, unknown> | null;
  agent?: Record<string, unknown>;
  appOwners?: Record<string, unknown>;
  entitlementOwners?: Record<string, unknown>;
  expression?: Record<string, unknown>;
  group?: Record<string, unknown>;
  manager?: Record<string, unknown>;
  resourceOwners?: Record<string, unknown>;
  self?: Record<string, unknown>;
  users?: { userIds: string[]; allowSelfApproval?: boolean; [key: string]: unknown };
  webhook?: Record<string, unknown>;
}

export interface AppEntitlementRef {
  appId: string;
  appEntitlementId: string;
}

export interface ApprovedOutcome {
  approvedAt: string;
  entitlements: AppEntitlementRef[];
  stepUpTransactionId: string;
  userId: string;
}

export interface ApprovalInstance {
  approval: ApprovalDefinition;
  state: string;
  assignedAt: string | null;
  approved?: ApprovedOutcome;
  denied?: Record<string, unknown>;
  reassigned?: Record<string, unknown>;
  reassignedByError?: Record<string, unknown>;
  restarted?: Record<string, unknown>;
  skipped?: Record<string, unknown>;
  escalationInstance?: Record<string, unknown>;
}

/** Kind-specific objects of non-approval steps: kept as stored, with their `state` filled in. */
export type StepObject = Record<string, unknown>;

export const POLICY_STEP_KINDS = ['accept', 'reject', 'action', 'approval', 'form', 'provision', 'wait'] as const;
export type PolicyStepKind = (typeof POLICY_STEP_KINDS)[number];

export interface PolicyStepInstance {
  id: string;
  state: string;
  accept?: { acceptMessage: string };
  reject?: { rejectMessage: string };
  action?: StepObject;
  approval?: ApprovalInstance;
  form?: StepObject;
  provision?: StepObject;
  wait?: StepObject;
}

export interface PolicyStep {
  accept?: { acceptMessage: string };
  reject?: { rejectMessage: string };
  action?: StepObject;
  approval?: ApprovalDefinition;
  form?: StepObject;
  provision?: StepObject;
  wait?: StepObject;
}

export interface TaskPolicy {
  id: string;
  policyGenerationId: string;
  current: PolicyStepInstance | null;
  history: PolicyStepInstance[];
  next: PolicyStep[];
}

export interface Task {
  id: string;
  numericId: string;
  displayName: string;
  description: string;
  createdByUserId: string;
  analysisId: string;
  createdAt: string | null;
  deletedAt: string | null;
  commentCount: number;
  emergencyAccess: boolean;
  approverIds: string[];
  insightIds: string[];
  annotations: Annotation[];
  data: Record<string, unknown>;
  actions: string[];
  origin: string;
  externalRefs: ExternalRef[];
  form: FormDefinition | null;
  policy: TaskPolicy;
}

export interface TaskView extends PathFields {
  objectPermissions: ObjectPermissions;
  task: Task;
}

// ---------------------------------------------------------------------------
// Requests and responses

export interface ExpandMask {
  paths: string[];
}

export interface ApproveWithStepUpRequest {
  policyStepId: string;
  /** The verified transaction; empty on the first call, which answers `redirectUrl` (service-notes.md §2). */
  stepUpTransactionId: string;
  comment: string;
  expandMask: ExpandMask | null;
}

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

export interface StepUpTransaction {
  id: string;
  state: string;
  /** Set for a transaction that approves a task step (the other target is `test`). */
  approveTask?: { taskId: string; policyStepId: string };
  test?: Record<string, never>;
  providerId: string;
  userId: string;
  claims: Record<string, unknown> | null;
  errorMessage: string;
  createdAt: string | null;
  updatedAt: string | null;
  expiresAt: string | null;
}

export interface SearchStepUpTransactionsRequest {
  taskId?: string;
  state?: string;
  userId?: string;
  providerId?: string;
  targetType?: StepUpTargetType;
  createdAfter?: string;
  createdBefore?: string;
  pageSize?: number;
  pageToken?: string;
}

export interface SearchStepUpTransactionsResponse {
  list: StepUpTransaction[];
  nextPageToken: string;
}

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

/** Step-up transactions expire this long after the server issued them. */
export const STEP_UP_TRANSACTION_TTL_MS = 10 * 60 * 1000;
export const COMMENT_MAX_LENGTH = 4096;
export const ID_MAX_LENGTH = 200;
export const EXPAND_PATHS_MAX = 64;

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Validates an approve-with-step-up body. Throws ApiError InvalidArgument with
 * a message naming the member. `policyStepId` is required (approving must name
 * the step the caller saw); `stepUpTransactionId` is opaque (issued by the server).
 */
export function validateApproveRequest(body: unknown): ApproveWithStepUpRequest {
  if (!isPlainObject(body)) throw invalidArgument('request body must be a JSON object');
  const str = (name: string, max: number): string => {
    const v = body[name];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw invalidArgument(`${name} must be a string`);
    if (v.length > max) throw invalidArgument(`${name} is longer than ${max} characters`);
    return v;
  };
  const policyStepId = str('policyStepId', ID_MAX_LENGTH).trim();
  if (!policyStepId) throw invalidArgument('policyStepId is required: the ID of the current policy step (see taskView.task.policy.current.id)');
  const stepUpTransactionId = str('stepUpTransactionId', ID_MAX_LENGTH).trim();
  const comment = str('comment', COMMENT_MAX_LENGTH);
  let expandMask: ExpandMask | null = null;
  const em = body.expandMask;
  if (em !== undefined && em !== null) {
    if (!isPlainObject(em)) throw invalidArgument('expandMask must be an object with paths: [string]');
    const paths = em.paths ?? [];
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) throw invalidArgument('expandMask.paths must be an array of strings');
    if (paths.length > EXPAND_PATHS_MAX) throw invalidArgument(`expandMask.paths has more than ${EXPAND_PATHS_MAX} entries`);
    parseExpandPaths(paths as string[]);
    expandMask = { paths: paths as string[] };
  }
  return { policyStepId, stepUpTransactionId, comment, expandMask };
}

// ---------------------------------------------------------------------------
// Normalization: the full shape of §2.4 from stored or received data.

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const bool = (v: unknown): boolean => v === true;
const int = (v: unknown): number => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : 0;
};
const obj = (v: unknown): Record<string, unknown> => (isPlainObject(v) ? v : {});
const strArr = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);
const objArr = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const dateOrNull = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
/** Enum values travel as strings; unknown names pass through unchanged. */
export function enumValue(v: unknown, unspecified: string): string {
  if (typeof v === 'string' && v) return v;
  if (v === 0 || v === undefined || v === null || v === '') return unspecified;
  return String(v);
}
const objOrNull = (v: unknown): Record<string, unknown> | null => (isPlainObject(v) ? v : null);

function pickOneOf<K extends string>(src: Record<string, unknown>, kinds: readonly K[]): Partial<Record<K, Record<string, unknown>>> {
  const out: Partial<Record<K, Record<string, unknown>>> = {};
  for (const k of kinds) if (isPlainObject(src[k])) out[k] = src[k] as Record<string, unknown>;
  return out;
}

export function normalizeFormField(raw: unknown): FormField {
  const f = obj(raw);
  const admin = obj(f.adminConfig);
  const shared = obj(f.sharedConfig);
  const user = obj(f.userConfig);
  return {
    name: str(f.name),
    displayName: str(f.displayName),
    description: str(f.description),
    readOnly: bool(f.readOnly),
    required: bool(f.required),
    adminConfig: { defaultValueCel: str(admin.defaultValueCel), showToUser: bool(admin.showToUser) },
    sharedConfig: {
      defaultValueCel: str(shared.defaultValueCel),
      inputTransformationCel: str(shared.inputTransformationCel),
      lockDefaultValues: bool(shared.lockDefaultValues),
    },
    userConfig: { inputTransformationCel: str(user.inputTransformationCel) },
    ...pickOneOf(f, FORM_FIELD_KINDS),
  };
}

export function normalizeForm(raw: unknown): FormDefinition | null {
  if (!isPlainObject(raw)) return null;
  return {
    id: str(raw.id),
    displayName: str(raw.displayName),
    description: str(raw.description),
    fieldGroups: objArr(raw.fieldGroups).map((g) => ({
      default: bool(g.default),
      displayName: str(g.displayName),
      fields: strArr(g.fields),
      helpText: str(g.helpText),
      name: str(g.name),
    })),
    fieldRelationships: objArr(raw.fieldRelationships).map((r) => {
      const rel: FormFieldRelationship = { fieldNames: strArr(r.fieldNames) };
      if (isPlainObject(r.atLeastOne)) rel.atLeastOne = r.atLeastOne;
      if (isPlainObject(r.dependentOn)) rel.dependentOn = { dependencyFieldNames: strArr(r.dependentOn.dependencyFieldNames) };
      if (isPlainObject(r.mutuallyExclusive)) rel.mutuallyExclusive = r.mutuallyExclusive;
      if (isPlainObject(r.requiredTogether)) rel.requiredTogether = r.requiredTogether;
      return rel;
    }),
    fields: objArr(raw.fields).map(normalizeFormField),
  };
}

export function normalizeApprovalDefinition(raw: unknown): ApprovalDefinition {
  const a = obj(raw);
  const def: ApprovalDefinition = {
    allowDelegation: bool(a.allowDelegation),
    allowReassignment: bool(a.allowReassignment),
    requireApprovalReason: bool(a.requireApprovalReason),
    requireDenialReason: bool(a.requireDenialReason),
    requireReassignmentReason: bool(a.requireReassignmentReason),
    allowedReassignees: strArr(a.allowedReassignees),
    requiresStepUpProviderId: str(a.requiresStepUpProviderId),
    escalationEnabled: bool(a.escalationEnabled),
    escalation: objOrNull(a.escalation),
  };
  const kinds = pickOneOf(a, APPROVAL_ASSIGNEE_KINDS);
  const { users, ...others } = kinds;
  Object.assign(def, others);
  if (users) def.users = { ...users, userIds: strArr(users.userIds), allowSelfApproval: bool(users.allowSelfApproval) };
  return def;
}

const APPROVAL_OUTCOMES = ['denied', 'reassigned', 'reassignedByError', 'restarted', 'skipped', 'escalationInstance'] as const;

function normalizeApprovalInstance(raw: unknown): ApprovalInstance {
  const a = obj(raw);
  const inst: ApprovalInstance = {
    approval: normalizeApprovalDefinition(a.approval),
    state: enumValue(a.state, 'APPROVAL_INSTANCE_STATE_UNSPECIFIED'),
    assignedAt: dateOrNull(a.assignedAt),
  };
  if (isPlainObject(a.approved)) {
    const o = a.approved;
    inst.approved = {
      approvedAt: str(o.approvedAt),
      entitlements: objArr(o.entitlements).map((e) => ({ appId: str(e.appId), appEntitlementId: str(e.appEntitlementId) })),
      stepUpTransactionId: str(o.stepUpTransactionId),
      userId: str(o.userId),
    };
  }
  Object.assign(inst, pickOneOf(a, APPROVAL_OUTCOMES));
  return inst;
}

const INSTANCE_STATE_ENUM: Record<string, string> = {
  action: 'ACTION_INSTANCE_STATE_UNSPECIFIED',
  form: 'FORM_INSTANCE_STATE_UNSPECIFIED',
  provision: 'PROVISION_INSTANCE_STATE_UNSPECIFIED',
  wait: 'WAIT_INSTANCE_STATE_UNSPECIFIED',
};

export function normalizeStepInstance(raw: unknown): PolicyStepInstance {
  const s = obj(raw);
  const inst: PolicyStepInstance = { id: str(s.id), state: enumValue(s.state, 'POLICY_STEP_STATE_UNSPECIFIED') };
  if (isPlainObject(s.accept)) inst.accept = { acceptMessage: str(s.accept.acceptMessage) };
  if (isPlainObject(s.reject)) inst.reject = { rejectMessage: str(s.reject.rejectMessage) };
  if (isPlainObject(s.approval)) inst.approval = normalizeApprovalInstance(s.approval);
  for (const k of ['action', 'form', 'provision', 'wait'] as const) {
    const v = s[k];
    if (isPlainObject(v)) {
      const o: StepObject = { ...v, state: enumValue(v.state, INSTANCE_STATE_ENUM[k]!) };
      if (k === 'form') {
        o.form = normalizeForm(v.form);
        o.data = obj(v.data);
      }
      inst[k] = o;
    }
  }
  return inst;
}

export function normalizeStepDefinition(raw: unknown): PolicyStep {
  const s = obj(raw);
  const step: PolicyStep = {};
  if (isPlainObject(s.accept)) step.accept = { acceptMessage: str(s.accept.acceptMessage) };
  if (isPlainObject(s.reject)) step.reject = { rejectMessage: str(s.reject.rejectMessage) };
  if (isPlainObject(s.approval)) step.approval = normalizeApprovalDefinition(s.approval);
  for (const k of ['action', 'form', 'provision', 'wait'] as const) if (isPlainObject(s[k])) step[k] = { ...(s[k] as StepObject) };
  return step;
}

export function normalizePolicy(raw: unknown): TaskPolicy {
  const p = obj(raw);
  return {
    id: str(p.id),
    policyGenerationId: str(p.policyGenerationId),
    current: isPlainObject(p.current) ? normalizeStepInstance(p.current) : null,
    history: objArr(p.history).map(normalizeStepInstance),
    next: objArr(p.next).map(normalizeStepDefinition),
  };
}

export function normalizeTask(raw: unknown): Task {
  const t = obj(raw);
  return {
    id: str(t.id),
    numericId: str(t.numericId),
    displayName: str(t.displayName),
    description: str(t.description),
    createdByUserId: str(t.createdByUserId),
    analysisId: str(t.analysisId),
    createdAt: dateOrNull(t.createdAt),
    deletedAt: dateOrNull(t.deletedAt),
    commentCount: int(t.commentCount),
    emergencyAccess: bool(t.emergencyAccess),
    approverIds: strArr(t.approverIds),
    insightIds: strArr(t.insightIds),
    annotations: objArr(t.annotations).map((a) => ({ ...a, '@type': str(a['@type']) })),
    data: obj(t.data),
    actions: Array.isArray(t.actions) ? t.actions.map((a) => enumValue(a, 'TASK_ACTION_TYPE_UNSPECIFIED')) : [],
    origin: enumValue(t.origin, 'TASK_ORIGIN_UNSPECIFIED'),
    externalRefs: objArr(t.externalRefs).map((r) => ({
      externalRefSource: enumValue(r.externalRefSource, 'EXTERNAL_REF_SOURCE_UNSPECIFIED'),
      name: str(r.name),
      url: str(r.url),
    })),
    form: normalizeForm(t.form),
    policy: normalizePolicy(t.policy),
  };
}

/** Gives a task view (stored, or received from a tenant) the full shape of §2.4. */
export function normalizeTaskView(raw: unknown): TaskView {
  const v = obj(raw);
  const p = obj(v.objectPermissions);
  const paths = emptyPathFields();
  for (const f of TASK_PATH_FIELDS) paths[f] = str(v[f]);
  return {
    ...paths,
    objectPermissions: { delete: bool(p.delete), edit: bool(p.edit), read: bool(p.read), extra: obj(p.extra) },
    task: normalizeTask(v.task),
  };
}

/** The kind of a step instance or definition (`approval`, `provision`, ...), or '' when none is set. */
export function stepKind(step: PolicyStepInstance | PolicyStep | null | undefined): PolicyStepKind | '' {
  if (!step) return '';
  for (const k of POLICY_STEP_KINDS) if ((step as Record<string, unknown>)[k] !== undefined) return k;
  return '';
}

export const STEP_UP_SEARCH_PAGE_SIZE_DEFAULT = 50;
export const STEP_UP_SEARCH_PAGE_SIZE_MAX = 100;

/** Validates a step-up transaction search body (every member optional). Throws ApiError InvalidArgument naming the member. */
export function validateStepUpSearch(body: unknown): Required<Omit<SearchStepUpTransactionsRequest, 'createdAfter' | 'createdBefore'>> & {
  createdAfter: number | null;
  createdBefore: number | null;
} {
  if (!isPlainObject(body)) throw invalidArgument('request body must be a JSON object');
  const text = (name: string): string => {
    const v = body[name];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw invalidArgument(`${name} must be a string`);
    if (v.length > ID_MAX_LENGTH * 4) throw invalidArgument(`${name} is too long`);
    return v;
  };
  const time = (name: string): number | null => {
    const v = text(name);
    if (!v) return null;
    const ms = /^\d{4}-\d\d-\d\dT/.test(v) ? Date.parse(v) : NaN;
    if (Number.isNaN(ms)) throw invalidArgument(`${name} must be an RFC 3339 date-time`);
    return ms;
  };
  const state = text('state') || STEP_UP_STATES.unspecified;
  if (!Object.values(STEP_UP_STATES).includes(state as never)) throw invalidArgument(`state must be one of ${Object.values(STEP_UP_STATES).join(', ')}`);
  const targetType = (text('targetType') || 'TARGET_TYPE_UNSPECIFIED') as StepUpTargetType;
  if (!STEP_UP_TARGET_TYPES.includes(targetType)) throw invalidArgument(`targetType must be one of ${STEP_UP_TARGET_TYPES.join(', ')}`);
  const size = body.pageSize ?? 0;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw invalidArgument('pageSize must be a non-negative integer');
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

/** Gives a step-up transaction received from a server the full shape (proto3 JSON leaves out empty members). */
export function normalizeStepUpTransaction(raw: unknown): StepUpTransaction {
  const t = obj(raw);
  const tx: StepUpTransaction = {
    id: str(t.id),
    state: enumValue(t.state, STEP_UP_STATES.unspecified),
    providerId: str(t.providerId),
    userId: str(t.userId),
    claims: objOrNull(t.claims),
    errorMessage: str(t.errorMessage),
    createdAt: dateOrNull(t.createdAt),
    updatedAt: dateOrNull(t.updatedAt),
    expiresAt: dateOrNull(t.expiresAt),
  };
  if (isPlainObject(t.approveTask)) tx.approveTask = { taskId: str(t.approveTask.taskId), policyStepId: str(t.approveTask.policyStepId) };
  if (isPlainObject(t.test)) tx.test = {};
  return tx;
}
