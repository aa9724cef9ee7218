import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import {
  EXPAND_KEYS,
  PathResolutionError,
  TASK_PATH_FIELDS,
  assembleExpanded,
  expandedIndices,
  formatExpandedPath,
  normalizeTaskView,
  parseExpandPaths,
  resolveExpandedPath,
  resolveTaskViewPaths,
  stepKind,
  validateApproveRequest,
  validateStepUpSearch,
  validateTaskSearch,
  wireExpandPaths,
  type ExpandedObject,
} from '../../../src/api/tasks.js';

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('expand mask', () => {
  it('selects every key for * and keeps the canonical order', () => {
    expect(parseExpandPaths(['*'])).toEqual([...EXPAND_KEYS]);
    expect(EXPAND_KEYS).toHaveLength(TASK_PATH_FIELDS.length);
    expect(parseExpandPaths(['entitlements', 'app'])).toEqual(['app', 'entitlements']);
  });

  it('accepts comma lists, snake_case, a Path suffix and ignores blanks and repeats', () => {
    expect(parseExpandPaths(['app, created_by_user', ' ', 'appPath', 'STEP_APPROVERS'])).toEqual(['app', 'createdByUser', 'stepApprovers']);
    expect(parseExpandPaths([])).toEqual([]);
    expect(parseExpandPaths(undefined)).toEqual([]);
  });

  it('rejects unknown names with InvalidArgument naming the valid ones', () => {
    let err: unknown;
    try {
      parseExpandPaths(['app', 'apps']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(3);
    expect((err as ApiError).message).toContain('"apps"');
    expect((err as ApiError).message).toContain('createdByUser');
  });

  it('assembles expanded with shared indices for the same object', () => {
    const ada = { '@type': 'User', id: 'ada' };
    const ci = { '@type': 'User', id: 'ci' };
    const app = { '@type': 'App', id: 'crm' };
    const { expanded, paths } = assembleExpanded(['app', 'approvers', 'createdByUser', 'insights'], (k) =>
      k === 'app' ? [app] : k === 'approvers' ? [ada, ci] : k === 'createdByUser' ? [{ ...ada }] : [],
    );
    expect(expanded).toEqual([app, ada, ci]);
    expect(paths.appPath).toBe('expanded[0]');
    expect(paths.approversPath).toBe('expanded[1,2]');
    expect(paths.createdByUserPath).toBe('expanded[1]');
    expect(paths.insightsPath).toBe('');
    expect(paths.entitlementsPath).toBe('');
    expect(Object.keys(paths).sort()).toEqual([...TASK_PATH_FIELDS].sort());
  });

  it('keeps objects without an id apart', () => {
    const { expanded, paths } = assembleExpanded(['app', 'appUser'], () => [{ '@type': 'X' }]);
    expect(expanded).toHaveLength(2);
    expect(paths.appUserPath).toBe('expanded[1]');
  });
});

describe("the service's expand names", () => {
  it('sends the service names where it has them, agctl names for the rest, * alone', () => {
    expect(wireExpandPaths(['app', 'createdByUser', 'approvers', 'stepApprovers'])).toEqual([
      'app_id',
      'approvers',
      'created_by_user_id',
      'step_approver_ids',
    ]);
    expect(wireExpandPaths(['app,insights', '*'])).toEqual(['*']);
    expect(() => wireExpandPaths(['nope'])).toThrow(/unknown expand path/);
  });

  it('reads the service names as the keys they stand for', () => {
    expect(parseExpandPaths(['app_id', 'created_by_user_id', 'step_approver_ids', 'app_entitlement_ids', 'insight_ids'])).toEqual([
      'app',
      'createdByUser',
      'entitlements',
      'insights',
      'stepApprovers',
    ]);
  });

  it('the search takes refs: [{id}] (at most 100) and reads their IDs', () => {
    expect(validateTaskSearch({ refs: [{ id: 't1' }, { id: 't2' }] }).ids).toEqual(['t1', 't2']);
    expect(validateTaskSearch({}).ids).toEqual([]);
    expect(() => validateTaskSearch({ refs: [{ id: 7 }] })).toThrow(/refs must be an array/);
    expect(() => validateTaskSearch({ refs: Array.from({ length: 101 }, () => ({ id: 'x' })) })).toThrow(/refs must be an array/);
  });
});

describe('path fields', () => {
  const expanded: ExpandedObject[] = [0, 1, 2, 3, 4].map((i) => ({ '@type': 'T', id: `o${i}` }));

  it('formats and parses the forms the server writes', () => {
    expect(formatExpandedPath([])).toBe('');
    expect(formatExpandedPath([3])).toBe('expanded[3]');
    expect(formatExpandedPath([1, 2])).toBe('expanded[1,2]');
    expect(expandedIndices('expanded[3]', 5)).toEqual([3]);
    expect(expandedIndices('expanded[1,2]', 5)).toEqual([1, 2]);
    expect(expandedIndices('', 5)).toEqual([]);
  });

  it('accepts root-prefixed, bracketed, negative, slice and wildcard forms', () => {
    expect(expandedIndices('$.expanded[0]', 5)).toEqual([0]);
    expect(expandedIndices("$['expanded'][4]", 5)).toEqual([4]);
    expect(expandedIndices('expanded[-1]', 5)).toEqual([4]);
    expect(expandedIndices('expanded[1:3]', 5)).toEqual([1, 2]);
    expect(expandedIndices('expanded[:2]', 5)).toEqual([0, 1]);
    expect(expandedIndices('expanded[::2]', 5)).toEqual([0, 2, 4]);
    expect(expandedIndices('expanded[*]', 3)).toEqual([0, 1, 2]);
    expect(expandedIndices(' expanded[ 0 , 2 ] ', 5)).toEqual([0, 2]);
  });

  it('rejects paths outside expanded or of another shape', () => {
    expect(() => expandedIndices('expanded[5]', 5)).toThrow(PathResolutionError);
    expect(() => expandedIndices('expanded[-6]', 5)).toThrow(/outside/);
    expect(() => expandedIndices('task.policy', 5)).toThrow(PathResolutionError);
    expect(() => expandedIndices('expanded[a]', 5)).toThrow(PathResolutionError);
    expect(() => expandedIndices('expanded[0:2:0]', 5)).toThrow(/step of 0/);
    expect(() => expandedIndices('other[0]', 5)).toThrow(PathResolutionError);
  });

  it('resolves one path and every path field of a view', () => {
    expect(resolveExpandedPath('expanded[2]', expanded)).toEqual([expanded[2]]);
    expect(resolveExpandedPath('', expanded)).toEqual([]);
    const resolved = resolveTaskViewPaths({ appPath: 'expanded[0]', approversPath: 'expanded[1,3]', insightsPath: '' }, expanded);
    expect(resolved).toEqual({ appPath: [expanded[0]], approversPath: [expanded[1], expanded[3]] });
    expect(() => resolveTaskViewPaths({ appPath: 'expanded[9]' }, expanded)).toThrow(PathResolutionError);
  });

  it('round-trips what assembleExpanded produces', () => {
    const { expanded: ex, paths } = assembleExpanded([...EXPAND_KEYS], (k) => [{ '@type': 'K', id: k }]);
    const resolved = resolveTaskViewPaths(paths, ex);
    for (const key of EXPAND_KEYS) expect(resolved[`${key}Path` as keyof typeof resolved]).toEqual([{ '@type': 'K', id: key }]);
  });
});

describe('approve request validation', () => {
  it('accepts a full request and fills defaults', () => {
    expect(validateApproveRequest({ policyStepId: 's1', stepUpTransactionId: UUID, comment: 'ok', expandMask: { paths: ['*'] } })).toEqual({
      policyStepId: 's1',
      stepUpTransactionId: UUID,
      comment: 'ok',
      expandMask: { paths: ['*'] },
    });
    expect(validateApproveRequest({ policyStepId: 's1' })).toEqual({
      policyStepId: 's1',
      stepUpTransactionId: '',
      comment: '',
      expandMask: null,
    });
    // Transaction IDs are opaque: the server issues them, in any form.
    expect(validateApproveRequest({ policyStepId: 's1', stepUpTransactionId: ' 2hAcB9xQ ' }).stepUpTransactionId).toBe('2hAcB9xQ');
  });

  it.each([
    [[], /JSON object/],
    [null, /JSON object/],
    [{}, /policyStepId is required/],
    [{ policyStepId: 5 }, /policyStepId must be a string/],
    [{ policyStepId: 's', stepUpTransactionId: 7 }, /stepUpTransactionId must be a string/],
    [{ policyStepId: 's', stepUpTransactionId: 'x'.repeat(201) }, /stepUpTransactionId is longer/],
    [{ policyStepId: 's', comment: 'x'.repeat(4097) }, /comment is longer/],
    [{ policyStepId: 's', expandMask: [] }, /expandMask must be an object/],
    [{ policyStepId: 's', expandMask: { paths: 'app' } }, /array of strings/],
    [{ policyStepId: 's', expandMask: { paths: ['nope'] } }, /unknown expand path/],
  ])('rejects %j', (body, msg) => {
    let err: unknown;
    try {
      validateApproveRequest(body);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).code).toBe(3);
    expect((err as ApiError).message).toMatch(msg);
  });
});

describe('step-up transaction search validation', () => {
  it('fills defaults and caps the page size', () => {
    expect(validateStepUpSearch({})).toEqual({
      taskId: '',
      state: 'STEP_UP_TRANSACTION_STATE_UNSPECIFIED',
      userId: '',
      providerId: '',
      targetType: 'TARGET_TYPE_UNSPECIFIED',
      createdAfter: null,
      createdBefore: null,
      pageSize: 50,
      pageToken: '',
    });
    const q = validateStepUpSearch({
      taskId: 't',
      state: 'STEP_UP_TRANSACTION_STATE_VERIFIED',
      targetType: 'TARGET_TYPE_TICKET',
      createdAfter: '2026-01-02T03:04:05.678Z',
      pageSize: 1000,
    });
    expect(q).toMatchObject({
      taskId: 't',
      state: 'STEP_UP_TRANSACTION_STATE_VERIFIED',
      targetType: 'TARGET_TYPE_TICKET',
      createdAfter: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      pageSize: 100,
    });
  });

  it.each([
    [[], /JSON object/],
    [{ state: 'VERIFIED' }, /state must be one of/],
    [{ targetType: 'TICKET' }, /targetType must be one of/],
    [{ pageSize: 1.5 }, /pageSize/],
    [{ pageSize: '10' }, /pageSize/],
    [{ createdAfter: '1700000000' }, /createdAfter must be an RFC 3339 date-time/],
    [{ createdBefore: '2026-13-45T00:00:00Z' }, /createdBefore/],
    [{ userId: 42 }, /userId must be a string/],
  ])('rejects %j', (body, msg) => {
    expect(() => validateStepUpSearch(body)).toThrow(msg);
  });
});

describe('normalizeTaskView', () => {
  it('gives an empty view every member of §2.4', () => {
    const v = normalizeTaskView({});
    for (const f of TASK_PATH_FIELDS) expect(v[f]).toBe('');
    expect(v.objectPermissions).toEqual({ delete: false, edit: false, read: false, extra: {} });
    expect(Object.keys(v.task).sort()).toEqual(
      [
        'actions',
        'analysisId',
        'annotations',
        'approverIds',
        'commentCount',
        'createdAt',
        'createdByUserId',
        'data',
        'deletedAt',
        'description',
        'displayName',
        'emergencyAccess',
        'externalRefs',
        'form',
        'id',
        'insightIds',
        'numericId',
        'origin',
        'policy',
        'state',
        'stepApproverIds',
      ].sort(),
    );
    expect(v.task.origin).toBe('TASK_ORIGIN_UNSPECIFIED');
    expect([v.task.state, v.task.stepApproverIds]).toEqual(['TASK_STATE_UNSPECIFIED', []]);
    expect(v.task.policy).toEqual({ id: '', policyGenerationId: '', current: null, history: [], next: [] });
  });

  it('passes unknown enum values through and fills nested shapes', () => {
    const v = normalizeTaskView({
      task: {
        numericId: 7,
        origin: 'TASK_ORIGIN_FROM_THE_FUTURE',
        actions: ['TASK_ACTION_TYPE_NEW', 0],
        externalRefs: [{ externalRefSource: 'EXTERNAL_REF_SOURCE_JIRA', name: 'IT-1' }],
        form: { id: 'f', fields: [{ name: 'a', stringField: { rules: { email: true } } }] },
        policy: {
          current: { id: 's', approval: { approval: { users: { userIds: ['u'] } }, state: 'APPROVAL_INSTANCE_STATE_SOMETHING_NEW' } },
          history: [{ id: 'h', wait: { name: 'w' } }],
          next: [{ accept: {} }],
        },
      },
    });
    expect(v.task.numericId).toBe('7');
    expect(v.task.origin).toBe('TASK_ORIGIN_FROM_THE_FUTURE');
    expect(v.task.actions).toEqual(['TASK_ACTION_TYPE_NEW', 'TASK_ACTION_TYPE_UNSPECIFIED']);
    expect(v.task.externalRefs).toEqual([{ externalRefSource: 'EXTERNAL_REF_SOURCE_JIRA', name: 'IT-1', url: '' }]);
    const field = v.task.form!.fields[0]!;
    expect(field.adminConfig).toEqual({ defaultValueCel: '', showToUser: false });
    expect(field.stringField).toEqual({ rules: { email: true } });
    expect(field.boolField).toBeUndefined();
    const cur = v.task.policy.current!;
    expect(cur.state).toBe('POLICY_STEP_STATE_UNSPECIFIED');
    expect(cur.approval!.state).toBe('APPROVAL_INSTANCE_STATE_SOMETHING_NEW');
    expect(cur.approval!.approval.requiresStepUpProviderId).toBe('');
    expect(cur.approval!.approval.users).toEqual({ userIds: ['u'], allowSelfApproval: false });
    expect(cur.approval!.approval.manager).toBeUndefined();
    expect(v.task.policy.history[0]!.wait).toEqual({ name: 'w', state: 'WAIT_INSTANCE_STATE_UNSPECIFIED' });
    expect(stepKind(cur)).toBe('approval');
    expect(stepKind(v.task.policy.next[0])).toBe('accept');
    expect(stepKind(null)).toBe('');
  });
});
