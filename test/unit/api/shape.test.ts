// The member tables of src/api/shape.ts, and the shapes declared with them:
// what a client check, a server view, a request parse and a normalization
// derive from one declaration.
import { describe, expect, it } from 'vitest';
import { RULE } from '../../../src/api/rules.js';
import { answerProblem, itemProblem, normalize, parseRequest, shape, shapeOf, viewOf } from '../../../src/api/shape.js';
import { normalizeStepUpTransaction, stepUpTransactionProblem } from '../../../src/api/tasks.js';
import { CREATE_LISTENER_REQUEST, LISTENER, LIST_RUNS_RESPONSE } from '../../../src/api/webhook-listeners.js';
import { catalogEntryProblem, catalogFields, configFieldsOf } from '../../../src/api/mcp-catalog.js';
import { toTransaction } from '../../../src/server/routes/step-up-transactions.js';

const rule = {
  id: 'r1',
  appId: 'a',
  displayName: 'R',
  description: '',
  condition: 'true',
  enabled: true,
  priority: 10,
  settings: { requestPolicyId: 'p', maxGrantDuration: '3600s' },
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  deletedAt: null,
};

describe('itemProblem (the client check of an item)', () => {
  it('accepts a full rule, a rule of only its ID, and members left null', () => {
    expect(itemProblem(RULE, rule, 'a rule')).toBeUndefined();
    expect(itemProblem(RULE, { id: 'r1' }, 'a rule')).toBeUndefined();
    expect(itemProblem(RULE, { id: 'r1', settings: null, priority: null, unknownMember: [1] }, 'a rule')).toBeUndefined();
  });

  it.each([
    [null, 'is null, expected a rule'],
    [undefined, 'is missing, expected a rule'],
    [[rule], 'is an array, expected a rule'],
    [{ ...rule, id: undefined }, 'has no "id"'],
    [{ ...rule, id: '' }, 'has no "id"'],
    [{ ...rule, id: 7 }, 'has no "id"'],
    [{ ...rule, priority: '10' }, 'has "priority" as a string, expected a number'],
    [{ ...rule, enabled: 'yes' }, 'has "enabled" as a string, expected a boolean'],
    [{ ...rule, settings: 'x' }, 'has "settings" as a string, expected an object'],
    [{ ...rule, settings: { maxGrantDuration: 3600 } }, 'has "settings.maxGrantDuration" as a number, expected a string'],
    [{ ...rule, deletedAt: 5 }, 'has "deletedAt" as a number, expected a string'],
  ])('a rule %j: %s', (value, problem) => {
    expect(itemProblem(RULE, value, 'a rule')).toBe(problem);
  });

  it('checks every declared member of a listener, nested ones and required objects included', () => {
    const l = {
      id: 'l1',
      url: 'http://x/api/v1/webhooks/incoming/l1',
      authMethod: 'HMAC',
      automation: { id: 'a1', published: true, triggerEnabled: true },
    };
    expect(itemProblem(LISTENER, l, 'a listener')).toBeUndefined();
    // An auth method this version does not know is not refused (a newer server may add one).
    expect(itemProblem(LISTENER, { ...l, authMethod: 'MTLS' }, 'a listener')).toBeUndefined();
    expect(itemProblem(LISTENER, { ...l, automation: undefined }, 'a listener')).toBe('has no "automation"');
    expect(itemProblem(LISTENER, { ...l, automation: { ...l.automation, published: 'yes' } }, 'a listener')).toBe(
      'has "automation.published" as a string, expected a boolean',
    );
    expect(itemProblem(LISTENER, { ...l, allowedCidrs: ['10.0.0.0/8', 5] }, 'a listener')).toBe(
      'has "allowedCidrs" as an array, expected an array of strings',
    );
  });

  it('step-up transactions and catalog entries are checked from their tables', () => {
    expect(stepUpTransactionProblem({ id: 't1', state: 'STEP_UP_TRANSACTION_STATE_SOMETHING_NEW' })).toBeUndefined();
    expect(stepUpTransactionProblem({ id: 't1', approveTask: { taskId: 7 } })).toBe(
      'has "approveTask.taskId" as a number, expected a string',
    );
    expect(stepUpTransactionProblem({ id: 't1', claims: 'x' })).toBe('has "claims" as a string, expected an object');
    expect(catalogEntryProblem({ id: 'c1', configSchema: { fields: 'x' } })).toBe(
      'has "configSchema.fields" as a string, expected an array',
    );
    // Entries of the lists are read where they are used: one that cannot be read is skipped there.
    expect(
      catalogEntryProblem({ id: 'c1', authModes: [5], configSchema: { fields: [null, { name: 'k', secret: true, default: 'd' }] } }),
    ).toBeUndefined();
    expect(
      catalogFields({
        id: 'c1',
        configSchema: { fields: [null, { name: 7 }, { name: 'k', secret: true, default: 'd', required: 'yes' }] },
      }),
    ).toEqual([{ name: 'k', displayName: '', description: '', placeholder: '', default: '', required: false, secret: true }]);
  });
});

