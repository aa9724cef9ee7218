// OAuth2 client-credentials token endpoint (RFC 6749 §4.4) of the embedded
// server, its clients, and the bearer check for every management route.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { generateJwkPair } from '../../lib/keypair.js';
import { importJWK, jwtVerify, decodeProtectedHeader } from 'jose';
import { ApiError } from '../../api/errors.js';
import { isoAt, nowSeconds, type Clock } from '../../lib/clock.js';
import { encodeKeySecret, CLIENT_ASSERTION_TYPE, KEY_SECRET_ISSUER, parseKeySecret } from '../../lib/client-secret.js';
import type { ServerModule } from '../module.js';
import type { AuthInfo, RequestContext } from '../router.js';
import type { Store } from '../store/db.js';
import { JWK_COLUMN } from '../store/json.js';
import { isLoopbackHost } from '../../lib/net.js';

export const DEMO_USERS = {
  admin: { id: 'user-ada', displayName: 'Ada Admin', email: 'ada@example.com' },
  ci: { id: 'user-ci', displayName: 'CI Robot', email: 'ci@example.com' },
} as const;

const KEY_CLIENT_ID = 'demo-admin@localhost/agctl-embedded';
const PLAIN_CLIENT_ID = 'demo-ci';
/** Maximum lifetime accepted for a client assertion. */
const MAX_ASSERTION_LIFETIME_S = 300;
const CLOCK_SKEW_S = 30;
/** Longest nonce or jti kept for replay protection. */
const MAX_REPLAY_MARK = 256;

const oauthError = (status: number, error: string, description: string) => new ApiError(status, error, description);

/** The token endpoint: every error it answers, the router's own included, is an RFC 6749 §5.2 error. */
export const TOKEN_PATH = '/auth/v1/token';

interface ClientRow {
  client_id: string;
  form: 'key' | 'plain';
  user_id: string;
  secret_sealed: string;
  /** CLIENT_KEY; NULL for a plain-form client. */
  public_jwk: string | null;
}

/** clients.public_jwk: the public key a key-form client signs its assertions with. */
const CLIENT_KEY = JWK_COLUMN;

