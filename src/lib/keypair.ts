// Fresh key pairs as JWKs.
import { generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';

export type KeyPairSpec = { type: 'ec'; namedCurve: 'P-256' } | { type: 'rsa'; modulusLength: number } | { type: 'ed25519' };

/**
 * Generates a key pair already encoded as JWKs by the generation itself.
 *
 * Not `generateKeyPairSync(...)` followed by `KeyObject.export({format: 'jwk'})`:
 * in Node 20 the returned KeyObjects share their key (and its lock) with the
 * finished generation job, and a garbage collection that destroys that job
 * during the export takes the lock the export holds. The process then hangs
 * for good (seen, rarely, as `agctl serve` never finishing its first start).
 */
export function generateJwkPair(spec: KeyPairSpec): { publicJwk: JWK; privateJwk: JWK } {
  const { type, ...options } = spec;
  // @types/node does not list the 'jwk' encoding for key generation; Node has had it since 15.12.
  const generate = generateKeyPairSync as unknown as (type: string, options: object) => { publicKey: JWK; privateKey: JWK };
  const { publicKey, privateKey } = generate(type, {
    ...options,
    publicKeyEncoding: { format: 'jwk' },
    privateKeyEncoding: { format: 'jwk' },
  });
  return { publicJwk: publicKey, privateJwk: privateKey };
}
