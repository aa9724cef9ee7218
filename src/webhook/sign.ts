// Signing side of inbound webhooks (service-api.md §5.2): the HMAC signature
// over `<timestamp>.<event_id>.<raw body>`, and the JWT with the request-binding
// claims (sub, aud, exp, jti, htm, htb_s256).
import { createHash, createHmac, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, type JWK } from 'jose';

export const HEADER_TIMESTAMP = 'webhook-timestamp';
export const HEADER_EVENT_ID = 'webhook-event-id';
export const HEADER_SIGNATURE = 'webhook-signature';

/** Algorithms a JWT listener accepts (never `none`, never an HMAC algorithm). */
export const JWT_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];
export const isJwtAlgorithm = (a: unknown): a is JwtAlgorithm => (JWT_ALGORITHMS as readonly unknown[]).includes(a);

/** A new HMAC signing secret: 256 random bits as base64url (43 characters). */
export const newHmacSecret = (): string => randomBytes(32).toString('base64url');

/** A new event ID (UUID version 4). */
export const newEventId = (): string => randomUUID();

/** The exact bytes the HMAC covers: `<timestamp>.<event_id>.<raw body bytes>`. */
export function signatureInput(timestamp: string | number, eventId: string, body: Uint8Array): Buffer {
  const prefix = Buffer.from(`${timestamp}.${eventId}.`, 'utf8');
  return Buffer.concat([prefix, body], prefix.length + body.length);
}

/**
 * The `Webhook-Signature` value: base64url (no padding) HMAC-SHA256 of the
 * signature input, keyed with the secret string as-is (not base64-decoded).
 */
export function hmacSignature(secret: string, timestamp: string | number, eventId: string, body: Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestamp}.${eventId}.`, 'utf8').update(body).digest('base64url');
}

/** base64url (no padding) SHA-256 of the raw body: the JWT's `htb_s256` claim. */
export const bodyHash = (body: Uint8Array): string => createHash('sha256').update(body).digest('base64url');

interface WebhookJwtOptions {
  /** The private key (a KeyObject or a private JWK). */
  key: KeyObject | JWK;
  alg: JwtAlgorithm;
  kid: string;
  /** `sub`: the tenant base URL. */
  tenant: string;
  /** `aud`: the full listener endpoint URL. */
  endpointUrl: string;
  /** `jti`: equal to the Webhook-Event-Id header. */
  eventId: string;
  body: Uint8Array;
  /** Issue time in Unix seconds. */
  nowSeconds: number;
  /** Lifetime in seconds (default 300; listeners refuse more than 600). */
  ttlSeconds?: number;
  /** `htm` (default POST). */
  method?: string;
}

/** Creates the `Authorization: Bearer` JWT for one webhook request. */
export async function createWebhookJwt(o: WebhookJwtOptions): Promise<string> {
  const ttl = o.ttlSeconds ?? 300;
  return new SignJWT({ htm: o.method ?? 'POST', htb_s256: bodyHash(o.body) })
    .setProtectedHeader({ alg: o.alg, kid: o.kid, typ: 'JWT' })
    .setSubject(o.tenant)
    .setAudience(o.endpointUrl)
    .setJti(o.eventId)
    .setIssuedAt(o.nowSeconds)
    .setExpirationTime(o.nowSeconds + ttl)
    .sign(o.key);
}