export const authModule: ServerModule = {
  name: 'auth',
  migrate(store) {
    store.db.exec(`
      CREATE TABLE IF NOT EXISTS users (
        id TEXT PRIMARY KEY, display_name TEXT NOT NULL, email TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS clients (
        client_id TEXT PRIMARY KEY,
        form TEXT NOT NULL CHECK (form IN ('key', 'plain')),
        user_id TEXT NOT NULL REFERENCES users(id),
        secret_sealed TEXT NOT NULL,
        public_jwk TEXT,
        created_at TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS access_tokens (
        token_hash TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS access_tokens_expiry ON access_tokens (expires_at);
      CREATE TABLE IF NOT EXISTS used_assertions (jti TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
    `);
  },
  seed({ store, clock }) {
    const insUser = store.db.prepare('INSERT OR IGNORE INTO users (id, display_name, email) VALUES (?, ?, ?)');
    for (const u of Object.values(DEMO_USERS)) insUser.run(u.id, u.displayName, u.email);
    const ins = store.db.prepare(
      'INSERT INTO clients (client_id, form, user_id, secret_sealed, public_jwk, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const now = isoAt(clock.now());
    const { privateJwk: priv, publicJwk: pub } = generateJwkPair({ type: 'ed25519' });
    const keySecret = encodeKeySecret(KEY_SECRET_ISSUER, priv);
    ins.run(
      KEY_CLIENT_ID,
      'key',
      DEMO_USERS.admin.id,
      store.seal(keySecret, 'clients', KEY_CLIENT_ID, 'secret'),
      CLIENT_KEY.text(pub),
      now,
    );
    const plainSecret = randomBytes(32).toString('base64url');
    ins.run(PLAIN_CLIENT_ID, 'plain', DEMO_USERS.ci.id, store.seal(plainSecret, 'clients', PLAIN_CLIENT_ID, 'secret'), null, now);
    return {
      users: { admin: DEMO_USERS.admin.id, ci: DEMO_USERS.ci.id },
      clientUsers: { [KEY_CLIENT_ID]: DEMO_USERS.admin.id, [PLAIN_CLIENT_ID]: DEMO_USERS.ci.id },
    };
  },
  routes(router) {
    router.post(TOKEN_PATH, tokenEndpoint, { auth: false, maxBody: 64 * 1024 });
    // The caller's own identity (a service route: sdk-ts OpenAPI c1.api.auth.v1.Auth.Introspect; cone's whoami).
    router.get('/api/v1/auth/introspect', (ctx) => ({
      body: { principleId: ctx.auth!.clientId, userId: ctx.auth!.userId, roles: [], permissions: [], features: [] },
    }));
  },
};

export function listClients(store: Store): { clientId: string; clientSecret: string; form: 'key' | 'plain' }[] {
  const rows = store.db.prepare('SELECT * FROM clients ORDER BY form, client_id').all() as ClientRow[];
  return rows.map((r) => {
    const secret = store.open(r.secret_sealed, 'clients', r.client_id, 'secret');
    // In the form tenants issue, also for a data directory seeded before the embedded server used it (same key).
    const clientSecret = r.form === 'key' ? encodeKeySecret(KEY_SECRET_ISSUER, parseKeySecret(secret).jwk) : secret;
    return { clientId: r.client_id, clientSecret, form: r.form };
  });
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

/** Checks an `Authorization: Bearer` header; returns who is calling, or null. */
export function authenticateBearer(store: Store, clock: Clock, header: string | undefined): AuthInfo | null {
  if (!header) return null;
  const m = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i.exec(header);
  if (!m) return null;
  const row = store.db.prepare('SELECT client_id, user_id, expires_at FROM access_tokens WHERE token_hash = ?').get(hashToken(m[1]!)) as
    | { client_id: string; user_id: string; expires_at: number }
    | undefined;
  if (!row || row.expires_at <= nowSeconds(clock)) return null;
  return { clientId: row.client_id, userId: row.user_id };
}

async function tokenEndpoint(ctx: RequestContext) {
  const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
  if (ctx.req.headers.authorization) {
    // RFC 6749 §5.2: a 401 to a client that authenticated in the Authorization
    // header names the scheme it used.
    const scheme = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/.exec(ctx.req.headers.authorization)?.[0] ?? 'Basic';
    ctx.res.setHeader('WWW-Authenticate', `${scheme} realm="agctl"`);
    throw oauthError(401, 'invalid_client', 'client credentials must be sent in the request body, not in the Authorization header');
  }
  const type = String(ctx.req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw oauthError(400, 'invalid_request', 'the token request must be form-encoded (application/x-www-form-urlencoded)');
  }
  const form = new URLSearchParams((await ctx.raw()).toString('utf8'));
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1) throw oauthError(400, 'invalid_request', `parameter ${name} is repeated`);
  }
  const grant = form.get('grant_type');
  if (!grant) throw oauthError(400, 'invalid_request', 'grant_type is required');
  if (grant !== 'client_credentials')
    throw oauthError(400, 'unsupported_grant_type', `grant_type ${grant} is not supported; use client_credentials`);

  const client = form.get('client_assertion') ? await clientFromAssertion(ctx, form) : clientFromSecret(ctx.store, form);
  const now = nowSeconds(ctx.clock);
  const ttl = ctx.server.tokenTtlSeconds;
  const token = `agt_${randomBytes(32).toString('base64url')}`;
  ctx.store.write(() => {
    ctx.store.db.prepare('DELETE FROM access_tokens WHERE expires_at <= ?').run(now - 3600);
    ctx.store.db
      .prepare('INSERT INTO access_tokens (token_hash, client_id, user_id, expires_at) VALUES (?, ?, ?, ?)')
      .run(hashToken(token), client.client_id, client.user_id, now + ttl);
  });
  return { body: { access_token: token, token_type: 'Bearer', expires_in: ttl }, headers: noStore };
}

function findClient(store: Store, clientId: string): ClientRow | undefined {
  return store.db.prepare('SELECT * FROM clients WHERE client_id = ?').get(clientId) as ClientRow | undefined;
}

function clientFromSecret(store: Store, form: URLSearchParams): ClientRow {
  const id = form.get('client_id');
  const secret = form.get('client_secret');
  if (!id) throw oauthError(400, 'invalid_request', 'client_id is required in the request body');
  if (!secret)
    throw oauthError(401, 'invalid_client', 'client authentication is required: client_secret or client_assertion in the request body');
  const client = findClient(store, id);
  const expected =
    client && client.form === 'plain'
      ? Buffer.from(store.open(client.secret_sealed, 'clients', client.client_id, 'secret'))
      : randomBytes(32);
  const given = Buffer.from(secret);
  const same = given.length === expected.length && timingSafeEqual(given, expected);
  if (client?.form !== 'plain' || !same) throw oauthError(401, 'invalid_client', 'client authentication failed');
  return client;
}

