// Every rule of the inbound webhook pipeline, and the order between them
// (service-api.md §3: the first failing step decides).
import { createHmac, createPublicKey, randomUUID } from 'node:crypto';
import { SignJWT, base64url, type JWK } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { localJwks } from '../../../src/webhook/jwks.js';
import { generateListenerKey } from '../../../src/webhook/keys.js';
import { bodyHash, createWebhookJwt, hmacSignature } from '../../../src/webhook/sign.js';
import {
  acceptedResult,
  checkWebhook,
  verifyWebhook,
  type AcceptOutcome,
  type ListenerConfig,
  type VerifyInput,
} from '../../../src/webhook/verify.js';
import { listenerKey } from '../../helpers/keys.js';

// A server time with a fractional second, so "seconds" means floor(now / 1000).
const NOW = 1_700_000_000_640;
const NOW_S = Math.floor(NOW / 1000);
const TENANT = 'https://acme.example.com';
const ENDPOINT = `${TENANT}/api/v1/webhooks/incoming/L1`;
const SECRET = 'c2VjcmV0LWJ5dGVzLWZvci10aGUtdGVzdHMtb25seS0';
const BODY = Buffer.from(JSON.stringify({ order: 42, items: ['a', 'b'] }));

const es = generateListenerKey('ES256', 'k-es');
const rs = listenerKey('RS256', 'k-rs');
const ed = generateListenerKey('EdDSA', 'k-ed');
const other = generateListenerKey('ES256', 'k-es'); // same kid, different key
const JWKS = localJwks({ keys: [...es.publicJwks.keys, ...rs.publicJwks.keys, ...ed.publicJwks.keys] });

const hmacListener: ListenerConfig = { authMethod: 'HMAC', secret: SECRET, endpointUrl: ENDPOINT, tenantBaseUrl: TENANT };
const jwtListener: ListenerConfig = { authMethod: 'JWT', jwks: JWKS, endpointUrl: ENDPOINT, tenantBaseUrl: TENANT };
const restricted = (l: ListenerConfig, cidrs: string[]): ListenerConfig => ({ ...l, allowedCidrs: cidrs });

interface HmacReq {
  ts?: string | number;
  id?: string;
  body?: Buffer;
  /** Timestamp / ID / body the signature is computed over (default: the sent ones). */
  signTs?: string | number;
  signBody?: Buffer;
  secret?: string;
  sig?: string | null;
  headers?: Record<string, string | undefined>;
  ip?: string;
  listener?: ListenerConfig;
  trustProxy?: boolean;
}

function hmacInput(o: HmacReq = {}): VerifyInput {
  const ts = String(o.ts ?? NOW_S);
  const id = o.id ?? 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
  const body = o.body ?? BODY;
  const sig = o.sig === undefined ? hmacSignature(o.secret ?? SECRET, String(o.signTs ?? ts), id, o.signBody ?? body) : o.sig;
  const headers: Record<string, string | undefined> = {
    'webhook-timestamp': ts,
    'webhook-event-id': id,
    'content-type': 'application/json',
    ...(sig === null ? {} : { 'webhook-signature': sig }),
    ...o.headers,
  };
  for (const k of Object.keys(headers)) if (headers[k] === undefined) delete headers[k];
  return { sourceIp: o.ip ?? '127.0.0.1', headers, body, listener: o.listener ?? hmacListener, now: NOW, trustProxy: o.trustProxy };
}

/** A JSON document of exactly `size` bytes. */
const jsonOfSize = (size: number) => Buffer.from(`{"pad":"${'x'.repeat(size - 10)}"}`);

type Case = [name: string, input: () => VerifyInput | Promise<VerifyInput>, status: number, step: number, reason: RegExp];