describe('answerProblem (the client check of an answer envelope)', () => {
  it('names the member of the envelope, items of arrays of a shape included', () => {
    expect(answerProblem(LIST_RUNS_RESPONSE, { runs: [], total: 0 })).toBeUndefined();
    expect(answerProblem(LIST_RUNS_RESPONSE, { total: 0 })).toBe('"runs" is missing, expected an array');
    expect(answerProblem(LIST_RUNS_RESPONSE, { runs: {}, total: 0 })).toBe('"runs" is an object, expected an array');
    expect(answerProblem(LIST_RUNS_RESPONSE, { runs: [], total: '1' })).toBe('"total" is a string, expected a number');
    expect(answerProblem(LIST_RUNS_RESPONSE, { runs: [7], total: 1 })).toBe('"runs[0]" is a number, expected an object');
    expect(answerProblem(LIST_RUNS_RESPONSE, { runs: [{ number: '1' }], total: 1 })).toBe(
      '"runs[0].number" is a string, expected a number',
    );
  });
});

describe('viewOf (the server view)', () => {
  it('keeps the declared order and drops members left undefined', () => {
    const S = shape({ a: { kind: 'string' }, b: { kind: 'number', optional: true }, c: { kind: 'boolean' } });
    const v = viewOf(S, { c: true, b: undefined, a: 'x' });
    expect(JSON.stringify(v)).toBe('{"a":"x","c":true}');
  });

  it('takes every declared member, one it may leave out included: a forgotten one fails the typecheck', () => {
    const S = shape({ a: 'string', b: { kind: 'number', optional: true } });
    // @ts-expect-error `b` is declared: a view names it, undefined when unset
    expect(viewOf(S, { a: 'x' })).toEqual({ a: 'x' });
  });
});

describe('shapeOf (a table of members of a type declared elsewhere)', () => {
  type T = { list: string[] | null; map: Record<string, string>; task: { id: string; n: number } };
  it('accepts members of the type with their kinds, nested ones included', () => {
    const S = shapeOf<T>()({ list: 'array', map: 'object', task: { kind: 'object', of: { id: 'string' } } });
    expect(itemProblem(S, { task: { id: 1 } }, 'a T')).toBe('has "task.id" as a number, expected a string');
  });

  it('fails the typecheck for a member the type lacks or types otherwise', () => {
    // @ts-expect-error no member `lists`
    shapeOf<T>()({ lists: 'array' });
    // @ts-expect-error `map` is not an array
    shapeOf<T>()({ map: 'array' });
    // @ts-expect-error no member `task.ids`
    shapeOf<T>()({ task: { kind: 'object', of: { ids: 'string' } } });
    expect(true).toBe(true);
  });
});

