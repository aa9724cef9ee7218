// THE inbound webhook verification pipeline (service-api.md §3, §4.5, §5.2, §7, §8).
// `agctl webhook verify` calls `verifyWebhook`; the embedded server's listener
// calls the same two halves it is made of (`checkWebhook` for steps 1 to 3,
// then `acceptedResult` once its group commit has recorded the event). The
// steps run in the spec's order and the first failing step decides the answer:
//   1. 403  source IP outside the listener's allowed CIDRs (when set)
//   2. 413  body over 64 KiB; 400  Webhook-Timestamp, Webhook-Event-Id,
//           Content-Type, Content-Encoding (identity only), JSON body
//   3. 401  HMAC signature or JWT
//   4. 409  event ID already accepted for this listener (needs `accept`)
//   5. 200  accepted; the automation runs when published and triggered
// The listener refuses a body over 64 KiB (413) while it streams in, after
// step 1 and before this function sees the bytes; offline, `checkWebhook`
// applies the same rule to the bytes it is given.
import { timingSafeEqual } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { AUTH_METHODS } from '../api/webhook-listeners.js';
import { isUuidV4 } from '../lib/ids.js';
import { AllowList, normalizeIp } from './cidr.js';
import type { KeyResolver } from './jwks.js';
import { HEADER_EVENT_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, JWT_ALGORITHMS, bodyHash, hmacSignature, isJwtAlgorithm } from './sign.js';

export const MAX_BODY_BYTES = 64 * 1024;
const MAX_SKEW_SECONDS = 300;
const MAX_JWT_LIFETIME_SECONDS = 600;
export const EVENT_RETENTION_MS = 7 * 24 * 3600_000;

/** How a listener authenticates its events (the values of a listener's `authMethod`). */
export type AuthMethod = (typeof AUTH_METHODS)[number];
type HeaderMap = Record<string, string | string[] | undefined>;

export interface ListenerConfig {
  authMethod: AuthMethod;
  /** HMAC: the signing secret string. */
  secret?: string;
  /** JWT: the listener's key set. */
  jwks?: KeyResolver;
  /** Allowed source ranges; null, undefined or empty means no restriction. */
  allowedCidrs?: AllowList | readonly string[] | null;
  /** The full listener URL: the JWT `aud`. */
  endpointUrl: string;
  /** The tenant base URL: the JWT `sub`. */
  tenantBaseUrl: string;
}

/** What recording an event did (steps 4 and 5, one atomic operation). */
export interface AcceptOutcome {
  duplicate: boolean;
  /** Whether the automation ran (a run was recorded). */
  ran?: boolean;
  runId?: string;
  /** Why the automation did not run (unpublished, trigger disabled). */
  notRunReason?: string;
}

export interface VerifyInput {
  /** The TCP peer address. */
  sourceIp: string;
  /** Request headers with lower-case names (as node:http gives them). */
  headers: HeaderMap;
  /** The raw body bytes. */
  body: Uint8Array;
  listener: ListenerConfig;
  /** Server time in milliseconds since the epoch. */
  now: number;
  /** Take the client address from X-Forwarded-For (one trusted proxy). */
  trustProxy?: boolean;
  /**
   * Steps 4 and 5: records the event ID atomically and runs the automation.
   * Absent offline (`agctl webhook verify`): the idempotency step is skipped.
   */
  accept?: (eventKey: string, body: Uint8Array, bodyText: string) => AcceptOutcome | Promise<AcceptOutcome>;
}

/** The statuses of the pipeline; 431 only offline, for a capture whose headers node:http would refuse. */
type WebhookStatus = 200 | 400 | 401 | 403 | 409 | 413 | 431;

export interface VerifyResult {
  status: WebhookStatus;
  reason: string;
  /** The Webhook-Event-Id header when it is a valid UUID v4, else null. */
  eventId: string | null;
  /**
   * The step that decided (1 to 5); 0 when the HTTP request itself is
   * malformed and the server's HTTP parser refuses it before step 1 (offline only).
   */
  step: 0 | 1 | 2 | 3 | 4 | 5;
  /** Steps that were not run (offline verification skips step 4). */
  skipped?: string[];
  /** Step 5: whether the automation ran, and its run ID. */
  automationRan?: boolean;
  runId?: string;
}