const HMAC_CASES: Case[] = [
  [
    'a valid HMAC request passes (offline: idempotency skipped)',
    () => hmacInput(),
    200,
    5,
    /all checks passed.*idempotency not checked offline/,
  ],
  // Step 1: source addresses
  [
    'source outside the allowlist is 403',
    () => hmacInput({ listener: restricted(hmacListener, ['203.0.113.0/24']) }),
    403,
    1,
    /source address 127\.0\.0\.1 is not in/,
  ],
  [
    'source inside an IPv4 range passes',
    () => hmacInput({ ip: '203.0.113.77', listener: restricted(hmacListener, ['203.0.113.0/24']) }),
    200,
    5,
    /passed/,
  ],
  [
    'IPv4-mapped IPv6 source matches an IPv4 range',
    () => hmacInput({ ip: '::ffff:127.0.0.1', listener: restricted(hmacListener, ['127.0.0.0/8']) }),
    200,
    5,
    /passed/,
  ],
  [
    'IPv6 source inside an IPv6 range passes',
    () => hmacInput({ ip: '2001:db8:1::5', listener: restricted(hmacListener, ['2001:db8::/32']) }),
    200,
    5,
    /passed/,
  ],
  [
    'IPv6 source outside the ranges is 403',
    () => hmacInput({ ip: '2001:db9::5', listener: restricted(hmacListener, ['2001:db8::/32', '10.0.0.0/8']) }),
    403,
    1,
    /2001:db9::5/,
  ],
  [
    'IPv4 source does not match an IPv6 range',
    () => hmacInput({ ip: '10.0.0.1', listener: restricted(hmacListener, ['2001:db8::/32']) }),
    403,
    1,
    /10\.0\.0\.1/,
  ],
  [
    'X-Forwarded-For is ignored without trustProxy',
    () => hmacInput({ headers: { 'x-forwarded-for': '203.0.113.9' }, listener: restricted(hmacListener, ['203.0.113.0/24']) }),
    403,
    1,
    /127\.0\.0\.1/,
  ],
  [
    'X-Forwarded-For decides with trustProxy',
    () =>
      hmacInput({
        trustProxy: true,
        headers: { 'x-forwarded-for': '203.0.113.9' },
        listener: restricted(hmacListener, ['203.0.113.0/24']),
      }),
    200,
    5,
    /passed/,
  ],
  [
    'with trustProxy only the last X-Forwarded-For entry counts (a spoofed first entry does not)',
    () =>
      hmacInput({
        trustProxy: true,
        headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' },
        listener: restricted(hmacListener, ['203.0.113.0/24']),
      }),
    403,
    1,
    /198\.51\.100\.7/,
  ],
  [
    'an empty allowlist means no restriction',
    () => hmacInput({ ip: '198.51.100.1', listener: restricted(hmacListener, []) }),
    200,
    5,
    /passed/,
  ],
  // Step 2: headers and body
  [
    'missing Webhook-Timestamp is 400',
    () => hmacInput({ headers: { 'webhook-timestamp': undefined } }),
    400,
    2,
    /missing Webhook-Timestamp/,
  ],
  ['non-integer timestamp is 400', () => hmacInput({ ts: '1700000000.5' }), 400, 2, /not an integer/],
  ['timestamp in milliseconds is 400 (out of range)', () => hmacInput({ ts: NOW }), 400, 2, /ahead of server time/],
  ['timestamp with letters is 400', () => hmacInput({ ts: 'yesterday' }), 400, 2, /not an integer/],
  ['a huge timestamp is 400', () => hmacInput({ ts: '9'.repeat(40) }), 400, 2, /far ahead of server time/],
  ['skew of 299 s behind passes', () => hmacInput({ ts: NOW_S - 299 }), 200, 5, /passed/],
  ['skew of 300 s behind passes', () => hmacInput({ ts: NOW_S - 300 }), 200, 5, /passed/],
  ['skew of 301 s behind is 400', () => hmacInput({ ts: NOW_S - 301 }), 400, 2, /301 s behind server time/],
  ['skew of 300 s ahead passes', () => hmacInput({ ts: NOW_S + 300 }), 200, 5, /passed/],
  ['skew of 301 s ahead is 400', () => hmacInput({ ts: NOW_S + 301 }), 400, 2, /301 s ahead of server time/],
  ['missing Webhook-Event-Id is 400', () => hmacInput({ headers: { 'webhook-event-id': undefined } }), 400, 2, /missing Webhook-Event-Id/],
  ['UUID version 1 is 400', () => hmacInput({ id: 'a8098c1a-f86e-11da-bd1a-00112444be1e' }), 400, 2, /not a UUID version 4/],
  [
    'UUID v4 with a non-RFC 4122 variant is 400',
    () => hmacInput({ id: 'f47ac10b-58cc-4372-c567-0e02b2c3d479' }),
    400,
    2,
    /not a UUID version 4/,
  ],
  ['event ID that is not a UUID is 400', () => hmacInput({ id: 'evt_123' }), 400, 2, /not a UUID version 4/],
  ['upper-case UUID v4 passes', () => hmacInput({ id: 'F47AC10B-58CC-4372-A567-0E02B2C3D479' }), 200, 5, /passed/],
  ['missing Content-Type is 400', () => hmacInput({ headers: { 'content-type': undefined } }), 400, 2, /missing Content-Type/],
  ['text/plain is 400', () => hmacInput({ headers: { 'content-type': 'text/plain' } }), 400, 2, /is not JSON/],
  [
    'application/json with charset passes',
    () => hmacInput({ headers: { 'content-type': 'Application/JSON; charset=utf-8' } }),
    200,
    5,
    /passed/,
  ],
  ['a +json media type passes', () => hmacInput({ headers: { 'content-type': 'application/cloudevents+json' } }), 200, 5, /passed/],
  ['body that is not JSON is 400', () => hmacInput({ body: Buffer.from('{"order": 42,') }), 400, 2, /not valid JSON/],
  ['empty body is 400', () => hmacInput({ body: Buffer.alloc(0) }), 400, 2, /empty/],
  ['body that is not UTF-8 is 400', () => hmacInput({ body: Buffer.from([0x22, 0xff, 0xfe, 0x22]) }), 400, 2, /UTF-8/],
  ['any JSON document passes (a bare string)', () => hmacInput({ body: Buffer.from('"just a string"') }), 200, 5, /passed/],
  [
    'a body with a UTF-8 byte order mark is 400',
    () => hmacInput({ body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), BODY]) }),
    400,
    2,
    /byte order mark/,
  ],
  [
    'a charset other than UTF-8 is 400',
    () => hmacInput({ headers: { 'content-type': 'application/json; charset=iso-8859-1' } }),
    400,
    2,
    /charset "iso-8859-1" is not accepted/,
  ],
  ['a quoted UTF-8 charset passes', () => hmacInput({ headers: { 'content-type': 'application/json;charset="UTF-8"' } }), 200, 5, /passed/],
  ['a body of exactly 64 KiB passes', () => hmacInput({ body: jsonOfSize(64 * 1024) }), 200, 5, /passed/],
  ['a body one byte over 64 KiB is 413', () => hmacInput({ body: jsonOfSize(64 * 1024 + 1) }), 413, 2, /larger than 65536 bytes/],
  [
    'an oversized body from outside the allowlist is 403 (step 1 first)',
    () => hmacInput({ body: jsonOfSize(64 * 1024 + 1), listener: restricted(hmacListener, ['203.0.113.0/24']) }),
    403,
    1,
    /not in the listener's allowed ranges/,
  ],
  [
    'an oversized body with bad headers is 413 (the size is refused before the headers are judged)',
    () => hmacInput({ ts: 'bad', body: jsonOfSize(64 * 1024 + 1) }),
    413,
    2,
    /larger than/,
  ],
  // Step 3: HMAC
  ['missing Webhook-Signature is 401', () => hmacInput({ sig: null }), 401, 3, /missing Webhook-Signature/],
  [
    'signature with the wrong secret is 401 with the byte count',
    () => hmacInput({ secret: 'not-the-secret' }),
    401,
    3,
    new RegExp(
      `signature mismatch: computed over ${Buffer.byteLength(`${NOW_S}.f47ac10b-58cc-4372-a567-0e02b2c3d479.`) + BODY.length} bytes`,
    ),
  ],
  [
    'signature keyed with the base64url-decoded secret is 401 (the key is the string as-is)',
    () =>
      hmacInput({
        sig: createHmac('sha256', Buffer.from(SECRET, 'base64url'))
          .update(`${NOW_S}.f47ac10b-58cc-4372-a567-0e02b2c3d479.`)
          .update(BODY)
          .digest('base64url'),
      }),
    401,
    3,
    /signature mismatch/,
  ],
  [
    'signature over a different body is 401',
    () => hmacInput({ signBody: Buffer.from(JSON.stringify({ order: 43, items: ['a', 'b'] })) }),
    401,
    3,
    /signature mismatch/,
  ],
  ['signature over a different timestamp is 401', () => hmacInput({ signTs: NOW_S - 1 }), 401, 3, /signature mismatch/],
  [
    'padded base64 signature is 401 with a hint',
    () => hmacInput({ sig: hmacSignature(SECRET, NOW_S, 'f47ac10b-58cc-4372-a567-0e02b2c3d479', BODY) + '=' }),
    401,
    3,
    /base64url without padding/,
  ],
  [
    'hex signature is 401 with a hint',
    () =>
      hmacInput({ sig: createHmac('sha256', SECRET).update(`${NOW_S}.f47ac10b-58cc-4372-a567-0e02b2c3d479.`).update(BODY).digest('hex') }),
    401,
    3,
    /hex-encoded/,
  ],
  // Order between rules
  [
    'allowlisted-out with bad headers is 403 (step 1 first)',
    () => hmacInput({ ts: 'bad', id: 'bad', sig: null, body: Buffer.from('{'), listener: restricted(hmacListener, ['203.0.113.0/24']) }),
    403,
    1,
    /not in the listener's allowed ranges/,
  ],
  ['stale timestamp with a good signature is 400 (step 2 before 3)', () => hmacInput({ ts: NOW_S - 3600 }), 400, 2, /3600 s behind/],
  ['bad event ID and bad signature is 400', () => hmacInput({ id: 'nope', sig: 'AAAA' }), 400, 2, /UUID version 4/],
  ['bad JSON and a missing signature is 400', () => hmacInput({ body: Buffer.from('nope'), sig: null }), 400, 2, /not valid JSON/],
];