describe('parseRequest (the server request parse)', () => {
  const fail = (m: string) => new Error(m);
  it('refuses what the declaration refuses, with the member named (or its own message)', () => {
    expect(() => parseRequest(CREATE_LISTENER_REQUEST, [], fail)).toThrow('request body must be a JSON object');
    expect(() => parseRequest(CREATE_LISTENER_REQUEST, {}, fail)).toThrow('authMethod must be "HMAC" or "JWT"');
    expect(() => parseRequest(CREATE_LISTENER_REQUEST, { authMethod: '' }, fail)).toThrow('authMethod must be "HMAC" or "JWT"');
    expect(() => parseRequest(CREATE_LISTENER_REQUEST, { authMethod: 'HMAC', jwksUrl: 5 }, fail)).toThrow('jwksUrl must be a string');
    expect(() => parseRequest(CREATE_LISTENER_REQUEST, { authMethod: 'HMAC', automation: { triggerEnabled: 1 } }, fail)).toThrow(
      'automation.triggerEnabled must be a boolean',
    );
    const S = shape({ state: { kind: 'string', values: ['A', 'B'] }, n: { kind: 'number' } });
    expect(() => parseRequest(S, { state: 'C' }, fail)).toThrow('state must be a string');
    expect(() => parseRequest(S, { n: '1' }, fail)).toThrow('n must be a number');
    // An optional enum left empty, and members left null, are unset.
    expect(parseRequest(S, { state: '', n: null }, fail)).toEqual({ state: '', n: null });
  });
});

describe('normalize (a received value given its full shape)', () => {
  it('fills in defaults, reads empty nullable members as null, keeps one-of objects only when set', () => {
    expect(normalizeStepUpTransaction({ id: 't1', createdAt: '', claims: 'x', extra: 1 })).toEqual({
      id: 't1',
      state: 'STEP_UP_TRANSACTION_STATE_UNSPECIFIED',
      providerId: '',
      userId: '',
      claims: null,
      errorMessage: '',
      createdAt: null,
      updatedAt: null,
      expiresAt: null,
    });
    const t = normalizeStepUpTransaction({ id: 't1', approveTask: { taskId: 'x', more: 1 }, test: { a: 1 }, claims: { c: 1 } });
    expect(t.approveTask).toEqual({ taskId: 'x', policyStepId: '' });
    expect(t.test).toEqual({});
    expect(t.claims).toEqual({ c: 1 });
    expect(Object.keys(t)).toEqual([
      'id',
      'state',
      'approveTask',
      'test',
      'providerId',
      'userId',
      'claims',
      'errorMessage',
      'createdAt',
      'updatedAt',
      'expiresAt',
    ]);
    expect(normalize(RULE, null).settings).toEqual({
      requestPolicyId: '',
      requestSchemaId: '',
      emergencyGrantEnabled: false,
      emergencyGrantPolicyId: '',
      maxGrantDuration: '',
    });
  });
});

describe("configFieldsOf (a catalog entry's config fields, on both sides)", () => {
  it("fills in each field, skips those without a name or not objects, drops a secret's default", () => {
    expect(
      configFieldsOf([
        { name: 'site', default: 'us1', required: 'yes' },
        { name: 'key', secret: true, default: 'x' },
        { displayName: 'nameless' },
        'x',
      ]),
    ).toEqual([
      { name: 'site', displayName: '', description: '', placeholder: '', default: 'us1', required: false, secret: false },
      { name: 'key', displayName: '', description: '', placeholder: '', default: '', required: false, secret: true },
    ]);
    expect(configFieldsOf(null)).toEqual([]);
  });
});

describe('the embedded server views of the declared shapes', () => {
  it('a step-up transaction view passes the client check and is already its full shape', () => {
    const row = {
      id: 't1',
      task_id: 'k1',
      step_id: 's1',
      user_id: 'u1',
      provider_id: 'p1',
      token_sealed: 'x',
      state: 'pending' as const,
      created_at: 0,
      expires_at: 1000,
      verified_at: null,
      used_at: null,
    };
    for (const now of [0, 2000]) {
      const view = toTransaction(row, now);
      expect(stepUpTransactionProblem(view)).toBeUndefined();
      expect(JSON.stringify(normalizeStepUpTransaction(view))).toBe(JSON.stringify(view));
    }
  });
});
