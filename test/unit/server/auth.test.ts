// The embedded server's token endpoint (RFC 6749 §4.4, client authentication in
// the body, plain and key forms) and the bearer check of the management routes.
import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { SignJWT, UnsecuredJWT, importJWK, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { CLIENT_ASSERTION_TYPE, parseKeySecret } from '../../../src/lib/client-secret.js';
import { generateJwkPair } from '../../../src/lib/keypair.js';
import { hashToken } from '../../../src/server/routes/auth.js';
import { startTestServer } from '../../helpers/server.js';

const s = await startTestServer({ tokenTtlSeconds: 600 });
const app = s.demo.rules.appId as string;
const host = new URL(s.baseUrl).host;
const hostname = new URL(s.baseUrl).hostname;
const keyJwk = parseKeySecret(s.keyClient.clientSecret).jwk;
const keyClientId = s.keyClient.clientId;

/** A token request through node:http, which (unlike fetch) lets the test choose the Host header. */
function tokenWithHost(form: Record<string, string>, hostHeader: string): Promise<{ status: number; body: Record<string, any> }> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      `${s.baseUrl}/auth/v1/token`,
      {
        method: 'POST',
        headers: { host: hostHeader, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, any> }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function token(form: Record<string, string> | string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.baseUrl}/auth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

const nowS = () => Math.floor(s.clock.now() / 1000);

/**
 * A client assertion for the key client built as the service's own clients
 * build it (service-notes.md §1: a random nonce header, aud = host name without
 * port, nbf = iat - 120, exp = iat + 120, no jti), with overridable parts.
 */
async function assertion(
  o: {
    iss?: string;
    sub?: string;
    aud?: string;
    exp?: number;
    iat?: number;
    jti?: string;
    nonce?: string | null;
    jwk?: JWK;
    alg?: string;
  } = {},
) {
  const nonce = o.nonce === undefined ? randomBytes(16).toString('base64url') : o.nonce;
  const now = o.iat ?? nowS();
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: o.alg ?? 'EdDSA', ...(nonce === null ? {} : { nonce }) })
    .setIssuer(o.iss ?? keyClientId)
    .setSubject(o.sub ?? keyClientId)
    .setAudience(o.aud ?? hostname)
    .setIssuedAt(now)
    .setNotBefore(now - 120)
    .setExpirationTime(o.exp ?? now + 120);
  if (o.jti !== undefined) jwt.setJti(o.jti);
  return jwt.sign(await importJWK(o.jwk ?? keyJwk, o.alg ?? 'EdDSA'));
}

const keyForm = (a: string, extra: Record<string, string> = {}) => ({
  grant_type: 'client_credentials',
  client_id: keyClientId,
  client_assertion_type: CLIENT_ASSERTION_TYPE,
  client_assertion: a,
  ...extra,
});
const plainForm = (extra: Record<string, string> = {}) => ({
  grant_type: 'client_credentials',
  client_id: s.plainClient.clientId,
  client_secret: s.plainClient.clientSecret,
  ...extra,
});

function expectOAuthError(r: { status: number; body: Record<string, any> }, status: number, error: string, description?: RegExp) {
  expect(r.status).toBe(status);
  expect(Object.keys(r.body).sort()).toEqual(['error', 'error_description']);
  expect(r.body.error).toBe(error);
  expect(typeof r.body.error_description).toBe('string');
  if (description) expect(r.body.error_description).toMatch(description);
}