/** One header value; repeated headers are joined with ", " as node:http does. */
export function headerValue(headers: HeaderMap, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : v;
}

/**
 * The client address for the allowlist: the TCP peer, or with a trusted proxy
 * the last X-Forwarded-For entry (the address the proxy itself appended;
 * entries before it are whatever the client sent and cannot be trusted).
 */
function sourceAddress(remote: string, headers: HeaderMap, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = headerValue(headers, 'x-forwarded-for');
    if (xff) {
      const parts = xff
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const last = parts[parts.length - 1];
      if (last) return normalizeIp(last);
    }
  }
  return normalizeIp(remote);
}

function eventIdOf(headers: HeaderMap): string | null {
  const v = headerValue(headers, HEADER_EVENT_ID);
  return v !== undefined && isUuidV4(v) ? v : null;
}

const allowListCache = new WeakMap<readonly string[], AllowList>();
function allowListOf(l: ListenerConfig): AllowList | null {
  const c = l.allowedCidrs;
  if (!c) return null;
  if (c instanceof AllowList) return c.ranges.length ? c : null;
  if (c.length === 0) return null;
  let list = allowListCache.get(c);
  if (!list) allowListCache.set(c, (list = new AllowList(c)));
  return list;
}

/** Step 1 alone (the listener runs it before reading the body). Null when the source is allowed. */
export function checkSource(input: Pick<VerifyInput, 'sourceIp' | 'headers' | 'listener' | 'trustProxy'>): VerifyResult | null {
  const list = allowListOf(input.listener);
  if (!list) return null;
  const ip = sourceAddress(input.sourceIp, input.headers, input.trustProxy ?? false);
  if (list.contains(ip)) return null;
  return {
    status: 403,
    step: 1,
    eventId: eventIdOf(input.headers),
    reason: `source address ${ip || '(unknown)'} is not in the listener's allowed ranges`,
  };
}

/** Step 2's size rule: the answer to a body over 64 KiB. */
export function bodyTooLarge(eventId: string | null): VerifyResult {
  return { status: 413, step: 2, reason: `body is larger than ${MAX_BODY_BYTES} bytes`, eventId };
}

// ignoreBOM: a byte order mark stays in the text, so the body is judged by
// the bytes the automation will receive (step 2 refuses it before decoding).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const MEDIA_JSON = /^application\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/;
const CHARSET_PARAM = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** The charset parameter of a Content-Type, lower-cased, or undefined when absent. */
function charsetOf(type: string): string | undefined {
  const m = CHARSET_PARAM.exec(type);
  return m ? (m[1] ?? m[2] ?? '').toLowerCase() : undefined;
}

function badRequest(reason: string, eventId: string | null): VerifyResult {
  return { status: 400, step: 2, reason, eventId };
}

