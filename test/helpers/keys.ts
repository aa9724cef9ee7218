// Key pairs for tests that need a key, not its generation: each kind is
// generated once per worker process (the 'shared' test files of a worker load
// this module once), since an RSA-2048 generation costs up to a second of CPU.
// Tests that need two different keys generate the second one themselves.
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { generateJwkPair, type KeyPairSpec } from '../../src/lib/keypair.js';
import { generateListenerKey } from '../../src/webhook/keys.js';
import type { JwtAlgorithm } from '../../src/webhook/sign.js';

type ListenerKey = ReturnType<typeof generateListenerKey>;

const listenerKeys = new Map<JwtAlgorithm, ListenerKey>();

/**
 * `generateListenerKey(alg)`, generated for real on the first call of a worker
 * and reused after. Each call returns its own copy; with `kid`, the copy's key
 * ID is `kid` (as `generateListenerKey(alg, kid)` gives), else the thumbprint.
 */
export function listenerKey(alg: JwtAlgorithm, kid?: string): ListenerKey {
  let key = listenerKeys.get(alg);
  if (!key) listenerKeys.set(alg, (key = generateListenerKey(alg)));
  const copy = structuredClone(key);
  if (kid === undefined) return copy;
  const relabel = (jwk: JWK): JWK => ({ ...jwk, kid });
  return { ...copy, kid, privateJwk: relabel(copy.privateJwk), publicJwks: { keys: copy.publicJwks.keys.map(relabel) } };
}

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** A fresh private key, made from the JWK the generation encoded (see src/lib/keypair.ts). */
const generatedKey = (spec: KeyPairSpec): KeyObject =>
  createPrivateKey({ key: generateJwkPair(spec).privateJwk as JsonWebKey, format: 'jwk' });

/** The worker's RSA-2048 private key: the one of `listenerKey('RS256')`, read back from its JWK. */
export const rsaKey = once(() => createPrivateKey({ key: listenerKey('RS256').privateJwk as JsonWebKey, format: 'jwk' }));
/** An RSA-1024 private key (too short for RS256). */
export const rsa1024Key = once(() => generatedKey({ type: 'rsa', modulusLength: 1024 }));
/** A P-256 private key. */
export const ecKey = once(() => generatedKey({ type: 'ec', namedCurve: 'P-256' }));

/** A private key as PEM: PKCS#8 unless `type` says otherwise; encrypted with `cipher` and `passphrase`. */
export function privatePem(
  key: KeyObject,
  encoding: { type?: 'pkcs8' | 'pkcs1' | 'sec1'; cipher?: string; passphrase?: string } = {},
): string {
  return key.export({ format: 'pem', type: 'pkcs8', ...encoding }).toString();
}
