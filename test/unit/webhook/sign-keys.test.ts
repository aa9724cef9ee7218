import { createPublicKey, randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { generateJwkPair } from '../../../src/lib/keypair.js';
import { localJwks } from '../../../src/webhook/jwks.js';
import { KeyError, checkSigningKey, generateListenerKey, jwkThumbprint, loadSigningKey } from '../../../src/webhook/keys.js';
import { bodyHash, createWebhookJwt, hmacSignature, newHmacSecret, signatureInput } from '../../../src/webhook/sign.js';
import { verifyWebhook } from '../../../src/webhook/verify.js';
import { ecKey, listenerKey, privatePem, rsa1024Key, rsaKey } from '../../helpers/keys.js';

describe('HMAC signing', () => {
  it('matches an independently computed vector (openssl dgst -sha256 -hmac, base64url)', () => {
    const sig = hmacSignature('c2VjcmV0LWJ5dGVz-as-is', 1700000000, '3b241101-e2bb-4255-8caf-4136c566a962', Buffer.from('{"a":1}'));
    expect(sig).toBe('qE-XzTPv2aN7xE-LDwFgu7wZxi4viiOxMJAhYWlzDkw');
    expect(bodyHash(Buffer.from('{"a":1}'))).toBe('AVq9f1zFei3ZS3WQ8ErYCEJzkF7jPsXOvq5iJ2qX-GI');
  });
  it('signs the exact body bytes, including non-ASCII', () => {
    const body = Buffer.from('{"name":"Zoë"}');
    expect(signatureInput('1', 'id', body).toString('utf8')).toBe('1.id.{"name":"Zoë"}');
    expect(hmacSignature('s', '1', 'id', body)).not.toBe(hmacSignature('s', '1', 'id', Buffer.from('{"name":"Zoe"}')));
  });
  it('new secrets are 256 bits of base64url', () => {
    const a = newHmacSecret();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(newHmacSecret()).not.toBe(a);
  });
});

describe('JWK thumbprint', () => {
  it('matches the RFC 7638 §3.1 example', () => {
    const jwk = {
      kty: 'RSA',
      n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      e: 'AQAB',
      alg: 'RS256',
      kid: '2011-04-29',
    };
    expect(jwkThumbprint(jwk)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });
});

describe('keygen, key loading and the JWT round trip', () => {
  it.each(['ES256', 'RS256', 'EdDSA'] as const)('%s: generated keys sign JWTs the pipeline accepts', async (alg) => {
    const k = listenerKey(alg);
    expect(k.kid).toBe(jwkThumbprint(k.publicJwks.keys[0]!));
    expect(k.privateJwk).toMatchObject({ alg, kid: k.kid, use: 'sig' });
    expect(k.privateJwk.d).toBeTypeOf('string');
    expect(k.publicJwks.keys[0]!.d).toBeUndefined();
    const now = 1_700_000_000;
    const id = randomUUID();
    const body = Buffer.from('{"ok":true}');
    const url = 'https://t.example.com/api/v1/webhooks/incoming/abc';
    const jwt = await createWebhookJwt({
      key: k.privateJwk,
      alg,
      kid: k.kid,
      tenant: 'https://t.example.com',
      endpointUrl: url,
      eventId: id,
      body,
      nowSeconds: now,
    });
    expect(decodeProtectedHeader(jwt)).toMatchObject({ alg, kid: k.kid, typ: 'JWT' });
    expect(decodeJwt(jwt)).toMatchObject({
      sub: 'https://t.example.com',
      aud: url,
      jti: id,
      htm: 'POST',
      htb_s256: bodyHash(body),
      exp: now + 300,
      iat: now,
    });
    const r = await verifyWebhook({
      sourceIp: '127.0.0.1',
      headers: {
        'webhook-timestamp': String(now),
        'webhook-event-id': id,
        'content-type': 'application/json',
        authorization: `Bearer ${jwt}`,
      },
      body,
      now: now * 1000,
      listener: { authMethod: 'JWT', jwks: localJwks(k.publicJwks), endpointUrl: url, tenantBaseUrl: 'https://t.example.com' },
    });
    expect(r.status).toBe(200);
  });

  it('honours an explicit kid and refuses unknown algorithms', () => {
    expect(generateListenerKey('ES256', 'my-key').kid).toBe('my-key');
    expect(() => generateListenerKey('HS256')).toThrow(/unsupported algorithm HS256/);
    expect(() => generateListenerKey('none')).toThrow(KeyError);
  });

  it('loads a private JWK or a PEM key; the PEM kid is the thumbprint keygen would give', () => {
    const k = generateListenerKey('EdDSA');
    const fromJwk = loadSigningKey(JSON.stringify(k.privateJwk));
    expect(fromJwk).toMatchObject({ alg: 'EdDSA', kid: k.kid });
    const pem = fromJwk.key.export({ type: 'pkcs8', format: 'pem' }).toString();
    const fromPem = loadSigningKey(pem);
    expect(fromPem).toMatchObject({ alg: 'EdDSA', kid: k.kid });
    expect(loadSigningKey(pem, { kid: 'override' }).kid).toBe('override');
    const rsa = listenerKey('RS256');
    const rsaPem = loadSigningKey(JSON.stringify(rsa.privateJwk)).key.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(loadSigningKey(rsaPem)).toMatchObject({ alg: 'RS256', kid: rsa.kid });
  });

  it('refuses keys that cannot sign webhook JWTs', () => {
    const es = generateListenerKey('ES256');
    expect(() => loadSigningKey(JSON.stringify(es.publicJwks.keys[0]))).toThrow(/public key/);
    expect(() => loadSigningKey(JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' }))).toThrow(/symmetric/);
    expect(() => loadSigningKey(JSON.stringify(es.privateJwk), { alg: 'RS256' })).toThrow(/does not fit this key/);
    expect(() => loadSigningKey(JSON.stringify({ ...es.privateJwk, alg: 'ES384' }))).toThrow(/unsupported algorithm ES384/);
    expect(() => loadSigningKey('hello')).toThrow(/neither a private JWK/);
    expect(() => loadSigningKey('{"kty": "EC", "d": "x"}')).toThrow(KeyError);
    const pub = createPublicKey({ key: es.publicJwks.keys[0] as JWK as never, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    expect(() => loadSigningKey(pub)).toThrow(/neither a private JWK/);
  });

  it('says plainly why a key is refused: a short RSA key, an encrypted PEM, a damaged PEM, a "d" that does not fit', async () => {
    const rsa1024 = privatePem(rsa1024Key());
    expect(() => loadSigningKey(rsa1024)).toThrow(new KeyError('RSA keys must be at least 2048 bits; this one has 1024'));
    const encrypted = privatePem(ecKey(), { cipher: 'aes-256-cbc', passphrase: 'x' });
    const encryptedTraditional = privatePem(rsaKey(), { type: 'pkcs1', cipher: 'aes-128-cbc', passphrase: 'x' });
    expect(encryptedTraditional).toMatch(/Proc-Type: 4,ENCRYPTED/);
    for (const p of [encrypted, encryptedTraditional])
      expect(() => loadSigningKey(p)).toThrow(/^encrypted PEM keys are not supported: decrypt it with openssl first/);
    expect(() => loadSigningKey('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')).toThrow(
      /^the PEM private key cannot be read/,
    );
    // An EC JWK whose private scalar is not the one of its public point loads, but cannot sign.
    const jwk = generateJwkPair({ type: 'ec', namedCurve: 'P-256' }).privateJwk;
    const other = generateJwkPair({ type: 'ec', namedCurve: 'P-256' }).privateJwk;
    const mismatched = loadSigningKey(JSON.stringify({ ...jwk, d: other.d }));
    await expect(checkSigningKey(mismatched)).rejects.toThrow(
      new KeyError('the key is not a valid private key: its private part does not match its public part, or is malformed'),
    );
    await expect(checkSigningKey(loadSigningKey(JSON.stringify(jwk)))).resolves.toBeUndefined();
  });
});