/** Step 2. Returns the failure, or the body text for the later steps. */
function checkRequest(input: VerifyInput): VerifyResult | { text: string; eventId: string } {
  const h = input.headers;
  const ts = headerValue(h, HEADER_TIMESTAMP);
  const id = eventIdOf(h);
  if (ts === undefined || ts === '') return badRequest('missing Webhook-Timestamp header', id);
  if (!/^-?\d+$/.test(ts)) return badRequest(`Webhook-Timestamp ${JSON.stringify(ts.slice(0, 40))} is not an integer (Unix seconds)`, id);
  const skew = Number(ts) - Math.floor(input.now / 1000);
  if (!Number.isSafeInteger(skew) || Math.abs(skew) > MAX_SKEW_SECONDS) {
    const by = Number.isSafeInteger(skew) ? `${Math.abs(skew)} s` : 'far';
    return badRequest(
      `Webhook-Timestamp is ${by} ${skew < 0 ? 'behind' : 'ahead of'} server time (at most ${MAX_SKEW_SECONDS} s allowed)`,
      id,
    );
  }
  const rawId = headerValue(h, HEADER_EVENT_ID);
  if (rawId === undefined || rawId === '') return badRequest('missing Webhook-Event-Id header', null);
  if (!id) return badRequest(`Webhook-Event-Id ${JSON.stringify(rawId.slice(0, 60))} is not a UUID version 4`, null);
  const type = headerValue(h, 'content-type');
  if (!type) return badRequest('missing Content-Type header (application/json)', id);
  if (!MEDIA_JSON.test(type.split(';')[0]!.trim().toLowerCase()))
    return badRequest(`Content-Type ${JSON.stringify(type.slice(0, 80))} is not JSON (application/json)`, id);
  const charset = charsetOf(type);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return badRequest(`Content-Type charset ${JSON.stringify(charset.slice(0, 40))} is not accepted: JSON bodies must be UTF-8`, id);
  }
  // 400, not 415: §7 answers every invalid request with 400 and lists no 415, so a sender written to the spec knows it.
  const coding = headerValue(h, 'content-encoding')?.trim().toLowerCase();
  if (coding && coding !== 'identity')
    return badRequest(
      `Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is not accepted: the body must be sent as is, not encoded`,
      id,
    );
  const body = jsonBody(input.body);
  if ('problem' in body) return badRequest(body.problem, id);
  return { text: body.text, eventId: id };
}

/**
 * Step 2's body rule: the body is UTF-8 JSON text without a byte order mark.
 * Gives the text, or what is wrong ("body is not valid JSON: ..."). Also
 * checks each line of `webhook send --events` before anything is sent.
 */
export function jsonBody(b: Uint8Array): { text: string } | { problem: string } {
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
    return { problem: 'body starts with a UTF-8 byte order mark, which JSON text must not have (RFC 8259 §8.1)' };
  }
  let text: string;
  try {
    text = utf8.decode(b);
  } catch {
    return { problem: 'body is not valid UTF-8' };
  }
  try {
    JSON.parse(text);
  } catch (err) {
    if (text.trim() === '') return { problem: 'body is empty; a JSON document is required' };
    return { problem: `body is not valid JSON: ${(err as Error).message}` };
  }
  return { text };
}

function unauthorized(reason: string, eventId: string): VerifyResult {
  return { status: 401, step: 3, reason, eventId };
}

function checkHmac(input: VerifyInput, eventId: string): VerifyResult | null {
  const secret = input.listener.secret;
  if (!secret) return unauthorized('the listener has no HMAC secret to verify with', eventId);
  const given = headerValue(input.headers, HEADER_SIGNATURE);
  if (given === undefined || given === '') return unauthorized('missing Webhook-Signature header', eventId);
  const ts = headerValue(input.headers, HEADER_TIMESTAMP)!;
  const expected = Buffer.from(hmacSignature(secret, ts, eventId, input.body), 'latin1');
  const got = Buffer.from(given, 'latin1');
  if (got.length === expected.length && timingSafeEqual(got, expected)) return null;
  const inputLen = Buffer.byteLength(`${ts}.${eventId}.`) + input.body.length;
  let hint = '';
  if (/[=+/]/.test(given)) hint = '; the signature must be base64url without padding';
  else if (/^[0-9a-f]{64}$/i.test(given)) hint = '; the signature looks hex-encoded, base64url without padding is expected';
  return unauthorized(
    `signature mismatch: computed over ${inputLen} bytes ("<timestamp>.<event_id>." and the ${input.body.length}-byte body)${hint}`,
    eventId,
  );
}

const stripSlash = (s: string) => (s.endsWith('/') ? s.slice(0, -1) : s);

/** A claim's value for a reason: JSON, cut short (a value comes from the request). */
const claimText = (v: unknown) => {
  const t = JSON.stringify(v) ?? 'undefined';
  return t.length > 200 ? `${t.slice(0, 199)}…` : t;
};

