// The token endpoint as the service's own clients use it (service-notes.md §1):
// POST /auth/v1/token, form-encoded, a key-form client assertion only. A plain
// `client_secret` is refused. The assertion: EdDSA, a `nonce` in the protected
// header, iss = sub = client ID, aud = the tenant's host name WITHOUT port, no
// `jti` needed; iat/nbf/exp checked with a small leeway. The answer carries
// `access_token` and `expires_in`, and no `token_type` (no client requires it).
import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, exportJWK, generateKeyPair, jwtVerify, type CryptoKey, type JWK } from 'jose';
import type { FakeClock } from './ids.js';

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
export const TOKEN_LIFETIME_S = 3600;
/** Clock leeway on the assertion's iat / nbf / exp. */
export const LEEWAY_S = 30;
/** How old an assertion's iat may be. */
const MAX_AGE_S = 600;

export interface KeyClient {
  clientId: string;
  /** `secret-token:<issuer>:v1:<base64url Ed25519 private JWK>` */
  clientSecret: string;
  /** The user the client acts as (the approver of step-up tasks). */
  userId: string;
  publicKey: CryptoKey;
}

export async function newKeyClient(clientId: string, issuer: string, userId: string): Promise<KeyClient> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk: JWK = await exportJWK(privateKey);
  const clientSecret = `secret-token:${issuer}:v1:${Buffer.from(JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d })).toString('base64url')}`;
  return { clientId, clientSecret, userId, publicKey };
}

/** One token request as the tenant saw it (for the tests' assertions). */
export interface TokenRequestRecord {
  ok: boolean;
  /** Why it was refused. */
  reason?: string;
  form: Record<string, string>;
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
}

export class TokenError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

const invalidClient = (why: string) => new TokenError(401, 'invalid_client', why);

export class TokenIssuer {
  readonly log: TokenRequestRecord[] = [];
  readonly #tokens = new Map<string, { clientId: string; userId: string; expiresAt: number }>();
  readonly #seenNonces = new Set<string>();
  readonly #seenJtis = new Set<string>();

  constructor(
    private readonly clients: KeyClient[],
    /** The host name the assertion's `aud` must equal: the tenant's own, never a request's Host header. */
    private readonly audience: string,
    private readonly clock: FakeClock,
  ) {}

  /** Issues a bearer token for a client directly (tests that do not exercise the token flow). */
  issue(client: KeyClient): { access_token: string; expires_in: number } {
    const token = randomBytes(32).toString('base64url');
    this.#tokens.set(token, { clientId: client.clientId, userId: client.userId, expiresAt: this.clock.now() + TOKEN_LIFETIME_S * 1000 });
    return { access_token: token, expires_in: TOKEN_LIFETIME_S };
  }

  /** The user a bearer token was issued for, or undefined when it is unknown or expired. */
  userOf(token: string): string | undefined {
    const t = this.#tokens.get(token);
    return t && t.expiresAt > this.clock.now() ? t.userId : undefined;
  }

  revokeAll(): void {
    this.#tokens.clear();
  }

  /** Removes a client, as an admin deleting it would: its secret and its tokens no longer work. */
  revokeClient(clientId: string): void {
    const i = this.clients.findIndex((c) => c.clientId === clientId);
    if (i >= 0) this.clients.splice(i, 1);
    for (const [token, t] of this.#tokens) if (t.clientId === clientId) this.#tokens.delete(token);
  }

  /** Handles a token request; throws TokenError for the RFC 6749 §5.2 answer. */
  async token(contentType: string | undefined, raw: Buffer): Promise<{ access_token: string; expires_in: number }> {
    const rec: TokenRequestRecord = { ok: false, form: {} };
    this.log.push(rec);
    try {
      const issued = await this.#token(contentType, raw, rec);
      rec.ok = true;
      return issued;
    } catch (err) {
      rec.reason = (err as Error).message;
      throw err;
    }
  }

  async #token(contentType: string | undefined, raw: Buffer, rec: TokenRequestRecord) {
    if ((contentType ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/x-www-form-urlencoded') {
      throw new TokenError(400, 'invalid_request', 'the token request must be application/x-www-form-urlencoded');
    }
    const form = new URLSearchParams(raw.toString('utf8'));
    for (const [k, v] of form) rec.form[k] = k === 'client_assertion' || k === 'client_secret' ? '(redacted)' : v;
    if (form.get('grant_type') !== 'client_credentials')
      throw new TokenError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
    if (form.has('client_secret')) throw invalidClient('client secrets are not accepted: authenticate with a client assertion');
    if (form.get('client_assertion_type') !== ASSERTION_TYPE) throw invalidClient(`client_assertion_type must be ${ASSERTION_TYPE}`);
    const assertion = form.get('client_assertion');
    if (!assertion) throw invalidClient('client_assertion is missing');
    const clientId = form.get('client_id') ?? '';
    const client = this.clients.find((c) => c.clientId === clientId);
    if (!client) throw invalidClient('unknown client');

    let header: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(assertion) as Record<string, unknown>;
    } catch {
      throw invalidClient('client_assertion is not a JWT');
    }
    rec.header = header;
    if (header.alg !== 'EdDSA') throw invalidClient('the assertion must be signed with EdDSA');
    if (typeof header.nonce !== 'string' || header.nonce === '') throw invalidClient('the assertion has no nonce in its protected header');

    const nowS = Math.floor(this.clock.now() / 1000);
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(assertion, client.publicKey, {
        algorithms: ['EdDSA'],
        issuer: clientId,
        subject: clientId,
        audience: this.audience,
        clockTolerance: LEEWAY_S,
        currentDate: new Date(nowS * 1000),
        requiredClaims: ['iat', 'exp'],
      }));
    } catch (err) {
      rec.claims = safeClaims(assertion);
      const why =
        err instanceof joseErrors.JWTClaimValidationFailed
          ? `claim "${err.claim}" ${err.reason === 'missing' ? 'is missing' : 'is not valid'}`
          : 'the signature or the token is not valid';
      throw invalidClient(`invalid client assertion: ${why}`);
    }
    rec.claims = claims;
    const iat = claims.iat as number;
    if (iat > nowS + LEEWAY_S) throw invalidClient('invalid client assertion: iat is in the future');
    if (iat < nowS - MAX_AGE_S) throw invalidClient('invalid client assertion: iat is too old');

    // Replay protection keys on the nonce, and on jti when one is sent.
    if (this.#seenNonces.has(header.nonce)) throw invalidClient('the assertion was already used (nonce replayed)');
    if (typeof claims.jti === 'string' && this.#seenJtis.has(claims.jti))
      throw invalidClient('the assertion was already used (jti replayed)');
    this.#seenNonces.add(header.nonce);
    if (typeof claims.jti === 'string') this.#seenJtis.add(claims.jti);
    return this.issue(client);
  }
}

/** The claims of an assertion that failed verification, unverified (for the log only). */
function safeClaims(jwt: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
