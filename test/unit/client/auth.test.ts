import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { CliError, Exit } from '../../../src/lib/exit.js';
import { ApiClient, errorFromResponse } from '../../../src/client/api.js';
import {
  ClientCredentialsFlow,
  MAX_REFRESH_MARGIN_S,
  MemoryTokenCache,
  StaticToken,
  assertionAudience,
  tokenAnswer as parseTokenAnswer,
  tokenUrlFor,
  type TokenCache,
} from '../../../src/client/auth.js';
import { HttpClient } from '../../../src/client/http.js';
import { Vault } from '../../../src/config/vault.js';
import { httpResponse } from '../../helpers/http-response.js';
import { CLIENT_ASSERTION_TYPE, encodeKeySecret } from '../../../src/lib/client-secret.js';
import { generateJwkPair } from '../../../src/lib/keypair.js';
import { sleep, type Clock } from '../../../src/lib/clock.js';
import { sendJson, tinyServer } from './tiny-server.js';

/** A clock tests set by hand. */
class FakeClock implements Clock {
  constructor(public ms = Date.parse('2030-01-01T00:00:00Z')) {}
  now() {
    return this.ms;
  }
  advanceSeconds(s: number) {
    this.ms += s * 1000;
  }
  sleep = sleep;
}

const srv = await tinyServer();
const http = new HttpClient({ sleep: async () => {} });
afterAll(() => http.close());

// The token endpoint of the tiny server: issues tok-1, tok-2, ...; the API accepts only tokens in `valid`.
let issued = 0;
let ttl = 3600;
const valid = new Set<string>();
let tokenAnswer: ((res: Parameters<typeof sendJson>[0]) => boolean) | undefined;
beforeEach(() => {
  issued = 0;
  ttl = 3600;
  valid.clear();
  tokenAnswer = undefined;
  srv.reset((req, res) => {
    if (req.path === '/auth/v1/token') {
      if (tokenAnswer?.(res)) return;
      const t = `tok-${++issued}`;
      valid.add(t);
      return sendJson(res, 200, { access_token: t, token_type: 'Bearer', expires_in: ttl });
    }
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!token || !valid.has(token))
      return sendJson(
        res,
        401,
        { code: 16, message: 'a valid bearer access token is required', details: [] },
        { 'www-authenticate': 'Bearer' },
      );
    sendJson(res, 200, { ok: true, token });
  });
});

const tokenRequests = () => srv.seen.filter((s) => s.path === '/auth/v1/token');
const apiRequests = () => srv.seen.filter((s) => s.path !== '/auth/v1/token');
const plain = { clientId: 'ci-bot', clientSecret: 'plain-secret-1' };
const flow = (cache: TokenCache = new MemoryTokenCache(), clock: Clock = new FakeClock(), creds = plain) =>
  new ClientCredentialsFlow(http, srv.url, creds, cache, clock);

