// OAuth2 client-credentials token flow (service-api.md §5.1, DESIGN.md §5):
// POST {base}/auth/v1/token, form-encoded, credentials in the body; a plain
// secret goes as client_secret, a key secret signs an EdDSA client_assertion.
// Tokens are cached per (token URL, client ID) until 60 s before expiry.
import { randomUUID } from 'node:crypto';
import { CliError, Exit, exitCodeForStatus } from '../api/errors.js';
import { CLIENT_ASSERTION_TYPE, isKeySecret, parseKeySecret } from '../lib/client-secret.js';
import type { Clock } from '../lib/clock.js';
import type { CachedToken } from '../config/vault.js';
import { errorFromResponse, isJsonObject, jsonKind, jsonObjectBody, unexpectedResponse } from './api.js';
import { statusText, type HttpClient, type HttpResponse } from './http.js';

export const EXPIRY_SKEW_S = 60;
/** Lifetime of a client assertion (at most 5 minutes). */
const ASSERTION_LIFETIME_S = 120;

export interface TokenCache {
  load(tokenUrl: string, clientId: string): CachedToken | undefined;
  save(tokenUrl: string, clientId: string, token: CachedToken): void;
  remove(tokenUrl: string, clientId: string): void;
}

export class MemoryTokenCache implements TokenCache {
  readonly #m = new Map<string, CachedToken>();
  load(u: string, c: string) {
    return this.#m.get(`${u}\n${c}`);
  }
  save(u: string, c: string, t: CachedToken) {
    this.#m.set(`${u}\n${c}`, t);
  }
  remove(u: string, c: string) {
    this.#m.delete(`${u}\n${c}`);
  }
}

export interface TokenProvider {
  /** A valid access token (cached or fresh). */
  token(): Promise<string>;
  /** Forgets a token the server refused, so the next call fetches a new one. Returns false when nothing can be refreshed. */
  invalidate(token: string): boolean;
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

/**
 * The token and its lifetime from a token endpoint's 200 answer (RFC 6749 §5.1):
 * a non-empty `access_token` usable in a header, `token_type` Bearer, `expires_in`
 * a number of seconds when present (3600 when absent).
 */
export function tokenAnswer(body: Record<string, unknown>, tokenUrl: string): { accessToken: string; expiresIn: number } {
  const accessToken = body.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw unexpectedResponse(tokenUrl, `"access_token" is ${accessToken === undefined ? 'missing' : accessToken === '' ? 'empty' : jsonKind(accessToken)}, expected a non-empty string`);
  }
  if (!/^[\x21-\x7e]+$/.test(accessToken)) throw unexpectedResponse(tokenUrl, '"access_token" holds spaces, control or non-ASCII characters');
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') {
    throw unexpectedResponse(tokenUrl, `"token_type" is ${typeof body.token_type === 'string' ? JSON.stringify(body.token_type) : body.token_type === undefined ? 'missing' : jsonKind(body.token_type)}, expected "Bearer"`);
  }
  const expiresIn = body.expires_in;
  if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn < 0)) {
    throw unexpectedResponse(tokenUrl, `"expires_in" is ${typeof expiresIn === 'number' ? expiresIn : jsonKind(expiresIn)}, expected a number of seconds`);
  }
  return { accessToken, expiresIn: expiresIn ?? 3600 };
}

/**
 * The error for a token endpoint's error answer (RFC 6749 §5.2): one line with
 * the HTTP status, then the server's description and error code when it sent them.
 */
export function tokenError(res: HttpResponse): CliError {
  const parsed = res.json<unknown>();
  const body = isJsonObject(parsed) ? parsed : {};
  const nonEmpty = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const error = nonEmpty(body.error);
  const desc = nonEmpty(body.error_description) ?? nonEmpty(body.message);
  if (error === 'invalid_client' || res.status === 401) {
    return new CliError(`authentication failed: ${desc ?? `HTTP ${statusText(res.status)}`}${error ? ` (${error})` : ''}`, Exit.Unauthenticated, {
      status: res.status,
      code: error,
      hint: 'check the client ID and secret, or run `agctl login`',
    });
  }
  return new CliError(`token request failed: HTTP ${statusText(res.status)}${desc ? `: ${desc}` : ''}${error ? ` (${error})` : ''}`, exitCodeForStatus(res.status), {
    status: res.status,
    code: error,
    hint: res.status === 429 ? 'the server is rate limiting; try again later' : undefined,
  });
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
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
  ) {
    this.tokenUrl = tokenUrlFor(baseUrl);
  }

  /** The cached token when still valid for more than the expiry skew. */
  cached(): CachedToken | undefined {
    const t = this.cache.load(this.tokenUrl, this.creds.clientId);
    return t && t.expiresAt - EXPIRY_SKEW_S > Math.floor(this.clock.now() / 1000) ? t : undefined;
  }

  async token(): Promise<string> {
    const hit = this.cached();
    if (hit) return hit.accessToken;
    return (await this.fetch()).accessToken;
  }

  /** Fetches a new token from the token endpoint and caches it. */
  fetch(): Promise<CachedToken> {
    this.#inflight ??= this.#request().finally(() => (this.#inflight = undefined));
    return this.#inflight;
  }

  invalidate(token: string): boolean {
    const t = this.cache.load(this.tokenUrl, this.creds.clientId);
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
    });
    // A redirect is never followed (the form carries the secret): exit 9, as on API routes.
    if (res.status >= 300 && res.status < 400) throw errorFromResponse(res);
    if (res.status < 200 || res.status >= 300) throw tokenError(res);
    if (res.status !== 200) throw unexpectedResponse(this.tokenUrl, `HTTP ${res.status}, expected 200`);
    const { accessToken, expiresIn } = tokenAnswer(jsonObjectBody(res, this.tokenUrl), this.tokenUrl);
    const token = { accessToken, expiresAt: Math.floor(this.clock.now() / 1000) + expiresIn };
    this.cache.save(this.tokenUrl, this.creds.clientId, token);
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
    const now = Math.floor(this.clock.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setIssuer(this.creds.clientId)
      .setSubject(this.creds.clientId)
      .setAudience(new URL(this.tokenUrl).host)
      .setIssuedAt(now)
      .setNotBefore(now - 5)
      .setExpirationTime(now + ASSERTION_LIFETIME_S)
      .setJti(randomUUID())
      .sign(signingKey);
  }
}
