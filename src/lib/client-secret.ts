// Client secrets in the two forms the service issues:
//   - a plain secret, sent as `client_secret`;
//   - a key secret `secret-token:<issuer>:v1:<base64url of an Ed25519 private JWK>`,
//     used to sign a `client_assertion` (RFC 7523) instead of sending the secret.
import type { JWK } from 'jose';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const PREFIX = 'secret-token:';

interface KeySecret {
  issuer: string;
  jwk: JWK;
}

export function encodeKeySecret(issuer: string, jwk: JWK): string {
  return `${PREFIX}${issuer}:v1:${Buffer.from(JSON.stringify(jwk)).toString('base64url')}`;
}

/** True when the secret looks like a key secret (whether or not it parses). */
export const isKeySecret = (secret: string): boolean => secret.startsWith(PREFIX);

/** Parses a key secret; throws an Error with a message safe to show (it never echoes the secret). */
export function parseKeySecret(secret: string): KeySecret {
  if (!isKeySecret(secret)) throw new Error('not a key secret (expected secret-token:<issuer>:v1:<key>)');
  const rest = secret.slice(PREFIX.length);
  const m = /^(.+):v1:([A-Za-z0-9_-]+)$/.exec(rest);
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