describe('token request', () => {
  it('is form-encoded with a plain secret in the body, never in a header', async () => {
    const f = flow();
    expect(await f.token()).toBe('tok-1');
    const [req] = tokenRequests();
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req!.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(req!.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: 'ci-bot',
      client_secret: 'plain-secret-1',
    });
    expect(f.tokenUrl).toBe(`${srv.url}/auth/v1/token`);
    expect(tokenUrlFor('https://a.example.com/')).toBe('https://a.example.com/auth/v1/token');
  });

  it("signs the client assertion as the service's own clients do: EdDSA, random nonce header, aud = host name without port, nbf/exp = iat -/+ 120 s, no jti", async () => {
    const { privateJwk, publicJwk } = generateJwkPair({ type: 'ed25519' });
    const secret = encodeKeySecret('tenant-issuer', privateJwk);
    const clientId = 'admin@acme.example.com/agctl';
    const clock = new FakeClock(Date.now());
    const f = flow(new MemoryTokenCache(), clock, { clientId, clientSecret: secret });
    await f.fetch();
    await f.fetch();
    const forms = tokenRequests().map((r) => Object.fromEntries(new URLSearchParams(r.body)));
    expect(forms).toHaveLength(2);
    const key = await importJWK(publicJwk, 'EdDSA');
    const now = Math.floor(clock.now() / 1000);
    const nonces: string[] = [];
    for (const form of forms) {
      expect(Object.keys(form).sort()).toEqual(['client_assertion', 'client_assertion_type', 'client_id', 'grant_type']);
      expect(form.client_assertion_type).toBe(CLIENT_ASSERTION_TYPE);
      expect(form.client_id).toBe(clientId);
      expect(JSON.stringify(form)).not.toContain(secret.split(':v1:')[1]!.slice(0, 20));
      const header = decodeProtectedHeader(form.client_assertion!);
      expect(Object.keys(header).sort()).toEqual(['alg', 'nonce']);
      expect(header.alg).toBe('EdDSA');
      expect(Buffer.from(String(header.nonce), 'base64url')).toHaveLength(16);
      expect(header.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
      nonces.push(String(header.nonce));
      const { payload } = await jwtVerify(form.client_assertion!, key, { currentDate: new Date(clock.now()) });
      // the tiny server listens on 127.0.0.1:<port>: the audience is the host name alone
      expect(payload).toEqual({ iss: clientId, sub: clientId, aud: '127.0.0.1', iat: now, nbf: now - 120, exp: now + 120 });
    }
    expect(new Set(nonces).size).toBe(2);
  });

  it('names the host without port, scheme or brackets as the audience', () => {
    expect(assertionAudience('https://Acme.Example.com:8443/auth/v1/token')).toBe('acme.example.com');
    expect(assertionAudience('https://acme.example.com')).toBe('acme.example.com');
    expect(assertionAudience('http://[::1]:8080/auth/v1/token')).toBe('::1');
    expect(assertionAudience('http://[2001:DB8::1]/x')).toBe('2001:db8::1');
  });

  it('refuses an unusable key secret with exit 3, without echoing it', async () => {
    const bad = 'secret-token:issuer:v1:bm90LWEta2V5';
    const err = await flow(undefined, undefined, { clientId: 'x', clientSecret: bad })
      .token()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(Exit.Unauthenticated);
    expect((err as CliError).message).not.toContain('bm90LWEta2V5');
    // well-formed JWK fields holding no valid key
    const junk = encodeKeySecret('issuer', { kty: 'OKP', crv: 'Ed25519', x: 'AAAA', d: 'AAAA' });
    const err2 = await flow(undefined, undefined, { clientId: 'x', clientSecret: junk })
      .token()
      .catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(CliError);
    expect((err2 as CliError).exitCode).toBe(Exit.Unauthenticated);
    expect((err2 as CliError).message).toBe('the client secret is unusable: its key is not a valid Ed25519 private key');
    expect(tokenRequests()).toHaveLength(0);
  });

  it('maps invalid_client to exit 3 and other token errors to their HTTP status, caching nothing', async () => {
    const cache = new MemoryTokenCache();
    tokenAnswer = (res) => (sendJson(res, 401, { error: 'invalid_client', error_description: 'client authentication failed' }), true);
    const err = (await flow(cache)
      .token()
      .catch((e: unknown) => e)) as CliError;
    expect(err).toBeInstanceOf(CliError);
    expect(err.exitCode).toBe(Exit.Unauthenticated);
    expect(err.message).toBe('authentication failed: client authentication failed (invalid_client)');
    expect(cache.load(`${srv.url}/auth/v1/token`, 'ci-bot', plain.clientSecret)).toBeUndefined();

    tokenAnswer = (res) => (sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'nope' }), true);
    const err2 = (await flow(cache)
      .token()
      .catch((e: unknown) => e)) as CliError;
    expect(err2).toBeInstanceOf(CliError);
    expect([err2.status, err2.code, err2.exitCode, err2.message]).toEqual([
      400,
      'unsupported_grant_type',
      Exit.Invalid,
      'token request failed: HTTP 400 Bad Request: nope (unsupported_grant_type)',
    ]);

    tokenAnswer = (res) => (sendJson(res, 200, { token_type: 'Bearer' }), true);
    const err3 = (await flow(cache)
      .token()
      .catch((e: unknown) => e)) as CliError;
    expect(err3.exitCode).toBe(Exit.Server);
    expect(cache.load(`${srv.url}/auth/v1/token`, 'ci-bot', plain.clientSecret)).toBeUndefined();
  });

  it('accepts an answer without token_type, strips a leading "bearer " from the token, and refuses another token type', async () => {
    const url = 'https://t.example.com/auth/v1/token';
    expect(parseTokenAnswer({ access_token: 'abc', expires_in: 60 }, url)).toEqual({ accessToken: 'abc', expiresIn: 60 });
    expect(parseTokenAnswer({ access_token: 'abc', token_type: 'bearer' }, url)).toEqual({ accessToken: 'abc', expiresIn: 3600 });
    for (const raw of ['Bearer abc', 'bearer   abc', 'BEARER:abc', ' bearer: abc'])
      expect([raw, parseTokenAnswer({ access_token: raw }, url).accessToken]).toEqual([raw, 'abc']);
    // only a separated "bearer" prefix is a prefix: a token that merely starts with the word is kept
    expect(parseTokenAnswer({ access_token: 'bearerish-token' }, url).accessToken).toBe('bearerish-token');
    expect(() => parseTokenAnswer({ access_token: 'bearer ' }, url)).toThrow(/"access_token" is empty/);
    expect(() => parseTokenAnswer({ access_token: 'abc', token_type: 'DPoP' }, url)).toThrow(
      /"token_type" is "DPoP", expected "Bearer" or none$/,
    );
    expect(() => parseTokenAnswer({ access_token: 'abc', token_type: 7 }, url)).toThrow(/"token_type" is a number/);
    // through the flow: a service-style answer without token_type and with the prefix gives a usable token
    tokenAnswer = (res) => (sendJson(res, 200, { access_token: 'Bearer tok-x', expires_in: 600 }), true);
    expect(await flow().token()).toBe('tok-x');
  });

  it("says what failed once: the HTTP status, then the server's description and code when given", async () => {
    const answers: [(res: Parameters<typeof sendJson>[0]) => void, number, string][] = [
      [(res) => res.writeHead(500).end(), Exit.Server, 'token request failed: HTTP 500 Internal Server Error'],
      [
        (res) => sendJson(res, 503, { message: 'maintenance' }),
        Exit.Server,
        'token request failed: HTTP 503 Service Unavailable: maintenance',
      ],
      [
        (res) => sendJson(res, 429, { error: 'slow_down' }),
        Exit.RateLimited,
        'token request failed: HTTP 429 Too Many Requests (slow_down)',
      ],
      [(res) => res.writeHead(401).end(), Exit.Unauthenticated, 'authentication failed: HTTP 401 Unauthorized'],
      [(res) => res.writeHead(418).end(), Exit.Invalid, 'token request failed: HTTP 418'],
    ];
    for (const [answer, exitCode, message] of answers) {
      tokenAnswer = (res) => (answer(res), true);
      const err = (await flow()
        .token()
        .catch((e: unknown) => e)) as CliError;
      expect(err).toBeInstanceOf(CliError);
      expect([err.exitCode, err.message]).toEqual([exitCode, message]);
    }
  });

  it('does not follow a redirect (exit 9), and refuses a 2xx other than 200', async () => {
    for (const status of [301, 302, 307, 308]) {
      tokenAnswer = (res) => (res.writeHead(status, { location: `${srv.url}/other` }).end(), true);
      const err = (await flow()
        .token()
        .catch((e: unknown) => e)) as CliError;
      expect(err).toBeInstanceOf(CliError);
      expect([err.exitCode, err.message]).toEqual([
        Exit.Server,
        `the server redirected to ${srv.url}/other (HTTP ${status}); agctl does not follow redirects`,
      ]);
    }
    expect(srv.seen.filter((x) => x.path === '/other')).toEqual([]);
    tokenAnswer = (res) => (sendJson(res, 201, { access_token: 'tok', token_type: 'Bearer' }), true);
    const err = (await flow()
      .token()
      .catch((e: unknown) => e)) as CliError;
    expect([err.exitCode, err.message]).toEqual([Exit.Server, `unexpected response from ${srv.url}/auth/v1/token: HTTP 201, expected 200`]);
  });

  it('shares one request between concurrent callers', async () => {
    const f = flow();
    const tokens = await Promise.all([f.token(), f.token(), f.token()]);
    expect(tokens).toEqual(['tok-1', 'tok-1', 'tok-1']);
    expect(tokenRequests()).toHaveLength(1);
  });
});