function joseReason(err: unknown, kid: string, endpointUrl: string): string {
  const e = err as { code?: string; message?: string; claim?: string; reason?: string; name?: string; payload?: JWTPayload };
  switch (e?.code) {
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return `unknown kid ${JSON.stringify(kid)}: no key in the listener's JWKS matches it`;
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return `several keys in the listener's JWKS match kid ${JSON.stringify(kid)}`;
    case 'ERR_JWKS_TIMEOUT':
      return 'JWKS unreachable: the fetch timed out';
    case 'ERR_JWKS_INVALID':
      return 'JWKS unreachable: the response is not a valid key set';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'JWT signature verification failed';
    case 'ERR_JWT_EXPIRED':
      return `JWT expired: ${e.message}`;
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (e.reason === 'missing') return `JWT claim "${e.claim}" is missing`;
      if (e.claim === 'aud') return `JWT aud is ${claimText(e.payload?.aud)}, not the endpoint URL ${claimText(endpointUrl)}`;
      return `JWT claim "${e.claim}" check failed: ${e.message}`;
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return `malformed JWT: ${e.message}`;
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return `JWT algorithm not accepted (${JWT_ALGORITHMS.join(', ')} only)`;
    case 'ERR_JOSE_NOT_SUPPORTED':
    case 'ERR_JWK_INVALID':
      return `JWKS key for kid ${JSON.stringify(kid)} is not usable: ${e.message}`;
    default:
      if (e?.name === 'JwksError') return e.message ?? 'JWKS error';
      if (e?.code === 'ERR_JOSE_GENERIC' || e?.name === 'TypeError' || e?.name === 'AbortError') {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        return `JWKS unreachable: ${e.message}${cause?.code ? ` (${cause.code})` : ''}`;
      }
      return `JWT verification failed: ${e?.message ?? String(err)}`;
  }
}

/**
 * When no key matched but the key set has one with this kid, the token's alg
 * does not fit that key: say so rather than "unknown kid". Null otherwise
 * (or when the key set cannot be listed, e.g. before a remote set is fetched).
 */
function algMismatch(jwks: KeyResolver, kid: string, alg: string): string | null {
  let set: JSONWebKeySet | undefined;
  try {
    set = (jwks as KeyResolver & { jwks?: () => JSONWebKeySet | undefined }).jwks?.();
  } catch {
    return null;
  }
  const same = set?.keys.filter((k) => k.kid === kid) ?? [];
  if (!same.length) return null;
  const what = same.map((k) => (k.alg ? `for ${k.alg}` : `a ${k.kty}${k.crv ? ` ${k.crv}` : ''} key`)).join(', ');
  return `JWT alg ${alg} does not fit the listener's key with kid ${JSON.stringify(kid)} (${what})`;
}

async function checkJwt(input: VerifyInput, eventId: string): Promise<VerifyResult | null> {
  const auth = headerValue(input.headers, 'authorization');
  if (!auth) return unauthorized('missing Authorization header (Bearer JWT)', eventId);
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(auth);
  if (!m) return unauthorized('Authorization is not a Bearer token', eventId);
  const token = m[1]!;
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return unauthorized('malformed JWT: the header cannot be decoded', eventId);
  }
  if (!isJwtAlgorithm(header.alg)) {
    return unauthorized(`JWT algorithm ${JSON.stringify(header.alg ?? null)} is not accepted (${JWT_ALGORITHMS.join(', ')} only)`, eventId);
  }
  const kid = header.kid;
  if (typeof kid !== 'string' || kid === '') return unauthorized('JWT header has no kid', eventId);
  // RFC 7515 §4.1.11: a recipient must refuse critical extensions it does not understand; none are defined here.
  if (header.crit !== undefined)
    return unauthorized(
      `JWT header lists critical extensions (crit ${JSON.stringify(header.crit).slice(0, 80)}); none are accepted`,
      eventId,
    );
  const jwks = input.listener.jwks;
  if (!jwks) return unauthorized('the listener has no JWKS to verify with', eventId);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, jwks, {
      algorithms: [...JWT_ALGORITHMS],
      audience: input.listener.endpointUrl,
      currentDate: new Date(input.now),
      requiredClaims: ['sub', 'aud', 'exp', 'jti', 'htm', 'htb_s256'],
    }));
  } catch (err) {
    const code = (err as { code?: string }).code;
    const mismatch = code === 'ERR_JWKS_NO_MATCHING_KEY' ? algMismatch(jwks, kid, header.alg!) : null;
    return unauthorized(mismatch ?? joseReason(err, kid, input.listener.endpointUrl), eventId);
  }
  if (typeof payload.sub !== 'string' || stripSlash(payload.sub) !== stripSlash(input.listener.tenantBaseUrl)) {
    return unauthorized(`JWT sub is not the tenant base URL ${input.listener.tenantBaseUrl}`, eventId);
  }
  const nowS = Math.floor(input.now / 1000);
  if (payload.exp! > nowS + MAX_JWT_LIFETIME_SECONDS) {
    return unauthorized(
      `JWT exp is ${Number((payload.exp! - nowS).toFixed(1))} s ahead; at most ${MAX_JWT_LIFETIME_SECONDS} s is allowed`,
      eventId,
    );
  }
  // Event IDs are compared without regard to case everywhere (the idempotency key is lower-cased).
  if (typeof payload.jti !== 'string' || payload.jti.toLowerCase() !== eventId.toLowerCase()) {
    return unauthorized('JWT jti does not equal the Webhook-Event-Id header', eventId);
  }
  if (payload.htm !== 'POST') return unauthorized(`JWT htm is ${JSON.stringify(payload.htm)}, expected "POST"`, eventId);
  if (payload.htb_s256 !== bodyHash(input.body))
    return unauthorized(`JWT htb_s256 does not match the SHA-256 of the ${input.body.length}-byte body`, eventId);
  return null;
}

