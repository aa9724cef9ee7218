// OAuth2 client-credentials token flow (service-api.md §5.1, DESIGN.md §5,
// service-notes.md §1): POST {base}/auth/v1/token, form-encoded, credentials in
// the body; a plain secret goes as client_secret, a key secret signs an EdDSA
// client_assertion built as the service's own clients build it.
// Tokens are cached per (token URL, client ID) and bound to the secret that
// fetched them; one is reused until shortly before it expires (refreshMargin).
// A plain secret goes only over https or to this machine, unless the user
// allowed plain http (--insecure-http): see sentInClear below.
import { randomBytes } from 'node:crypto';
import { CliError, Exit, exitCodeForStatus } from '../lib/exit.js';
import { CLIENT_ASSERTION_TYPE, isKeySecret, parseKeySecret } from '../lib/client-secret.js';
import type { Clock } from '../lib/clock.js';
import { isLoopbackHost } from '../lib/net.js';
import type { CachedToken } from '../config/vault.js';
import { errorFromResponse, jsonObjectBody, serverMessage, shortCode, unexpectedResponse, type TokenProvider } from './api.js';
import { isJsonObject, jsonKind } from '../lib/json.js';
import { statusText, type HttpClient, type HttpResponse } from './http.js';

/** The longest a token is given up before it expires (s). */
export const MAX_REFRESH_MARGIN_S = 60;

/**
 * How long before its expiry a token is fetched anew (s): the lesser of
 * MAX_REFRESH_MARGIN_S and a quarter of its lifetime, so that a short-lived
 * token (`expires_in` 60 or less) is still reused for most of its life. A
 * token whose lifetime is not known (cached by an earlier agctl) is given
 * the full margin.
 */
function refreshMargin(t: CachedToken): number {
  if (t.issuedAt === undefined) return MAX_REFRESH_MARGIN_S;
  return Math.min(MAX_REFRESH_MARGIN_S, Math.max(0, t.expiresAt - t.issuedAt) / 4);
}

/** Whether a cached token is still usable at `nowMs`: valid for more than its refresh margin. */
export const isFresh = (t: CachedToken, nowMs: number): boolean => t.expiresAt - refreshMargin(t) > nowMs / 1000;
/** How far a client assertion's `nbf` lies before and its `exp` after `iat` (service-notes.md §1). */
const ASSERTION_WINDOW_S = 120;
/** Random bytes of the assertion's `nonce` header (service-notes.md §1). */
const NONCE_BYTES = 16;
/** The largest token answer read: a small JSON object, whose token is at most MAX_TOKEN_CHARS. */
const MAX_TOKEN_RESPONSE_BYTES = 16 * 1024;
/**
 * The longest access token accepted: a JWT with many claims is a few KB, and
 * common servers refuse a header line over 8 KiB (nginx's default), so a
 * longer token would fail every call for its lifetime.
 */
export const MAX_TOKEN_CHARS = 8 * 1024;
/** The longest a token is cached, whatever `expires_in` says (a token refused before is dropped and fetched again anyway). */
export const MAX_TOKEN_LIFETIME_S = 24 * 60 * 60;

/**
 * The `aud` of a client assertion: the tenant's host name without any port, as
 * the service's own clients send it (service-notes.md §1). An IPv6 literal is
 * given without its brackets (`::1`), the host name proper; the embedded
 * server accepts it with or without them.
 */
