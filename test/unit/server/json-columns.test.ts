// The JSON columns of the embedded server's store (src/server/store/json.ts):
// a row written by an earlier layout (a member missing) is read with the
// member at its default, text that is not JSON (or JSON of another kind) reads
// as the defaults instead of failing the route, and no file under src/server
// reads or writes a column with a bare JSON.parse or JSON.stringify.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { SignJWT, importJWK } from 'jose';
import { describe, expect, it, onTestFinished } from 'vitest';
import { RULE_SETTINGS } from '../../../src/api/rules.js';
import { shape } from '../../../src/api/shape.js';
import { CLIENT_ASSERTION_TYPE } from '../../../src/lib/client-secret.js';
import { generateJwkPair } from '../../../src/lib/keypair.js';
import { JSON_OBJECT, JWK_COLUMN, STRING_LIST, STRING_MAP, jsonColumn, jsonListColumn, nullable } from '../../../src/server/store/json.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** Runs an UPDATE on the server's store (a row as an earlier layout, or damage, left it). */
const edit = (s: TestServer, sql: string, ...params: unknown[]) => s.server.store.db.prepare(sql).run(...params);

describe('a JSON column kind', () => {
  it('reads text that is not JSON, or JSON of another kind, as its defaults', () => {
    const settings = jsonColumn(RULE_SETTINGS);
    const defaults = {
      requestPolicyId: '',
      requestSchemaId: '',
      emergencyGrantEnabled: false,
      emergencyGrantPolicyId: '',
      maxGrantDuration: '',
    };
    for (const text of ['', 'not json', '{"requestPolicyId":', '[1]', '"text"', 'null', '7'])
      expect(settings.value(text)).toEqual(defaults);
    const list = jsonListColumn(shape({ authMethod: 'string' }));
    expect(list.value('{')).toEqual([]);
    expect(list.value('{"authMethod":"a"}')).toEqual([]);
    expect(list.value('[{"authMethod":"a"},7,null,{}]')).toEqual([{ authMethod: 'a' }, { authMethod: '' }]);
    expect(STRING_MAP.value('{"a":"1","b":2,"c":null}')).toEqual({ a: '1' });
    expect(STRING_MAP.value('["a"]')).toEqual({});
    expect(STRING_LIST.value('["a",1,"b"]')).toEqual(['a', 'b']);
    expect(STRING_LIST.value('{"a":1}')).toEqual([]);
    expect(JSON_OBJECT.value('{"a":{"b":[1]}}')).toEqual({ a: { b: [1] } });
    expect(JSON_OBJECT.value('[]')).toEqual({});
    expect(JWK_COLUMN.value('{"kty":"OKP","crv":"Ed25519","x":"abc","extra":1}')).toEqual({ kty: 'OKP', crv: 'Ed25519', x: 'abc' });
    expect(JWK_COLUMN.value('}')).toEqual({});
  });

  it('keeps SQL NULL apart from a value when nullable', () => {
    const cidrs = nullable(STRING_LIST);
    expect(cidrs.text(null)).toBeNull();
    expect(cidrs.value(null)).toBeNull();
    expect(cidrs.value(cidrs.text(['10.0.0.0/8']))).toEqual(['10.0.0.0/8']);
    // Text that is not JSON is the kind's default, never NULL.
    expect(cidrs.value('not json')).toEqual([]);
  });
});

describe('rules.settings', () => {
  it('reads a row lacking members, and one that is not JSON, through the rule routes', async () => {
    const s = await startTestServer();
    const rules = '/api/v1/apps/crm-app/entitlement_configuration_rules';
    const [first, second] = (await s.api(`${rules}?page_size=2`)).body.list.map((r: { id: string }) => r.id);
    edit(s, 'UPDATE rules SET settings = ? WHERE id = ?', '{"requestPolicyId":"p"}', first);
    edit(s, 'UPDATE rules SET settings = ? WHERE id = ?', 'not json', second);
    const a = await s.api(`${rules}/${first}`);
    expect(a.body.routingRule.settings).toEqual({
      requestPolicyId: 'p',
      requestSchemaId: '',
      emergencyGrantEnabled: false,
      emergencyGrantPolicyId: '',
      maxGrantDuration: '',
    });
    const b = await s.api(`${rules}/${second}`);
    expect(b.status).toBe(200);
    expect(b.body.routingRule.settings.requestPolicyId).toBe('');
    expect((await s.api(`${rules}?page_size=100`)).status).toBe(200);
  });
});