describe('token endpoint: success', () => {
  it('issues a bearer token for a plain secret in the body', async () => {
    const r = await token(plainForm());
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.stringMatching(/^agt_[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: 600 });
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('pragma')).toBe('no-cache');
    const use = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=1`, {
      headers: { authorization: `Bearer ${r.body.access_token}` },
      auth: false,
    });
    expect(use.status).toBe(200);
  });

  it("issues a bearer token for an assertion built as the service's clients build it (nonce, aud without port, no jti)", async () => {
    const a = await assertion();
    const payload = JSON.parse(Buffer.from(a.split('.')[1]!, 'base64url').toString('utf8'));
    expect(payload.jti).toBeUndefined();
    expect(payload.aud).toBe('127.0.0.1');
    const r = await token(keyForm(a));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.token_type).toBe('Bearer');
    const { client_id: _omit, ...withoutId } = keyForm(await assertion());
    expect((await token(withoutId)).status).toBe(200);
  });

  it("accepts as audience the server's own address: host name, host:port, base or token URL, and loopback names", async () => {
    const port = new URL(s.baseUrl).port;
    for (const aud of [hostname, host, s.baseUrl, `${s.baseUrl}/auth/v1/token`, 'localhost', `localhost:${port}`]) {
      const r = await token(keyForm(await assertion({ aud })));
      expect([aud, r.status]).toEqual([aud, 200]);
    }
  });

  it('accepts an assertion that carries a jti instead of a nonce', async () => {
    expect((await token(keyForm(await assertion({ nonce: null, jti: randomUUID() })))).status).toBe(200);
  });
});

describe('token endpoint: request errors (RFC 6749 §5.2)', () => {
  it('accepts only form-encoded bodies', async () => {
    const res = await fetch(`${s.baseUrl}/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(plainForm()),
    });
    expectOAuthError({ status: res.status, body: (await res.json()) as Record<string, any> }, 400, 'invalid_request', /form-encoded/);
  });

  it('refuses client credentials in the Authorization header with invalid_client, even beside valid body credentials', async () => {
    const basic = Buffer.from(`${s.plainClient.clientId}:${s.plainClient.clientSecret}`).toString('base64');
    const basicTry = await token({ grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
    expectOAuthError(basicTry, 401, 'invalid_client', /Authorization header/);
    // RFC 6749 §5.2: the 401 names the scheme the client used.
    expect(basicTry.headers.get('www-authenticate')).toBe('Basic realm="agctl"');
    expectOAuthError(await token(plainForm(), { authorization: `Basic ${basic}` }), 401, 'invalid_client');
    expect((await token(plainForm(), { authorization: 'Bearer abc' })).headers.get('www-authenticate')).toBe('Bearer realm="agctl"');
  });

  it('checks grant_type and repeated parameters', async () => {
    expectOAuthError(await token({ client_id: 'x', client_secret: 'y' }), 400, 'invalid_request', /grant_type is required/);
    expectOAuthError(await token(plainForm({ grant_type: 'password' })), 400, 'unsupported_grant_type');
    expectOAuthError(await token(`${new URLSearchParams(plainForm())}&client_id=other`), 400, 'invalid_request', /client_id is repeated/);
  });

  it('refuses wrong or missing plain credentials with invalid_client', async () => {
    expectOAuthError(await token(plainForm({ client_secret: 'wrong' })), 401, 'invalid_client', /^client authentication failed$/);
    expectOAuthError(await token(plainForm({ client_id: 'nobody' })), 401, 'invalid_client', /^client authentication failed$/);
    expectOAuthError(await token({ grant_type: 'client_credentials', client_id: s.plainClient.clientId }), 401, 'invalid_client');
    expectOAuthError(
      await token({ grant_type: 'client_credentials', client_secret: 'x' }),
      400,
      'invalid_request',
      /client_id is required/,
    );
    // the key client cannot authenticate with its secret sent as a plain secret
    expectOAuthError(
      await token({ grant_type: 'client_credentials', client_id: keyClientId, client_secret: s.keyClient.clientSecret }),
      401,
      'invalid_client',
    );
  });

  it('refuses a body over 64 KiB with 413, and another method with 405, both as OAuth errors', async () => {
    const r = await fetch(`${s.baseUrl}/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&pad=${'x'.repeat(65 * 1024)}`,
    });
    expectOAuthError(
      { status: r.status, body: (await r.json()) as Record<string, any> },
      413,
      'invalid_request',
      /larger than the limit of 65536 bytes/,
    );
    const get = await fetch(`${s.baseUrl}/auth/v1/token`);
    expectOAuthError(
      { status: get.status, body: (await get.json()) as Record<string, any> },
      405,
      'invalid_request',
      /method GET is not allowed/,
    );
    expect(get.headers.get('allow')).toBe('POST');
  });
});