/** Steps 1 to 3 passed: the event ID and the body text, for steps 4 and 5. */
export interface PassedChecks {
  passed: true;
  eventId: string;
  text: string;
}

const afterAuth = (eventId: string, text: string, authFail: VerifyResult | null): VerifyResult | PassedChecks =>
  authFail ?? { passed: true, eventId, text };

/**
 * Steps 1 to 3: the failing step's answer, or the checked event. Synchronous
 * for HMAC listeners (the ingest path answers them without waiting on
 * anything but the database); a promise for JWT listeners (the key set may be
 * fetched). Never throws for bad input.
 */
export function checkWebhook(input: VerifyInput): VerifyResult | PassedChecks | Promise<VerifyResult | PassedChecks> {
  const denied = checkSource(input);
  if (denied) return denied;
  if (input.body.length > MAX_BODY_BYTES) return bodyTooLarge(eventIdOf(input.headers));
  const req = checkRequest(input);
  if ('status' in req) return req;
  const { eventId, text } = req;
  if (input.listener.authMethod === 'HMAC') return afterAuth(eventId, text, checkHmac(input, eventId));
  return checkJwt(input, eventId).then((fail) => afterAuth(eventId, text, fail));
}

/** Steps 4 and 5: the answer for what recording an event that passed steps 1 to 3 did. */
export function acceptedResult(eventId: string, outcome: AcceptOutcome): VerifyResult {
  if (outcome.duplicate) {
    return {
      status: 409,
      step: 4,
      eventId,
      reason: 'duplicate event ID: already accepted for this listener; the automation is not run again',
    };
  }
  if (outcome.ran) {
    return { status: 200, step: 5, eventId, reason: 'accepted; automation run started', automationRan: true, runId: outcome.runId };
  }
  return {
    status: 200,
    step: 5,
    eventId,
    reason: `accepted; automation not run: ${outcome.notRunReason ?? 'it is not active'}`,
    automationRan: false,
  };
}

/** Runs the pipeline; never throws for bad input (only if `accept` throws). */
export async function verifyWebhook(input: VerifyInput): Promise<VerifyResult> {
  const checked = await checkWebhook(input);
  if (!('passed' in checked)) return checked;
  const { eventId, text } = checked;
  if (!input.accept) {
    return {
      status: 200,
      step: 5,
      eventId,
      reason:
        'all checks passed (idempotency not checked offline: the service answers 409 if this event ID was accepted in the last 7 days)',
      skipped: ["4: idempotency (needs the listener's event records)"],
    };
  }
  return acceptedResult(eventId, await input.accept(eventId.toLowerCase(), input.body, text));
}