describe('mcp_catalog', () => {
  it('reads config fields and auth modes lacking members at their defaults, and text that is not JSON as none', async () => {
    const s = await startTestServer();
    const { datadog, github } = s.demo.mcp.catalogIds;
    edit(s, 'UPDATE mcp_catalog SET config_fields = ?, auth_modes = ? WHERE id = ?', '[{"name":"site"},7]', '[{}]', datadog);
    const entry = await s.api(`/api/v1/mcp_server_catalog/${datadog}`);
    expect(entry.body.catalogEntry.configSchema.fields).toEqual([
      { name: 'site', displayName: '', description: '', placeholder: '', default: '', required: false, secret: false },
    ]);
    expect(entry.body.catalogEntry.authModes).toEqual([{ authMethod: '' }]);

    edit(s, 'UPDATE mcp_catalog SET config_fields = ?, auth_modes = ? WHERE id = ?', 'not json', '{', github);
    const bad = await s.api(`/api/v1/mcp_server_catalog/${github}`);
    expect(bad.status).toBe(200);
    expect(bad.body.catalogEntry.configSchema.fields).toEqual([]);
    expect(bad.body.catalogEntry.authModes).toEqual([]);
    expect((await s.api('/api/v1/mcp_server_catalog?page_size=100')).status).toBe(200);
  });
});

describe('mcp_servers', () => {
  const server = (s: TestServer, id: string) => s.api(`/api/v1/apps/ai-tools/mcp_servers/${id}`);

  it('reads auth values, OAuth2 state and tunnel lacking members at their defaults, and members of another type as unset', async () => {
    const s = await startTestServer();
    edit(
      s,
      'UPDATE mcp_servers SET auth_json = ?, oauth2_state_json = ? WHERE connector_id = ?',
      '{"mode":"MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE","scopes":"read"}',
      '{"serviceAuthorized":true}',
      'analytics-mcp',
    );
    const oauth = (await server(s, 'analytics-mcp')).body.mcpServer;
    expect(oauth.oauth2ClientId).toBe('');
    expect(oauth.oauth2Scopes).toBeNull();
    expect(oauth.oauth2ServiceAuthorized).toBe(true);
    expect(oauth.oauth2ServiceAuthorizedAt).toBeNull();
    expect(oauth.oauth2ServiceAuthorizedAsEmail).toBe('');

    edit(s, 'UPDATE mcp_servers SET tunnel_json = ? WHERE connector_id = ?', '{"bridgeId":"bridge-1"}', 'tickets-mcp');
    const tunneled = (await server(s, 'tickets-mcp')).body.mcpServer;
    expect([tunneled.tunneled, tunneled.tunnelBridgeId, tunneled.tunnelApplianceId]).toEqual([true, 'bridge-1', '']);
    edit(s, 'UPDATE mcp_servers SET tunnel_json = ? WHERE connector_id = ?', '{"bridgeId":5}', 'tickets-mcp');
    const number = (await server(s, 'tickets-mcp')).body.mcpServer;
    expect([number.tunneled, number.tunnelBridgeId]).toEqual([false, '']);
  });

  it('answers for a server whose JSON columns are not JSON, as a server with none of them set', async () => {
    const s = await startTestServer();
    edit(
      s,
      `UPDATE mcp_servers SET auth_json = 'x', secrets_json = '{', config_fields_json = '[', oauth2_state_json = '',
         tunnel_json = 'null' WHERE connector_id IN ('analytics-mcp', 'datadog-mcp')`,
    );
    const oauth = await server(s, 'analytics-mcp');
    expect(oauth.status).toBe(200);
    expect(oauth.body.mcpServer).toMatchObject({
      oauth2ClientId: '',
      oauth2CredentialsConfigured: false,
      oauth2ServiceAuthorized: false,
      tunneled: false,
      configFieldValues: {},
    });
    const hosted = await server(s, 'datadog-mcp');
    expect(hosted.status).toBe(200);
    expect(hosted.body.mcpServer.configFieldValues).toEqual({});
    expect((await s.api('/api/v1/apps/ai-tools/mcp_servers?page_size=100')).status).toBe(200);
    // An update starts from the defaults: it answers, and what it writes reads back.
    const update = await s.api('/api/v1/apps/ai-tools/mcp_servers/datadog-mcp/credentials', {
      method: 'POST',
      json: { hostedConfig: { mcpServerCatalogId: s.demo.mcp.catalogIds.datadog, configFields: { site: 'datadoghq.com', apiKey: 'k' } } },
    });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect(update.body.mcpServer.configFieldValues).toEqual({ site: 'datadoghq.com' });
  });
});

