// Signing keys of JWT webhook listeners: key pairs for ES256, RS256 and EdDSA
// as a private JWK plus a public JWKS, and loading a private key (JWK or PEM)
// for `agctl webhook send --jwt-key`.
import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { isJsonObject } from '../lib/json.js';
import { generateJwkPair, type KeyPairSpec } from '../lib/keypair.js';
import { JWT_ALGORITHMS, createWebhookJwt, isJwtAlgorithm, type JwtAlgorithm } from './sign.js';

/** The smallest RSA key jose (and RFC 7518 §3.3) accepts for RS256. */
const MIN_RSA_BITS = 2048;

export class KeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyError';
  }
}

interface GeneratedKey {
  alg: JwtAlgorithm;
  kid: string;
  /** Private JWK with kid, alg and use. Keep it secret (write it 0600). */
  privateJwk: JWK;
  /** `{keys: [public JWK]}` to publish at the listener's JWKS URL. */
  publicJwks: { keys: JWK[] };
}

const PUBLIC_MEMBERS: Record<string, string[]> = {
  EC: ['crv', 'kty', 'x', 'y'],
  RSA: ['e', 'kty', 'n'],
  OKP: ['crv', 'kty', 'x'],
};

/** The RFC 7638 JWK thumbprint (SHA-256, base64url): the default key ID. */
export function jwkThumbprint(jwk: JWK): string {
  const members = PUBLIC_MEMBERS[jwk.kty ?? ''];
  if (!members) throw new KeyError(`unsupported key type ${jwk.kty}`);
  const canon: Record<string, unknown> = {};
  for (const m of members) {
    const v = (jwk as Record<string, unknown>)[m];
    if (typeof v !== 'string') throw new KeyError(`the JWK has no "${m}" member`);
    canon[m] = v;
  }
  return createHash('sha256').update(JSON.stringify(canon)).digest('base64url');
}

/** The JWS algorithm a key is used with: ES256 (P-256), RS256 (RSA), EdDSA (Ed25519). */
function algorithmForKey(key: KeyObject): JwtAlgorithm {
  const type = key.asymmetricKeyType;
  if (type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  if (type === 'rsa') return 'RS256';
  if (type === 'ed25519') return 'EdDSA';
  const detail = type === 'ec' ? ` on curve ${key.asymmetricKeyDetails?.namedCurve}` : '';
  throw new KeyError(`unsupported key type ${type}${detail}: use an ES256 (P-256), RS256 (RSA) or EdDSA (Ed25519) key`);
}

const SPECS: Record<JwtAlgorithm, KeyPairSpec> = {
  ES256: { type: 'ec', namedCurve: 'P-256' },
  RS256: { type: 'rsa', modulusLength: 2048 },
  EdDSA: { type: 'ed25519' },
};

/** Generates a key pair for a JWT listener. The kid defaults to the key's thumbprint. */
export function generateListenerKey(alg: string, kid?: string): GeneratedKey {
  if (!isJwtAlgorithm(alg)) throw new KeyError(`unsupported algorithm ${alg}: use one of ${JWT_ALGORITHMS.join(', ')}`);
  if (kid !== undefined && !kid.trim()) throw new KeyError('the key ID must not be empty');
  const { privateJwk, publicJwk } = generateJwkPair(SPECS[alg]);
  const id = kid ?? jwkThumbprint(publicJwk);
  const meta = { kid: id, alg, use: 'sig' };
  return {
    alg,
    kid: id,
    privateJwk: { ...privateJwk, ...meta },
    publicJwks: { keys: [{ ...publicJwk, ...meta }] },
  };
}

interface SigningKey {
  key: KeyObject;
  alg: JwtAlgorithm;
  kid: string;
}

/**
 * Loads a private signing key from file text: a private JWK (JSON) or a PEM
 * private key (PKCS#8, SEC1 or PKCS#1). `alg`/`kid` override what the key says;
 * the kid otherwise comes from the JWK's `kid`, else the key's thumbprint.
 */
export function loadSigningKey(text: string, opts: { alg?: string; kid?: string } = {}): SigningKey {
  const t = text.trim();
  let key: KeyObject;
  let jwk: JWK | undefined;
  if (t.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(t);
    } catch {
      throw new KeyError('the file starts like a JWK but is not valid JSON');
    }
    if (!isJsonObject(parsed) || typeof parsed.kty !== 'string') throw new KeyError('not a JWK (no "kty")');
    jwk = parsed as JWK;
    if (jwk.kty === 'oct') throw new KeyError('a symmetric (oct) JWK cannot sign webhook JWTs: use an ES256, RS256 or EdDSA private key');
    if (typeof jwk.d !== 'string') throw new KeyError('the JWK is a public key; a private key (with "d") is needed to sign');
    try {
      key = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch {
      throw new KeyError('the JWK is not a valid private key (a member is missing or malformed)');
    }
  } else if (t.includes('PRIVATE KEY-----')) {
    if (t.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || /^Proc-Type:\s*4,\s*ENCRYPTED/m.test(t)) {
      throw new KeyError(
        'encrypted PEM keys are not supported: decrypt it with openssl first (openssl pkey -in KEY.pem -out plain.pem), and keep the result private',
      );
    }
    try {
      key = createPrivateKey(t);
    } catch {
      throw new KeyError('the PEM private key cannot be read (damaged, or not PKCS#8, SEC1 or PKCS#1)');
    }
  } else {
    throw new KeyError('the key file holds neither a private JWK (JSON) nor a PEM private key');
  }
  const bits = key.asymmetricKeyType === 'rsa' ? key.asymmetricKeyDetails?.modulusLength : undefined;
  if (bits !== undefined && bits < MIN_RSA_BITS) throw new KeyError(`RSA keys must be at least ${MIN_RSA_BITS} bits; this one has ${bits}`);
  const keyAlg = algorithmForKey(key);
  const alg = opts.alg ?? (typeof jwk?.alg === 'string' ? jwk.alg : keyAlg);
  if (!isJwtAlgorithm(alg)) throw new KeyError(`unsupported algorithm ${alg}: use one of ${JWT_ALGORITHMS.join(', ')}`);
  if (alg !== keyAlg) throw new KeyError(`algorithm ${alg} does not fit this key (it is an ${keyAlg} key)`);
  const kid =
    opts.kid ?? (typeof jwk?.kid === 'string' && jwk.kid ? jwk.kid : jwkThumbprint(createPublicKey(key).export({ format: 'jwk' }) as JWK));
  return { key, alg, kid };
}

/**
 * Signs a throwaway JWT with the key, so a key that loads but cannot sign (an
 * EC or OKP JWK whose "d" does not belong to its public part) is refused as a
 * key problem before anything is sent.
 */
export async function checkSigningKey(k: SigningKey): Promise<void> {
  try {
    await createWebhookJwt({
      key: k.key,
      alg: k.alg,
      kid: k.kid,
      tenant: 'https://check.invalid',
      endpointUrl: 'https://check.invalid/',
      eventId: 'check',
      body: new Uint8Array(),
      nowSeconds: 0,
    });
  } catch {
    throw new KeyError('the key is not a valid private key: its private part does not match its public part, or is malformed');
  }
}