describe('verifyWebhook: HMAC listener', () => {
  it.each(HMAC_CASES)('%s', async (_name, make, status, step, reason) => {
    const r = await verifyWebhook(await make());
    expect({ status: r.status, step: r.step }).toEqual({ status, step });
    expect(r.reason).toMatch(reason);
  });

  it('echoes the event ID when valid, null when not', async () => {
    expect((await verifyWebhook(hmacInput({ sig: 'x' }))).eventId).toBe('f47ac10b-58cc-4372-a567-0e02b2c3d479');
    expect((await verifyWebhook(hmacInput({ id: 'nope' }))).eventId).toBeNull();
  });

  it('records accepted events through accept: new -> 200 with a run, repeat -> 409', async () => {
    const seen = new Set<string>();
    const accept = vi.fn((key: string, _b: Uint8Array, text: string): AcceptOutcome => {
      expect(JSON.parse(text)).toEqual({ order: 42, items: ['a', 'b'] });
      if (seen.has(key)) return { duplicate: true };
      seen.add(key);
      return { duplicate: false, ran: true, runId: 'run-1' };
    });
    const first = await verifyWebhook({ ...hmacInput(), accept });
    expect(first).toMatchObject({ status: 200, step: 5, automationRan: true, runId: 'run-1' });
    const again = await verifyWebhook({ ...hmacInput(), accept });
    expect(again).toMatchObject({ status: 409, step: 4, reason: expect.stringMatching(/duplicate event ID/) });
    // The idempotency key is case-insensitive: the same UUID in upper case is the same event.
    const upper = await verifyWebhook({ ...hmacInput({ id: 'F47AC10B-58CC-4372-A567-0E02B2C3D479' }), accept });
    expect(upper.status).toBe(409);
    expect(accept).toHaveBeenCalledTimes(3);
  });

  it('a duplicate with a bad signature is 401 and never reaches the idempotency step', async () => {
    const accept = vi.fn((): AcceptOutcome => ({ duplicate: true }));
    const r = await verifyWebhook({ ...hmacInput({ secret: 'wrong' }), accept });
    expect(r.status).toBe(401);
    expect(accept).not.toHaveBeenCalled();
    const good = await verifyWebhook({ ...hmacInput(), accept });
    expect(good.status).toBe(409);
  });

  it('says when the automation did not run', async () => {
    const r = await verifyWebhook({
      ...hmacInput(),
      accept: () => ({ duplicate: false, ran: false, notRunReason: 'the automation is not published' }),
    });
    expect(r).toMatchObject({
      status: 200,
      step: 5,
      automationRan: false,
      reason: 'accepted; automation not run: the automation is not published',
    });
  });
});

