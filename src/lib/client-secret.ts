// Client secrets in the two forms the service issues:
//   - a plain secret, sent as `client_secret`;
//   - a key secret `secret-token:<issuer>:v1:<base64url of an Ed25519 private JWK>`,
//     used to sign a `client_assertion` (RFC 7523) instead of sending the secret.
//     Tenants issue it as `secret-token:conductorone.com:v1:<key>`, the key
//     `{"kty":"OKP","crv":"Ed25519","x":…,"d":…}` in unpadded base64url; the
//     vendor's clients split it on ':' into exactly four parts (so the issuer
//     holds no ':') and want `v1` third (service-notes.md §1).
import type { JWK } from 'jose';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const PREFIX = 'secret-token:';
/** The issuer part of the key secrets real tenants issue (the embedded server issues the same). */
export const KEY_SECRET_ISSUER = 'conductorone.com';

interface KeySecret {
  issuer: string;
  jwk: JWK;
}

/** A key secret for an Ed25519 private JWK, in the form tenants issue (only its kty, crv, x and d, in that order). */
export function encodeKeySecret(issuer: string, jwk: JWK): string {
  const key = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d };
  return `${PREFIX}${issuer}:v1:${Buffer.from(JSON.stringify(key)).toString('base64url')}`;
}

/** True when the secret looks like a key secret (whether or not it parses). */
export const isKeySecret = (secret: string): boolean => secret.startsWith(PREFIX);

/** Parses a key secret; throws an Error with a message safe to show (it never echoes the secret). */
export function parseKeySecret(secret: string): KeySecret {
  if (!isKeySecret(secret)) throw new Error('not a key secret (expected secret-token:<issuer>:v1:<key>)');
  const rest = secret.slice(PREFIX.length);
  // Split as the vendor's clients split it: four parts, so an issuer with a ':' does not parse.
  const m = /^([^:]+):v1:([A-Za-z0-9_-]+)$/.exec(rest);
  if (!m) throw new Error('malformed key secret: expected secret-token:<issuer>:v1:<base64url key>');
  let jwk: JWK;
  try {
    jwk = JSON.parse(Buffer.from(m[2]!, 'base64url').toString('utf8')) as JWK;
  } catch {
    throw new Error('malformed key secret: the key part is not a base64url JSON Web Key');
  }
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string') {
    throw new Error('malformed key secret: the key is not an Ed25519 private key');
  }
  return { issuer: m[1]!, jwk };
}
