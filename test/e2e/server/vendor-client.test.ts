// A client written from the vendor's own rules, not from agctl's code: it
// parses the key secret as the vendor's clients do (split on ':' into four
// parts, `v1` third, unpadded base64url of an Ed25519 private JWK), signs the
// assertion as they do (service-notes.md §1), and sends search requests of the
// vendor OpenAPI's shapes with every scalar member at its protobuf default
// (false, 0, "", [], the enum's …_UNSPECIFIED), as protobuf JSON clients may.
// The embedded server and the fake tenant must both answer it.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { SignJWT, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_FILE } from '../../fake-tenant/contract.js';
import { startFakeTenant, type FakeTenant } from '../../fake-tenant/server.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

type Schema = { type?: string; enum?: string[]; items?: Schema; allOf?: Schema[]; $ref?: string; properties?: Record<string, Schema> };
const spec = load(readFileSync(SPEC_FILE, 'utf8')) as { components: { schemas: Record<string, Schema> } };

/** Every scalar member of a request schema at its default (an enum's is its first value, `…UNSPECIFIED`). */
function defaultsOf(name: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, raw] of Object.entries(spec.components.schemas[name]!.properties!)) {
    // A Timestamp or Duration (allOf) or another message ($ref) has presence: a client leaves it out.
    if (raw.allOf || raw.$ref) continue;
    const s = raw;
    if (s.type === 'array') out[k] = [];
    else if (s.type === 'boolean') out[k] = false;
    else if (s.type === 'integer' || s.type === 'number') out[k] = 0;
    else if (s.type === 'string') out[k] = s.enum ? s.enum[0] : '';
  }
  return out;
}

/** The vendor's parse of a key secret (cone's ParseSecret): four parts, `v1` third, raw base64url, an Ed25519 private key. */
function vendorParseSecret(secret: string): JWK {
  const parts = secret.split(':');
  const items = [...parts.slice(0, 3), parts.slice(3).join(':')];
  if (parts.length < 4 || items[2] !== 'v1') throw new Error('invalid client secret');
  if (!/^[A-Za-z0-9_-]+$/.test(items[3]!)) throw new Error('invalid client secret: not raw base64url');
  const jwk = JSON.parse(Buffer.from(items[3]!, 'base64url').toString('utf8')) as JWK;
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x) throw new Error('invalid client secret: not an Ed25519 private key');
  return jwk;
}

/** Token, then the two search requests, as the vendor's client sends them. */
async function vendorClient(baseUrl: string, clientId: string, clientSecret: string) {
  const jwk = vendorParseSecret(clientSecret);
  const now = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'EdDSA', nonce: randomBytes(16).toString('base64url') } as { alg: string })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(new URL(baseUrl).hostname)
    .setIssuedAt(now)
    .setNotBefore(now - 120)
    .setExpirationTime(now + 120)
    .sign(await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA'));
  const form = {
    client_id: clientId,
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
  };
  const tok = await fetch(`${baseUrl}/auth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  expect(tok.status, await tok.clone().text()).toBe(200);
  const token = ((await tok.json()) as { access_token: string }).access_token;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { post };
}

const TASK_SEARCH = defaultsOf('c1.api.task.v1.TaskSearchRequest');
const STEP_UP_SEARCH = defaultsOf('c1.api.stepup.v1.SearchStepUpTransactionsRequest');

describe('the request shapes', () => {
  it('hold members at their defaults the embedded server does not implement', () => {
    expect(TASK_SEARCH).toMatchObject({ includeDeleted: false, taskTypes: [], pageSize: 0, query: '' });
    expect(Object.values(TASK_SEARCH).some((v) => typeof v === 'string' && v.endsWith('_UNSPECIFIED'))).toBe(true);
    expect(STEP_UP_SEARCH).toMatchObject({
      state: 'STEP_UP_TRANSACTION_STATE_UNSPECIFIED',
      targetType: 'TARGET_TYPE_UNSPECIFIED',
      pageSize: 0,
      taskId: '',
    });
  });
});

let server: TestServer;
let tenant: FakeTenant;
beforeAll(async () => {
  [server, tenant] = await Promise.all([startTestServer(), startFakeTenant()]);
});
afterAll(() => tenant?.close());

const targets = () => [
  { name: 'agctl serve', baseUrl: server.baseUrl, clientId: server.keyClient.clientId, clientSecret: server.keyClient.clientSecret },
  { name: 'the fake tenant', baseUrl: tenant.baseUrl, clientId: tenant.clientId, clientSecret: tenant.clientSecret },
];

describe.each(['agctl serve', 'the fake tenant'])('a vendor-written client against %s', (name) => {
  const target = () => targets().find((t) => t.name === name)!;

  it('accepts the key secret it issued: secret-token:conductorone.com:v1:<key>, the key {kty, crv, x, d}', () => {
    const { clientSecret } = target();
    expect(clientSecret.startsWith('secret-token:conductorone.com:v1:')).toBe(true);
    expect(Object.keys(vendorParseSecret(clientSecret))).toEqual(['kty', 'crv', 'x', 'd']);
  });

  it('searches tasks with every member at its default: the same answer as an empty search', async () => {
    const t = target();
    const c = await vendorClient(t.baseUrl, t.clientId, t.clientSecret);
    const withDefaults = await c.post('/api/v1/search/tasks', TASK_SEARCH);
    expect(withDefaults.status, JSON.stringify(withDefaults.body)).toBe(200);
    const empty = await c.post('/api/v1/search/tasks', {});
    expect(withDefaults.body).toEqual(empty.body);
    // The embedded server has demo tasks: the defaults filtered none out.
    if (name === 'agctl serve') expect((empty.body.list as unknown[]).length).toBeGreaterThan(0);
  });

  it('searches step-up transactions with every member at its default', async () => {
    const t = target();
    const c = await vendorClient(t.baseUrl, t.clientId, t.clientSecret);
    const r = await c.post('/api/v1/search/step-up/transactions', STEP_UP_SEARCH);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual((await c.post('/api/v1/search/step-up/transactions', {})).body);
  });
});

describe('a member set to a value the embedded server does not implement', () => {
  it('is still refused by name, not ignored', async () => {
    const c = await vendorClient(server.baseUrl, server.keyClient.clientId, server.keyClient.clientSecret);
    const r = await c.post('/api/v1/search/tasks', { ...TASK_SEARCH, includeDeleted: true });
    expect(r.status).toBe(400);
    expect(String(r.body.message)).toMatch(/^includeDeleted: this filter is not implemented/);
  });
});