export function assertionAudience(baseUrl: string): string {
  return new URL(baseUrl).hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Where tokens are kept between requests. A token is bound to the secret that
 * fetched it: `load` gives only one fetched with `secret` (which a cache keeps
 * as a keyed fingerprint at most, never as it is).
 */
export interface TokenCache {
  load(tokenUrl: string, clientId: string, secret: string): CachedToken | undefined;
  save(tokenUrl: string, clientId: string, token: CachedToken, secret: string): void;
  remove(tokenUrl: string, clientId: string): void;
  /** Runs `fn` (check the cache, else fetch) as the only one doing so for this token, when the cache is shared with other processes. */
  exclusive?<T>(tokenUrl: string, clientId: string, fn: () => Promise<T>): Promise<T>;
}

export class MemoryTokenCache implements TokenCache {
  readonly #m = new Map<string, { token: CachedToken; secret: string }>();
  load(u: string, c: string, secret: string) {
    const e = this.#m.get(`${u}\n${c}`);
    return e && e.secret === secret ? e.token : undefined;
  }
  save(u: string, c: string, t: CachedToken, secret: string) {
    this.#m.set(`${u}\n${c}`, { token: t, secret });
  }
  remove(u: string, c: string) {
    this.#m.delete(`${u}\n${c}`);
  }
}

/** A fixed bearer token (AGCTL_ACCESS_TOKEN): no token flow, nothing to refresh. */
export class StaticToken implements TokenProvider {
  constructor(private readonly value: string) {}
  async token() {
    return this.value;
  }
  invalidate() {
    return false;
  }
}

export const tokenUrlFor = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '')}/auth/v1/token`;

/** What makes a token unusable in an Authorization header, if anything. */
function tokenProblem(token: string): string | undefined {
  if (token.length > MAX_TOKEN_CHARS) return `is ${token.length} characters long, more than the ${MAX_TOKEN_CHARS} agctl accepts`;
  if (!/^[\x21-\x7e]+$/.test(token)) return 'holds spaces, control or non-ASCII characters';
  return undefined;
}

/**
 * The token and its lifetime from a token endpoint's 200 answer (RFC 6749 §5.1):
 * a non-empty `access_token` usable in a header (at most MAX_TOKEN_CHARS
 * printable ASCII characters), `expires_in` a number of seconds when present
 * (3600 when absent; at most MAX_TOKEN_LIFETIME_S is kept).
 *
 * As with the service's own clients (service-notes.md §1): a missing
 * `token_type` is accepted (none of them requires it), and a leading "bearer "
 * (or "bearer:") on the token is stripped, as sdk-ts does. A `token_type` that
 * is present but not Bearer (DPoP, MAC, ...) is refused: agctl can only send
 * the token as a bearer token, and a server naming another type would refuse
 * it on every call with a less helpful error.
 */
export function tokenAnswer(body: Record<string, unknown>, tokenUrl: string): { accessToken: string; expiresIn: number } {
  const raw = body.access_token;
  const accessToken = typeof raw === 'string' ? raw.replace(/^\s*bearer(?:\s*:+\s*|\s+)/i, '') : raw;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw unexpectedResponse(
      tokenUrl,
      `"access_token" is ${accessToken === undefined ? 'missing' : accessToken === '' ? 'empty' : jsonKind(accessToken)}, expected a non-empty string`,
    );
  }
  const problem = tokenProblem(accessToken);
  if (problem) throw unexpectedResponse(tokenUrl, `"access_token" ${problem}`);
  const type = body.token_type;
  if (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'bearer')) {
    throw unexpectedResponse(
      tokenUrl,
      `"token_type" is ${typeof type === 'string' ? JSON.stringify(type) : jsonKind(type)}, expected "Bearer" or none`,
    );
  }
  const expiresIn = body.expires_in;
  if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn < 0)) {
    throw unexpectedResponse(
      tokenUrl,
      `"expires_in" is ${typeof expiresIn === 'number' ? expiresIn : jsonKind(expiresIn)}, expected a number of seconds`,
    );
  }
  return { accessToken, expiresIn: Math.min(expiresIn ?? 3600, MAX_TOKEN_LIFETIME_S) };
}

/**
 * The error for a token endpoint's error answer (RFC 6749 §5.2): one line with
 * the HTTP status, then the server's description and error code when it sent them.
 */
function tokenError(res: HttpResponse): CliError {
  const parsed = res.json<unknown>();
  const body = isJsonObject(parsed) ? parsed : {};
  const nonEmpty = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const error = shortCode(nonEmpty(body.error));
  let desc = nonEmpty(body.error_description) ?? nonEmpty(body.message);
  if (desc !== undefined) desc = serverMessage(desc);
  if (error === 'invalid_client' || res.status === 401) {
    return new CliError(
      `authentication failed: ${desc ?? `HTTP ${statusText(res.status)}`}${error ? ` (${error})` : ''}`,
      Exit.Unauthenticated,
      {
        status: res.status,
        code: error,
        hint: 'check the client ID and secret, or run `agctl login`',
      },
    );
  }
  return new CliError(
    `token request failed: HTTP ${statusText(res.status)}${desc ? `: ${desc}` : ''}${error ? ` (${error})` : ''}`,
    exitCodeForStatus(res.status),
    {
      status: res.status,
      code: error,
      hint: res.status === 429 ? 'the server is rate limiting; try again later' : undefined,
    },
  );
}

interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * Whether what is sent to `url` crosses the network unencrypted: plain http to
 * a host other than this machine (loopback: 127.0.0.0/8, ::1, localhost, where
 * the embedded server listens). The URL's host is judged as written, before
 * any name is resolved.
 */
export function sentInClear(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'http:' && !isLoopbackHost(u.hostname);
}

/**
 * The warning for credentials about to go to `baseUrl` in clear, if they do:
 * shown on every use (nothing else would say it). `allowedBy` names what
 * allowed a plain secret there (--insecure-http, AGCTL_INSECURE_HTTP, a profile).
 */
export function inClearWarning(baseUrl: string, sent: 'secret' | 'assertion' | 'token', allowedBy?: string): string | undefined {
  if (!sentInClear(baseUrl)) return undefined;
  const origin = new URL(baseUrl).origin;
  const what = {
    secret: 'the client secret and the tokens cross',
    assertion: 'the client assertion and the tokens cross',
    token: 'the access token crosses',
  }[sent];
  return `${origin} uses plain http: ${what} the network unencrypted (${allowedBy ? `allowed by ${allowedBy}` : 'use https unless this is a test server'})`;
}

/** A plain client secret that would be sent in clear, refused (exit 2) before anything is sent. */
export class PlainSecretInClearError extends CliError {
  constructor(baseUrl: string) {
    const u = new URL(baseUrl);
    super(`refusing to send the client secret in clear to ${u.origin}: plain http to a host other than this machine`, Exit.Usage, {
      hint: `use https://${u.host}; for a lab server without TLS, pass --insecure-http (login keeps it in the profile) or set AGCTL_INSECURE_HTTP=1`,
    });
    this.name = 'PlainSecretInClearError';
  }
}

