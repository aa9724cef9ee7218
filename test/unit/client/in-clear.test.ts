// A plain client secret is sent only over https or to this machine (unless
// allowed): the decision, its warning, and the refusal before anything is sent.
import { describe, expect, it } from 'vitest';
import { ClientCredentialsFlow, MemoryTokenCache, PlainSecretInClearError, inClearWarning, sentInClear } from '../../../src/client/auth.js';
import type { HttpClient } from '../../../src/client/http.js';
import { Exit } from '../../../src/lib/exit.js';
import { systemClock } from '../../../src/lib/clock.js';
import { encodeKeySecret } from '../../../src/lib/client-secret.js';
import { generateJwkPair } from '../../../src/lib/keypair.js';

describe('sentInClear', () => {
  it('is true for plain http to any host that is not a loopback address as written', () => {
    for (const url of [
      'http://tenant.example.com',
      'http://10.0.0.5:8080',
      'http://192.168.1.2',
      'http://agctl-test.invalid',
      'http://localhost.example.com',
      'http://127.0.0.1.nip.io',
      'http://[fe80::1]:8080',
      'http://[::2]',
    ]) {
      expect(sentInClear(url), url).toBe(true);
    }
  });

  it('is false for https, and for plain http to 127.0.0.0/8, ::1 and localhost', () => {
    for (const url of [
      'https://tenant.example.com',
      'https://10.0.0.5',
      'http://127.0.0.1:8080',
      'http://127.5.6.7',
      'http://localhost:3000',
      'http://LOCALHOST',
      'http://[::1]:8080',
      'http://[::ffff:127.0.0.1]:9',
    ]) {
      expect(sentInClear(url), url).toBe(false);
    }
  });
});

describe('inClearWarning', () => {
  it('names what crosses the network, and what allowed a plain secret there', () => {
    expect(inClearWarning('http://tenant.example.com', 'secret', '--insecure-http')).toBe(
      'http://tenant.example.com uses plain http: the client secret and the tokens cross the network unencrypted (allowed by --insecure-http)',
    );
    expect(inClearWarning('http://10.0.0.5:8080', 'assertion')).toBe(
      'http://10.0.0.5:8080 uses plain http: the client assertion and the tokens cross the network unencrypted (use https unless this is a test server)',
    );
    expect(inClearWarning('http://10.0.0.5:8080', 'token')).toMatch(/: the access token crosses the network unencrypted/);
  });

  it('says nothing for https or loopback', () => {
    for (const ok of ['https://tenant.example.com', 'http://127.0.0.1:8080', 'http://localhost:3000', 'http://[::1]:8080'])
      expect(inClearWarning(ok, 'secret')).toBeUndefined();
  });
});

describe('ClientCredentialsFlow and plain http', () => {
  /** An HTTP client that records what would be sent, and sends nothing. */
  const recorder = () => {
    const sent: string[] = [];
    const http = {
      send: async (r: { url: string }) => {
        sent.push(r.url);
        throw new Error('not sent in this test');
      },
    } as unknown as HttpClient;
    return { http, sent };
  };
  const clock = systemClock;
  const flow = (baseUrl: string, clientSecret: string, insecureHttp?: boolean) => {
    const r = recorder();
    const make = () =>
      new ClientCredentialsFlow(r.http, baseUrl, { clientId: 'bot', clientSecret }, new MemoryTokenCache(), clock, { insecureHttp });
    return { make, sent: r.sent };
  };

  it('refuses a plain secret to plain http on another machine (exit 2) before anything is read or sent', () => {
    for (const url of ['http://agctl-test.invalid', 'http://10.1.2.3:8080']) {
      const f = flow(url, 'plain-secret');
      let err: unknown;
      try {
        f.make();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PlainSecretInClearError);
      expect((err as PlainSecretInClearError).exitCode).toBe(Exit.Usage);
      expect((err as Error).message).toBe(
        `refusing to send the client secret in clear to ${new URL(url).origin}: plain http to a host other than this machine`,
      );
      expect((err as PlainSecretInClearError).hint).toBe(
        `use https://${new URL(url).host}; for a lab server without TLS, pass --insecure-http (login keeps it in the profile) or set AGCTL_INSECURE_HTTP=1`,
      );
      expect(`${(err as Error).message} ${(err as PlainSecretInClearError).hint}`).not.toContain('plain-secret');
      expect(f.sent).toEqual([]);
    }
  });

  it('lets a plain secret go over https, to loopback, or when allowed; a key secret anywhere', async () => {
    const key = encodeKeySecret('issuer', generateJwkPair({ type: 'ed25519' }).privateJwk);
    const cases: [string, string, boolean?][] = [
      ['https://tenant.example.com', 'plain-secret'],
      ['http://127.0.0.1:9', 'plain-secret'],
      ['http://localhost:9', 'plain-secret'],
      ['http://agctl-test.invalid', 'plain-secret', true],
      ['http://agctl-test.invalid', key],
    ];
    for (const [url, secret, allowed] of cases) {
      const f = flow(url, secret, allowed);
      const made = f.make();
      // It asks the token URL it was given (the recorder sends nothing).
      await expect(made.fetch()).rejects.toThrow('not sent in this test');
      expect(f.sent).toEqual([`${url}/auth/v1/token`]);
    }
  });
});