describe('token endpoint: bad client assertions', () => {
  it('refuses another algorithm', async () => {
    const es = await assertion({ alg: 'ES256', jwk: generateJwkPair({ type: 'ec', namedCurve: 'P-256' }).privateJwk });
    expectOAuthError(await token(keyForm(es)), 401, 'invalid_client', /algorithm ES256 is not accepted/);
    const none = new UnsecuredJWT({ jti: randomUUID() })
      .setIssuer(keyClientId)
      .setSubject(keyClientId)
      .setAudience(host)
      .setExpirationTime(nowS() + 60)
      .encode();
    expectOAuthError(await token(keyForm(none)), 401, 'invalid_client', /algorithm none is not accepted/);
    expectOAuthError(await token(keyForm('not-a-jwt')), 401, 'invalid_client', /not a JWT/);
  });

  it('refuses a wrong audience', async () => {
    expectOAuthError(await token(keyForm(await assertion({ aud: 'evil.example.com' }))), 401, 'invalid_client', /aud/);
    expectOAuthError(await token(keyForm(await assertion({ aud: `${hostname}:1` }))), 401, 'invalid_client', /aud/);
  });

  it("takes the expected audience from its own address, never from the request's Host header", async () => {
    const evil = await tokenWithHost(keyForm(await assertion({ aud: 'evil.example' })), 'evil.example');
    expectOAuthError(evil, 401, 'invalid_client', /aud/);
    // the same request naming the server's own host passes: only the audience differs
    expect((await tokenWithHost(keyForm(await assertion()), 'evil.example')).status).toBe(200);
  });

  it('takes a configured public base URL as its own address too', async () => {
    const pub = await startTestServer({ extra: { publicBaseUrl: 'https://agctl.example.org:8443/' } });
    const pubKey = parseKeySecret(pub.keyClient.clientSecret).jwk;
    for (const [aud, status] of [
      ['agctl.example.org', 200],
      ['agctl.example.org:8443', 200],
      ['other.example.org', 401],
    ] as const) {
      const a = await assertion({ aud, jwk: pubKey });
      const r = await fetch(`${pub.baseUrl}/auth/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(keyForm(a)),
      });
      expect([aud, r.status]).toEqual([aud, status]);
    }
  });

  it('refuses an expiry more than 5 minutes ahead, or in the past', async () => {
    expectOAuthError(
      await token(keyForm(await assertion({ exp: nowS() + 3600 }))),
      401,
      'invalid_client',
      /exp is more than 300 seconds ahead/,
    );
    expectOAuthError(await token(keyForm(await assertion({ exp: nowS() - 120, iat: nowS() - 200 }))), 401, 'invalid_client', /exp/);
  });

  it('refuses a replayed nonce, even in a newly signed assertion', async () => {
    const a = await assertion();
    expect((await token(keyForm(a))).status).toBe(200);
    expectOAuthError(await token(keyForm(a)), 401, 'invalid_client', /nonce was already used/);
    const nonce = randomBytes(16).toString('base64url');
    expect((await token(keyForm(await assertion({ nonce })))).status).toBe(200);
    expectOAuthError(await token(keyForm(await assertion({ nonce, iat: nowS() + 1 }))), 401, 'invalid_client', /nonce was already used/);
  });

  it('refuses a reused jti', async () => {
    const jti = randomUUID();
    expect((await token(keyForm(await assertion({ nonce: null, jti })))).status).toBe(200);
    expectOAuthError(await token(keyForm(await assertion({ nonce: null, jti }))), 401, 'invalid_client', /jti was already used/);
    // a fresh nonce does not make a used jti good again
    expectOAuthError(await token(keyForm(await assertion({ jti }))), 401, 'invalid_client', /jti was already used/);
  });

  it('refuses an assertion with neither nonce nor jti, or with an unusable nonce', async () => {
    expectOAuthError(
      await token(keyForm(await assertion({ nonce: null }))),
      401,
      'invalid_client',
      /neither a nonce header nor a jti claim/,
    );
    expectOAuthError(await token(keyForm(await assertion({ nonce: '' }))), 401, 'invalid_client', /nonce must be a non-empty string/);
    expectOAuthError(await token(keyForm(await assertion({ nonce: 'x'.repeat(257) }))), 401, 'invalid_client', /nonce must be/);
  });

  it('refuses an unknown client, a foreign key, a mismatched client_id and a wrong subject', async () => {
    expectOAuthError(
      await token(keyForm(await assertion({ iss: 'nobody', sub: 'nobody' }), { client_id: 'nobody' })),
      401,
      'invalid_client',
      /unknown client/,
    );
    expectOAuthError(
      await token(
        keyForm(await assertion({ iss: s.plainClient.clientId, sub: s.plainClient.clientId }), { client_id: s.plainClient.clientId }),
      ),
      401,
      'invalid_client',
      /unknown client/,
    );
    expectOAuthError(
      await token(keyForm(await assertion({ jwk: generateJwkPair({ type: 'ed25519' }).privateJwk }))),
      401,
      'invalid_client',
      /signature/,
    );
    expectOAuthError(
      await token(keyForm(await assertion(), { client_id: s.plainClient.clientId })),
      401,
      'invalid_client',
      /client_id does not match/,
    );
    expectOAuthError(await token(keyForm(await assertion({ sub: 'someone-else' }))), 401, 'invalid_client', /sub/);
  });

  it('refuses an assertion with a wrong assertion type or beside a client_secret', async () => {
    expectOAuthError(
      await token(keyForm(await assertion(), { client_assertion_type: 'urn:other' })),
      400,
      'invalid_request',
      /client_assertion_type/,
    );
    expectOAuthError(await token(keyForm(await assertion(), { client_secret: 'x' })), 400, 'invalid_request', /not both/);
  });
});

describe('bearer check on /api/v1', () => {
  const rules = `/api/v1/apps/${app}/entitlement_configuration_rules?page_size=1`;
  const call = (authorization?: string) => s.api(rules, { auth: false, headers: authorization ? { authorization } : {} });

  it('answers 401 with WWW-Authenticate and an error body without a valid token', async () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'Bearer realm="agctl"'],
      ['Basic Zm9vOmJhcg==', 'Bearer realm="agctl"'],
      ['Bearer', 'Bearer realm="agctl"'],
      ['Bearer agt_unknown', 'Bearer realm="agctl", error="invalid_token"'],
      [`Bearer ${'x'.repeat(10)} extra`, 'Bearer realm="agctl", error="invalid_token"'],
    ];
    for (const [h, challenge] of cases) {
      const r = await call(h);
      expect(r.status).toBe(401);
      expect([h, r.headers.get('www-authenticate')]).toEqual([h, challenge]);
      expect(r.body).toEqual({ code: 16, message: 'a valid bearer access token is required', details: [] });
    }
  });

  it('refuses a token once it expired on the server clock', async () => {
    const t = (await token(plainForm())).body.access_token as string;
    expect((await call(`Bearer ${t}`)).status).toBe(200);
    expect((await call(`bearer   ${t}`)).status).toBe(200); // scheme is case-insensitive
    const { expires_at: exp } = s.server.store.db
      .prepare('SELECT expires_at FROM access_tokens WHERE token_hash = ?')
      .get(hashToken(t)) as { expires_at: number };
    expect(exp - nowS()).toBeGreaterThanOrEqual(599);
    const setClock = (ms: number) => (s.clock.offsetMs = ms - Date.now());
    try {
      setClock(exp * 1000 - 500); // half a second before expiry
      expect((await call(`Bearer ${t}`)).status).toBe(200);
      setClock(exp * 1000 + 10);
      const r = await call(`Bearer ${t}`);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="agctl", error="invalid_token"');
      // a new token works at the new time
      expect((await call(`Bearer ${(await token(plainForm())).body.access_token}`)).status).toBe(200);
    } finally {
      s.clock.offsetMs = 0;
    }
  });
});