describe('tasks', () => {
  const task = (s: TestServer, id: string, expand = '') => s.api(`/api/v1/tasks/${id}${expand ? `?expand=${expand}` : ''}`);

  it('reads a task, form, policy, related references and related objects lacking members at their defaults', async () => {
    const s = await startTestServer();
    const id = s.demo.tasks.stepUp as string;
    edit(
      s,
      'UPDATE tasks SET task = ?, form = ?, policy = ?, related = ? WHERE id = ?',
      JSON.stringify({ id, displayName: 'Earlier' }),
      JSON.stringify({ displayName: 'Form' }),
      JSON.stringify({ id: 'policy-1', current: null }),
      JSON.stringify({ appId: 'crm-app', objects: { entitlements: ['ent-crm-admin'] } }),
      id,
    );
    edit(s, 'UPDATE task_objects SET body = ? WHERE id = ?', '{"displayName":"Admin"}', 'ent-crm-admin');
    const view = await task(s, id, 'entitlements');
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    const t = view.body.taskView.task;
    expect([t.id, t.displayName, t.description, t.commentCount, t.insightIds]).toEqual([id, 'Earlier', '', 0, []]);
    expect(t.form).toMatchObject({ displayName: 'Form', description: '', fields: [] });
    expect(t.policy).toMatchObject({ id: 'policy-1', policyGenerationId: '', current: null, history: [], next: [] });
    expect(view.body.expanded).toEqual([{ '@type': expect.any(String), id: 'ent-crm-admin', displayName: 'Admin' }]);
  });

  it('reads related references of another type as unset (a string is not a list of IDs)', async () => {
    const s = await startTestServer();
    const id = s.demo.tasks.noStepUp as string;
    expect((await task(s, id)).body.taskView.task.approverIds).toEqual(['user-ada']);
    edit(
      s,
      'UPDATE tasks SET related = ? WHERE id = ?',
      '{"appId":"crm-app","identityUserId":"user-ci","owners":{"manager":"user-ada"}}',
      id,
    );
    const view = await task(s, id);
    expect(view.status).toBe(200);
    expect(view.body.taskView.task.approverIds).toEqual([]);
  });

  it('answers for a task whose JSON columns are not JSON, in views and searches', async () => {
    const s = await startTestServer();
    const id = s.demo.tasks.noStepUp as string;
    edit(s, `UPDATE tasks SET task = 'x', form = '{', policy = '', related = '[' WHERE id = ?`, id);
    edit(s, `UPDATE task_objects SET body = 'not json' WHERE id = 'ent-crm-reports'`);
    const view = await task(s, id, '*');
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    expect(view.body.taskView.task).toMatchObject({ displayName: '', form: null, policy: { current: null }, approverIds: [] });
    const search = await s.api('/api/v1/search/tasks', {
      method: 'POST',
      json: { query: 'crm', assignedOrStepApproverUserId: 'user-ada' },
    });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    const stepUp = await task(s, s.demo.tasks.stepUp, 'entitlements');
    expect(stepUp.status).toBe(200);
  });
});

describe('webhook columns', () => {
  it('reads allowed ranges that are not a JSON list of strings as one range that admits nobody (shown as stored)', async () => {
    const s = await startTestServer();
    const { hmac, restricted } = s.demo.webhooks as Record<string, { listenerId: string; path: string }>;
    edit(s, 'UPDATE webhook_listeners SET allowed_cidrs = ? WHERE id = ?', 'not json', restricted!.listenerId);
    edit(s, 'UPDATE webhook_listeners SET allowed_cidrs = ? WHERE id = ?', '[5]', hmac!.listenerId);
    const listed = await s.api('/_embedded/v1/webhook_listeners?page_size=100');
    expect(listed.status).toBe(200);
    const cidrs = (id: string) => listed.body.list.find((l: { id: string }) => l.id === id).allowedCidrs;
    expect([cidrs(restricted!.listenerId), cidrs(hmac!.listenerId)]).toEqual([['not json'], ['[5]']]);
    for (const l of [restricted!, hmac!]) {
      const r = await fetch(s.baseUrl + l.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(r.status).toBe(403);
    }
  });

  it('serves the demo key set without a key that is not JSON', async () => {
    const s = await startTestServer();
    edit(s, `UPDATE webhook_demo_keys SET public_jwk = 'not json'`);
    const r = await fetch(s.baseUrl + s.demo.webhooks.jwt.jwksPath);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ keys: [] });
  });
});