describe("checkWebhook (steps 1-3, the listener's hot path)", () => {
  it.each(HMAC_CASES)('HMAC, synchronously, as verifyWebhook decides: %s', async (_name, make, status, step) => {
    const input = await make();
    const checked = checkWebhook(input);
    expect(checked).not.toBeInstanceOf(Promise);
    const sync = checked as Exclude<typeof checked, Promise<unknown>>;
    if ('passed' in sync) {
      expect({ status, step }).toEqual({ status: 200, step: 5 });
      expect(sync.eventId.toLowerCase()).toBe(String(input.headers['webhook-event-id']).toLowerCase());
      expect(JSON.parse(sync.text)).toEqual(JSON.parse(Buffer.from(input.body).toString('utf8')));
    } else {
      expect({ status: sync.status, step: sync.step }).toEqual({ status, step });
    }
  });

  it('acceptedResult maps what recording did to the answer of steps 4 and 5', () => {
    const id = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
    expect(acceptedResult(id, { duplicate: true })).toMatchObject({ status: 409, step: 4, eventId: id });
    expect(acceptedResult(id, { duplicate: false, ran: true, runId: 'r1' })).toMatchObject({
      status: 200,
      step: 5,
      automationRan: true,
      runId: 'r1',
    });
    expect(acceptedResult(id, { duplicate: false, ran: false, notRunReason: 'x' })).toMatchObject({
      status: 200,
      automationRan: false,
      reason: 'accepted; automation not run: x',
    });
  });
});