async function clientFromAssertion(ctx: RequestContext, form: URLSearchParams): Promise<ClientRow> {
  if (form.get('client_assertion_type') !== CLIENT_ASSERTION_TYPE) {
    throw oauthError(400, 'invalid_request', `client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`);
  }
  if (form.get('client_secret')) throw oauthError(400, 'invalid_request', 'use either client_secret or client_assertion, not both');
  const assertion = form.get('client_assertion')!;
  const fail = (why: string): never => {
    throw oauthError(401, 'invalid_client', `client assertion rejected: ${why}`);
  };
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(assertion).alg;
  } catch {
    fail('not a JWT');
  }
  if (alg !== 'EdDSA') fail(`algorithm ${alg ?? 'none'} is not accepted (EdDSA only)`);
  let iss: unknown;
  try {
    iss = JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString('utf8')).iss;
  } catch {
    fail('unreadable claims');
  }
  if (typeof iss !== 'string' || !iss) return fail('iss is missing');
  const clientId = form.get('client_id');
  if (clientId && clientId !== iss) fail('client_id does not match the assertion issuer');
  const client = findClient(ctx.store, iss);
  if (client?.form !== 'key' || !client.public_jwk) return fail('unknown client');
  let key;
  try {
    key = await importJWK(CLIENT_KEY.value(client.public_jwk), 'EdDSA');
  } catch {
    return fail('the client key cannot be read');
  }
  const now = nowSeconds(ctx.clock);
  let payload;
  let nonce: unknown;
  try {
    let protectedHeader;
    ({ payload, protectedHeader } = await jwtVerify(assertion, key, {
      algorithms: ['EdDSA'],
      issuer: client.client_id,
      subject: client.client_id,
      audience: ownAudiences(ctx),
      currentDate: new Date(ctx.clock.now()),
      clockTolerance: CLOCK_SKEW_S,
      requiredClaims: ['exp'],
    }));
    nonce = protectedHeader.nonce;
  } catch (err) {
    return fail((err as Error).message);
  }
  if (typeof payload.exp !== 'number' || payload.exp - now > MAX_ASSERTION_LIFETIME_S + CLOCK_SKEW_S)
    fail(`exp is more than ${MAX_ASSERTION_LIFETIME_S} seconds ahead`);
  // Replay protection keys on what the assertion carries: the service's own
  // clients send a `nonce` header and no `jti` (service-notes.md §1); others
  // send a `jti`. Stricter than the service as far as its clients show: an
  // assertion with neither could be replayed until it expires, so it is refused.
  const marks: [string, unknown][] = [
    ['nonce', nonce],
    ['jti', payload.jti],
  ];
  const present = marks.filter(([, v]) => v !== undefined);
  if (present.length === 0) fail('it carries neither a nonce header nor a jti claim (one is needed against replays)');
  for (const [name, v] of present) {
    if (typeof v !== 'string' || v === '' || v.length > MAX_REPLAY_MARK)
      fail(`${name} must be a non-empty string of at most ${MAX_REPLAY_MARK} characters`);
  }
  ctx.store.write(() => {
    ctx.store.db.prepare('DELETE FROM used_assertions WHERE expires_at < ?').run(now - CLOCK_SKEW_S);
    const mark = ctx.store.db.prepare('INSERT OR IGNORE INTO used_assertions (jti, expires_at) VALUES (?, ?)');
    // A jti keeps its key of earlier versions (client, jti); a nonce is told apart from it.
    for (const [name, v] of present) {
      const used = mark.run(
        name === 'jti' ? `${client.client_id}\u0000${v as string}` : `${client.client_id}\u0000nonce\u0000${v as string}`,
        payload.exp!,
      );
      if (used.changes === 0) fail(`${name} was already used`);
    }
  });
  return client;
}

/**
 * The audiences an assertion may name: this server's own address, never the
 * request's Host header (which the caller chooses). That is the configured
 * public base URL when there is one and the address the request arrived on,
 * each as host name alone (what the service's clients send: service-notes.md
 * §1), as host:port, and as the base or token URL. On a loopback address the
 * loopback names (localhost, 127.0.0.1, ::1) name this server too. An IPv6
 * address is accepted with or without its brackets.
 */
function ownAudiences(ctx: Pick<RequestContext, 'baseUrl' | 'req'>): string[] {
  const bases = [ctx.baseUrl];
  const local = ctx.req.socket.localAddress?.replace(/^::ffff:/, '');
  if (local) bases.push(`http://${local.includes(':') ? `[${local}]` : local}:${ctx.req.socket.localPort}`);
  const out = new Set<string>();
  for (const base of bases) {
    let u: URL;
    try {
      u = new URL(base);
    } catch {
      continue;
    }
    const path = u.pathname.replace(/\/+$/, '');
    out.add(`${u.origin}${path}`).add(`${u.origin}${path}${TOKEN_PATH}`);
    const names = isLoopbackHost(u.hostname) ? [u.hostname, 'localhost', '127.0.0.1', '[::1]'] : [u.hostname];
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    for (const name of names) {
      out
        .add(name)
        .add(name.replace(/^\[(.*)\]$/, '$1'))
        .add(`${name}:${port}`);
    }
  }
  return [...out];
}