describe('token cache', () => {
  it('reuses a long-lived token until 60 s before it expires', async () => {
    const clock = new FakeClock();
    const cache = new MemoryTokenCache();
    const f = flow(cache, clock);
    expect(await f.token()).toBe('tok-1');
    expect(cache.load(f.tokenUrl, 'ci-bot', plain.clientSecret)?.expiresAt).toBe(Math.floor(clock.now() / 1000) + 3600);
    clock.advanceSeconds(3600 - MAX_REFRESH_MARGIN_S - 1);
    expect(await f.token()).toBe('tok-1');
    expect(tokenRequests()).toHaveLength(1);
    clock.advanceSeconds(1); // exactly 60 s left: too close
    expect(await f.token()).toBe('tok-2');
    expect(tokenRequests()).toHaveLength(2);
    expect(MAX_REFRESH_MARGIN_S).toBe(60);
  });

  // The margin is the lesser of 60 s and a quarter of the lifetime: 7.5 s of a 30 s token, 15 s of a 60 s one.
  for (const [lifetime, margin] of [
    [30, 7.5],
    [60, 15],
    [240, 60],
  ] as const) {
    it(`reuses a token of ${lifetime} s until ${margin} s before it expires`, async () => {
      ttl = lifetime;
      const clock = new FakeClock();
      const f = flow(new MemoryTokenCache(), clock);
      expect(await f.token()).toBe('tok-1');
      clock.advanceSeconds(lifetime - margin - 1);
      expect(await f.token()).toBe('tok-1');
      expect(tokenRequests()).toHaveLength(1);
      clock.advanceSeconds(1);
      expect(await f.token()).toBe('tok-2');
      expect(tokenRequests()).toHaveLength(2);
    });
  }

  it('fetches every time a token that expires at once (expires_in 0)', async () => {
    ttl = 0;
    const f = flow();
    expect(await f.token()).toBe('tok-1');
    expect(await f.token()).toBe('tok-2');
  });

  it('is shared through the sealed files between flows (processes) for the same token URL and client', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agctl-cache-'));
    try {
      const vault = new Vault(dir, {});
      const fileCache: TokenCache = {
        load: (u, c, k) => vault.loadToken('default', u, c, k),
        save: (u, c, t, k) => vault.saveToken('default', u, c, t, k),
        remove: (u, c) => vault.removeToken('default', u, c),
      };
      const clock = new FakeClock();
      expect(await flow(fileCache, clock).token()).toBe('tok-1');
      expect(await flow({ ...fileCache }, clock).token()).toBe('tok-1');
      expect(await flow(fileCache, clock, { clientId: 'other-bot', clientSecret: 's' }).token()).toBe('tok-2');
      expect(tokenRequests()).toHaveLength(2);
      expect(new Vault(dir, {}).loadToken('default', `${srv.url}/auth/v1/token`, 'ci-bot')?.accessToken).toBe('tok-1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('401 handling', () => {
  it('drops the refused token, fetches a new one and retries once', async () => {
    const cache = new MemoryTokenCache();
    const f = flow(cache);
    const api = new ApiClient(srv.url, http, f);
    expect(await api.call('GET', '/api/v1/things')).toEqual({ ok: true, token: 'tok-1' });
    valid.delete('tok-1'); // the server forgets it (expired server-side, revoked...)
    expect(await api.call('GET', '/api/v1/things')).toEqual({ ok: true, token: 'tok-2' });
    expect(apiRequests().map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
    expect(cache.load(f.tokenUrl, 'ci-bot', plain.clientSecret)?.accessToken).toBe('tok-2');
  });

  it('retries only once: a second 401 is an error (exit 3)', async () => {
    srv.reset((req, res) => {
      if (req.path === '/auth/v1/token')
        return sendJson(res, 200, { access_token: `tok-${++issued}`, token_type: 'Bearer', expires_in: 3600 });
      sendJson(res, 401, { code: 16, message: 'a valid bearer access token is required', details: [] });
    });
    const api = new ApiClient(srv.url, http, flow());
    const err = (await api.call('GET', '/api/v1/things').catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(401);
    expect(apiRequests()).toHaveLength(2);
    expect(tokenRequests()).toHaveLength(2);
  });

  it('does not retry a static token (AGCTL_ACCESS_TOKEN)', async () => {
    const api = new ApiClient(srv.url, http, new StaticToken('static-1'));
    const err = (await api.call('GET', '/api/v1/things').catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(401);
    expect(apiRequests()).toHaveLength(1);
    expect(tokenRequests()).toHaveLength(0);
  });

  it('keeps a token another process saved meanwhile when dropping a refused one', () => {
    const cache = new MemoryTokenCache();
    const f = flow(cache);
    cache.save(f.tokenUrl, 'ci-bot', { accessToken: 'newer', expiresAt: 4_000_000_000 }, plain.clientSecret);
    expect(f.invalidate('older')).toBe(true);
    expect(cache.load(f.tokenUrl, 'ci-bot', plain.clientSecret)?.accessToken).toBe('newer');
    expect(f.invalidate('newer')).toBe(true);
    expect(cache.load(f.tokenUrl, 'ci-bot', plain.clientSecret)).toBeUndefined();
  });
});

describe('API client', () => {
  it('sends JSON with the bearer token and query parameters, skipping empty ones', async () => {
    const api = new ApiClient(`${srv.url}/`, http, flow());
    await api.call('DELETE', '/api/v1/apps/a%20b/x', { body: {}, query: { page_size: 7, page_token: undefined, q: '' } });
    const [req] = apiRequests();
    expect(req!.method).toBe('DELETE');
    expect(req!.path).toBe('/api/v1/apps/a%20b/x?page_size=7');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.body).toBe('{}');
  });

  it('turns error responses into ApiError with the server message and code', () => {
    const e1 = errorFromResponse(httpResponse(404, { code: 5, message: 'rule x not found', details: [{ a: 1 }] })) as ApiError;
    expect([e1.status, e1.code, e1.message, e1.details]).toEqual([404, 5, 'rule x not found', [{ a: 1 }]]);
    const e2 = errorFromResponse(httpResponse(401, { error: 'invalid_token', error_description: 'expired' })) as ApiError;
    expect([e2.status, e2.code, e2.message]).toEqual([401, 'invalid_token', 'expired']);
    const e3 = errorFromResponse(httpResponse(502, '<html>bad gateway</html>')) as ApiError;
    expect([e3.status, e3.code, e3.message]).toEqual([502, 13, "the server's answer has no message: <html>bad gateway</html>"]);
    const e4 = errorFromResponse(httpResponse(429, '')) as ApiError;
    expect([e4.code, e4.message]).toEqual([8, "the server's answer is empty"]);
    const e5 = errorFromResponse(httpResponse(302, '', { location: 'https://elsewhere.example.com/' }));
    expect(e5).toBeInstanceOf(CliError);
    expect((e5 as CliError).exitCode).toBe(Exit.Server);
  });
});