interface JwtReq {
  key?: JWK;
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  drop?: string[];
  id?: string;
  body?: Buffer;
  auth?: string | null;
  /** Critical header parameters the signer declares as understood (jose refuses `crit` otherwise). */
  crit?: Record<string, boolean>;
}

async function jwtInput(o: JwtReq = {}): Promise<VerifyInput> {
  const id = o.id ?? randomUUID();
  const body = o.body ?? BODY;
  let auth = o.auth;
  if (auth === undefined) {
    const key = o.key ?? es.privateJwk;
    const claims: Record<string, unknown> = {
      sub: TENANT,
      aud: ENDPOINT,
      exp: NOW_S + 300,
      iat: NOW_S,
      jti: id,
      htm: 'POST',
      htb_s256: bodyHash(body),
      ...o.claims,
    };
    for (const d of o.drop ?? []) delete claims[d];
    const jwt = await new SignJWT(claims).setProtectedHeader({ alg: key.alg!, kid: key.kid, ...o.header }).sign(key, { crit: o.crit });
    auth = `Bearer ${jwt}`;
  }
  const headers: Record<string, string> = {
    'webhook-timestamp': String(NOW_S),
    'webhook-event-id': id,
    'content-type': 'application/json',
  };
  if (auth !== null) headers.authorization = auth;
  return { sourceIp: '127.0.0.1', headers, body, listener: jwtListener, now: NOW };
}

const unsigned = (header: object, claims: object) =>
  `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(claims))}.`;
const goodClaims = (id: string) => ({ sub: TENANT, aud: ENDPOINT, exp: NOW_S + 300, jti: id, htm: 'POST', htb_s256: bodyHash(BODY) });