describe('read at start-up', () => {
  it('starts on a data directory whose saved demo fragment and sealed demo key are not JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agctl-json-columns-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const sealKey = Buffer.alloc(32, 9);
    const first = await startTestServer({ dataDir: dir, sealKey, autoClose: false });
    const kid = first.demo.webhooks.jwt.kid as string;
    expect(first.demo.webhooks.jwt.privateJwk.kty).toBe('EC');
    const { store } = first.server;
    store.setMeta('seed:mcp', 'not json');
    edit(
      first,
      'UPDATE webhook_demo_keys SET private_sealed = ? WHERE kid = ?',
      store.seal('{', 'webhook_demo_keys', kid, 'private_jwk'),
      kid,
    );
    await first.close();
    const again = await startTestServer({ dataDir: dir, sealKey, autoClose: false });
    try {
      expect(again.demo.mcp).toBeUndefined();
      expect(again.demo.tasks.stepUp).toBeTruthy();
      expect(again.demo.webhooks.jwt.privateJwk).toEqual({});
      expect((await again.api('/api/v1/apps/ai-tools/mcp_servers/wiki-mcp')).status).toBe(200);
    } finally {
      await again.close();
    }
  });
});

describe('clients.public_jwk', () => {
  it('rejects the assertion of a client whose key is not JSON (401, not a failed server)', async () => {
    const s = await startTestServer();
    edit(s, `UPDATE clients SET public_jwk = 'not json' WHERE form = 'key'`);
    const id = s.keyClient.clientId;
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({ nonce: 'n-1' })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer(id)
      .setSubject(id)
      .setAudience(new URL(s.baseUrl).hostname)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(await importJWK(generateJwkPair({ type: 'ed25519' }).privateJwk, 'EdDSA'));
    const res = await fetch(`${s.baseUrl}/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: jwt }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });
});

/**
 * The uses of JSON.parse and JSON.stringify under src/server that are not a
 * store column, by file: a line of the file must hold one of the texts.
 */
const NOT_COLUMNS: Record<string, Record<string, string>> = {
  'app.ts': {
    'JSON.parse(buf.toString': 'a request body',
    'JSON.stringify(result.body)': 'an answer body',
  },
  'paging.ts': {
    'Buffer.from(JSON.stringify(key))': 'a page token',
    'JSON.parse(Buffer.from(token': 'a page token',
  },
  'routes/auth.ts': { "JSON.parse(Buffer.from(assertion.split('.')[1]": "a client assertion's claims" },
  'webhooks/runs.ts': {
    'JSON.stringify runs out of stack': 'a comment',
    'return JSON.parse(text) as unknown': "a run's context: the event body's bytes as received, shown as text when they do not parse",
  },
  'store/json.ts': { 'JSON.parse(text)': 'the columns themselves', 'JSON.stringify(value)': 'the columns themselves' },
};

describe('the JSON columns guard', () => {
  it('finds no JSON.parse or JSON.stringify under src/server but the uses that are not store columns', () => {
    const root = new URL('../../../src/server/', import.meta.url).pathname;
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const stray: string[] = [];
    const used = new Set<string>();
    for (const file of files) {
      const name = relative(root, join(root, file)).split('\\').join('/');
      for (const [i, line] of readFileSync(join(root, file), 'utf8').split('\n').entries()) {
        if (!/JSON\.(parse|stringify)\b/.test(line)) continue;
        const allowed = Object.keys(NOT_COLUMNS[name] ?? {}).find((t) => line.includes(t));
        if (allowed) used.add(`${name}: ${allowed}`);
        else stray.push(`src/server/${name}:${i + 1}: ${line.trim()}`);
      }
    }
    expect(stray, 'read and write store columns through src/server/store/json.ts').toEqual([]);
    // Every allowed use is still there (a stale entry would let a column in).
    expect([...used].sort()).toEqual(
      Object.entries(NOT_COLUMNS)
        .flatMap(([f, t]) => Object.keys(t).map((x) => `${f}: ${x}`))
        .sort(),
    );
  });
});