export class ClientCredentialsFlow implements TokenProvider {
  readonly tokenUrl: string;
  #inflight?: Promise<CachedToken>;

  constructor(
    private readonly http: HttpClient,
    baseUrl: string,
    private readonly creds: ClientCredentials,
    private readonly cache: TokenCache,
    private readonly clock: Clock,
    opts: { insecureHttp?: boolean } = {},
  ) {
    this.tokenUrl = tokenUrlFor(baseUrl);
    // Refused here, where the secret is bound to its URL: before any token is read or sent.
    if (!opts.insecureHttp && !isKeySecret(creds.clientSecret) && sentInClear(baseUrl)) throw new PlainSecretInClearError(baseUrl);
  }

  /** The cached token when still fresh (isFresh: valid for more than its refresh margin) and usable (one cached by an older agctl may not be). */
  cached(): CachedToken | undefined {
    const t = this.cache.load(this.tokenUrl, this.creds.clientId, this.creds.clientSecret);
    return t && isFresh(t, this.clock.now()) && tokenProblem(t.accessToken) === undefined ? t : undefined;
  }

  async token(): Promise<string> {
    const hit = this.cached();
    if (hit) return hit.accessToken;
    // Another process may be fetching this very token: wait for it and use it, else fetch it.
    const miss = async () => (this.cached() ?? (await this.fetch())).accessToken;
    return this.cache.exclusive ? this.cache.exclusive(this.tokenUrl, this.creds.clientId, miss) : miss();
  }

  /** Fetches a new token from the token endpoint and caches it. */
  fetch(): Promise<CachedToken> {
    this.#inflight ??= this.#request().finally(() => (this.#inflight = undefined));
    return this.#inflight;
  }

  invalidate(token: string): boolean {
    const t = this.cache.load(this.tokenUrl, this.creds.clientId, this.creds.clientSecret);
    if (t && t.accessToken === token) this.cache.remove(this.tokenUrl, this.creds.clientId);
    return true;
  }

  async #request(): Promise<CachedToken> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.creds.clientId });
    if (isKeySecret(this.creds.clientSecret)) {
      form.set('client_assertion_type', CLIENT_ASSERTION_TYPE);
      form.set('client_assertion', await this.#assertion());
    } else {
      form.set('client_secret', this.creds.clientSecret);
    }
    const res = await this.http.send({
      method: 'POST',
      url: this.tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      // Asking for a token twice is harmless: the request may be retried like an idempotent one.
      idempotent: true,
      maxResponseBytes: { bytes: MAX_TOKEN_RESPONSE_BYTES, hint: 'a token answer is a small JSON object: check the base URL' },
    });
    // A redirect is never followed (the form carries the secret): exit 9, as on API routes.
    if (res.status >= 300 && res.status < 400) throw errorFromResponse(res);
    if (res.status < 200 || res.status >= 300) throw tokenError(res);
    if (res.status !== 200) throw unexpectedResponse(this.tokenUrl, `HTTP ${res.status}, expected 200`);
    const { accessToken, expiresIn } = tokenAnswer(jsonObjectBody(res, this.tokenUrl), this.tokenUrl);
    const issuedAt = Math.floor(this.clock.now() / 1000);
    const token = { accessToken, issuedAt, expiresAt: issuedAt + expiresIn };
    this.cache.save(this.tokenUrl, this.creds.clientId, token, this.creds.clientSecret);
    return token;
  }

  async #assertion(): Promise<string> {
    let key;
    try {
      key = parseKeySecret(this.creds.clientSecret);
    } catch (err) {
      throw new CliError(`the client secret is unusable: ${(err as Error).message}`, Exit.Unauthenticated);
    }
    const { importJWK, SignJWT } = await import('jose');
    let signingKey;
    try {
      signingKey = await importJWK({ ...key.jwk, alg: 'EdDSA' }, 'EdDSA');
    } catch {
      // jose's message never holds key material, but a fixed one says more to the user.
      throw new CliError('the client secret is unusable: its key is not a valid Ed25519 private key', Exit.Unauthenticated);
    }
    // Exactly as the service's own clients build it (service-notes.md §1):
    // a random nonce in the protected header for replay protection, no jti.
    const now = Math.floor(this.clock.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA', nonce: randomBytes(NONCE_BYTES).toString('base64url') })
      .setIssuer(this.creds.clientId)
      .setSubject(this.creds.clientId)
      .setAudience(assertionAudience(this.tokenUrl))
      .setIssuedAt(now)
      .setNotBefore(now - ASSERTION_WINDOW_S)
      .setExpirationTime(now + ASSERTION_WINDOW_S)
      .sign(signingKey);
  }
}