async function hs256WithPublicKey(id: string): Promise<string> {
  // The classic key-confusion attack: HMAC keyed with the listener's public key.
  const pem = createPublicKey({ key: es.publicJwks.keys[0] as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  return new SignJWT(goodClaims(id)).setProtectedHeader({ alg: 'HS256', kid: 'k-es' }).sign(new TextEncoder().encode(String(pem)));
}

const ID = '9b2f4c1e-7d3a-4e8b-9f60-1a2b3c4d5e6f';
const JWT_CASES: Case[] = [
  ['a valid ES256 JWT passes', () => jwtInput(), 200, 5, /passed/],
  ['a valid RS256 JWT passes', () => jwtInput({ key: rs.privateJwk }), 200, 5, /passed/],
  ['a valid EdDSA JWT passes', () => jwtInput({ key: ed.privateJwk }), 200, 5, /passed/],
  [
    'createWebhookJwt output passes',
    async () => {
      const jwt = await createWebhookJwt({
        key: es.privateJwk,
        alg: 'ES256',
        kid: 'k-es',
        tenant: TENANT,
        endpointUrl: ENDPOINT,
        eventId: ID,
        body: BODY,
        nowSeconds: NOW_S,
      });
      return jwtInput({ id: ID, auth: `Bearer ${jwt}` });
    },
    200,
    5,
    /passed/,
  ],
  ['sub with a trailing slash passes', () => jwtInput({ claims: { sub: `${TENANT}/` } }), 200, 5, /passed/],
  ['exp exactly 10 minutes ahead passes', () => jwtInput({ claims: { exp: NOW_S + 600 } }), 200, 5, /passed/],
  ['exp just past 10 minutes ahead is 401', () => jwtInput({ claims: { exp: NOW_S + 601 } }), 401, 3, /601 s ahead; at most 600/],
  ['exp one second ago is 401 (expired)', () => jwtInput({ claims: { exp: NOW_S - 1 } }), 401, 3, /JWT expired/],
  ['exp equal to now is 401 (expired)', () => jwtInput({ claims: { exp: NOW_S } }), 401, 3, /JWT expired/],
  ['missing Authorization is 401', () => jwtInput({ auth: null }), 401, 3, /missing Authorization/],
  ['Basic authorization is 401', () => jwtInput({ auth: 'Basic dXNlcjpwYXNz' }), 401, 3, /not a Bearer token/],
  ['a token that is not a JWT is 401', () => jwtInput({ auth: 'Bearer not-a-jwt' }), 401, 3, /malformed JWT/],
  [
    'alg none is 401',
    () => jwtInput({ id: ID, auth: `Bearer ${unsigned({ alg: 'none', kid: 'k-es' }, goodClaims(ID))}` }),
    401,
    3,
    /algorithm "none" is not accepted/,
  ],
  [
    'alg missing is 401',
    () => jwtInput({ id: ID, auth: `Bearer ${unsigned({ kid: 'k-es' }, goodClaims(ID))}` }),
    401,
    3,
    /algorithm null is not accepted/,
  ],
  [
    'HS256 signed with the public key is 401',
    async () => jwtInput({ id: ID, auth: `Bearer ${await hs256WithPublicKey(ID)}` }),
    401,
    3,
    /algorithm "HS256" is not accepted/,
  ],
  [
    'an unlisted asymmetric algorithm (ES384) is 401',
    () => jwtInput({ id: ID, auth: `Bearer ${unsigned({ alg: 'ES384', kid: 'k-es' }, goodClaims(ID))}sig` }),
    401,
    3,
    /"ES384" is not accepted/,
  ],
  ['unknown kid is 401', () => jwtInput({ header: { kid: 'k-nobody' } }), 401, 3, /unknown kid "k-nobody"/],
  ['missing kid is 401', () => jwtInput({ header: { kid: undefined } }), 401, 3, /no kid/],
  ['a key that is not in the JWKS (same kid) is 401', () => jwtInput({ key: other.privateJwk }), 401, 3, /signature verification failed/],
  [
    'a kid naming a key of another algorithm is 401, and says so',
    () => jwtInput({ key: es.privateJwk, header: { kid: 'k-rs' } }),
    401,
    3,
    /JWT alg ES256 does not fit the listener's key with kid "k-rs" \(for RS256\)/,
  ],
  [
    'a crit header is 401 (no critical extension is understood)',
    () => jwtInput({ header: { crit: ['x-custom'], 'x-custom': 1 }, crit: { 'x-custom': true } }),
    401,
    3,
    /critical extensions/,
  ],
  [
    'a fractional exp past 10 minutes is 401 with a readable number',
    () => jwtInput({ claims: { exp: NOW_S + 600.9 } }),
    401,
    3,
    /exp is 600\.9 s ahead/,
  ],
  [
    'an upper-case event ID with its lower-case jti passes (event IDs ignore case)',
    () => jwtInput({ id: ID.toUpperCase(), claims: { jti: ID } }),
    200,
    5,
    /passed/,
  ],
  [
    'wrong aud is 401',
    () => jwtInput({ claims: { aud: `${TENANT}/api/v1/webhooks/incoming/OTHER` } }),
    401,
    3,
    /^JWT aud is "https:\/\/acme\.example\.com\/api\/v1\/webhooks\/incoming\/OTHER", not the endpoint URL "https:\/\/acme\.example\.com\/api\/v1\/webhooks\/incoming\/L1"$/,
  ],
  ['wrong sub is 401', () => jwtInput({ claims: { sub: 'https://evil.example.com' } }), 401, 3, /sub is not the tenant base URL/],
  ['wrong htm is 401', () => jwtInput({ claims: { htm: 'GET' } }), 401, 3, /htm is "GET"/],
  [
    'jti other than the event ID is 401',
    () => jwtInput({ claims: { jti: randomUUID() } }),
    401,
    3,
    /jti does not equal the Webhook-Event-Id/,
  ],
  [
    'htb_s256 of another body is 401',
    () => jwtInput({ claims: { htb_s256: bodyHash(Buffer.from('{}')) } }),
    401,
    3,
    /htb_s256 does not match/,
  ],
  [
    'htb_s256 in hex is 401',
    () => jwtInput({ claims: { htb_s256: Buffer.from(bodyHash(BODY), 'base64url').toString('hex') } }),
    401,
    3,
    /htb_s256 does not match/,
  ],
  ...(['sub', 'aud', 'exp', 'jti', 'htm', 'htb_s256'] as const).map(
    (claim): Case => [
      `missing ${claim} is 401`,
      () => jwtInput({ drop: [claim] }),
      401,
      3,
      new RegExp(`^JWT claim "${claim}" is missing$`),
    ],
  ),
  // Order between rules
  [
    'a JWT request with a stale timestamp is 400 even with a valid token',
    async () => {
      const i = await jwtInput();
      i.headers['webhook-timestamp'] = String(NOW_S - 301);
      return i;
    },
    400,
    2,
    /301 s behind/,
  ],
  [
    'a JWT request outside the allowlist with no token is 403',
    async () => {
      const i = await jwtInput({ auth: null });
      return { ...i, listener: restricted(jwtListener, ['10.0.0.0/8']) };
    },
    403,
    1,
    /not in the listener's allowed ranges/,
  ],
];

describe('verifyWebhook: JWT listener', () => {
  it.each(JWT_CASES)('%s', async (_name, make, status, step, reason) => {
    const r = await verifyWebhook(await make());
    expect({ status: r.status, step: r.step, reason: r.reason }).toMatchObject({ status, step });
    expect(r.reason).toMatch(reason);
  });

  it('a JWT listener ignores HMAC signatures, and an HMAC listener ignores JWTs', async () => {
    const jwtReq = await jwtInput({ auth: null });
    jwtReq.headers['webhook-signature'] = hmacSignature(SECRET, NOW_S, jwtReq.headers['webhook-event-id'] as string, BODY);
    expect((await verifyWebhook({ ...jwtReq, listener: { ...jwtListener, secret: SECRET } })).status).toBe(401);
    const withJwt = await jwtInput();
    expect((await verifyWebhook({ ...withJwt, listener: { ...hmacListener, jwks: JWKS } })).reason).toMatch(/missing Webhook-Signature/);
  });

  it('checkWebhook answers a JWT request through a promise (the key set may be fetched)', async () => {
    const checked = checkWebhook(await jwtInput());
    expect(checked).toBeInstanceOf(Promise);
    expect(await checked).toMatchObject({ passed: true });
  });

  it('a JWKS that cannot be used is a 401 with the reason', async () => {
    const failing = {
      ...jwtListener,
      jwks: () => Promise.reject(Object.assign(new Error('JWKS URL must use https'), { name: 'JwksError' })),
    };
    const r = await verifyWebhook({ ...(await jwtInput()), listener: failing });
    expect(r).toMatchObject({ status: 401, step: 3, reason: 'JWKS URL must use https' });
  });
});
