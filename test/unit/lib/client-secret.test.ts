// Key secrets as tenants issue them, parsed as the vendor's clients parse them.
import { describe, expect, it } from 'vitest';
import { encodeKeySecret, KEY_SECRET_ISSUER, parseKeySecret } from '../../../src/lib/client-secret.js';
import { generateJwkPair } from '../../../src/lib/keypair.js';

describe('key secrets', () => {
  const { privateJwk } = generateJwkPair({ type: 'ed25519' });

  it('are encoded in the form tenants issue: secret-token:conductorone.com:v1:<key>, the key {kty, crv, x, d} in that order', () => {
    const s = encodeKeySecret(KEY_SECRET_ISSUER, { ...privateJwk, kid: 'extra', alg: 'EdDSA' });
    expect(s.startsWith('secret-token:conductorone.com:v1:')).toBe(true);
    const key = s.split(':')[3]!;
    expect(key).not.toContain('=');
    expect(Buffer.from(key, 'base64url').toString()).toBe(JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: privateJwk.x, d: privateJwk.d }));
    expect(parseKeySecret(s)).toEqual({
      issuer: 'conductorone.com',
      jwk: { kty: 'OKP', crv: 'Ed25519', x: privateJwk.x, d: privateJwk.d },
    });
  });

  it('parse a secret copied from a tenant', () => {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: privateJwk.x, d: privateJwk.d };
    const s = `secret-token:conductorone.com:v1:${Buffer.from(JSON.stringify(jwk)).toString('base64url')}`;
    expect(parseKeySecret(s).jwk).toEqual(jwk);
  });

  it('refuse an issuer with a colon, as the vendor clients (four parts) do', () => {
    const s = encodeKeySecret('a:b', privateJwk);
    expect(() => parseKeySecret(s)).toThrow(/malformed key secret/);
  });
});
