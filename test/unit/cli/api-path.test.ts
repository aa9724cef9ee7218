// agctl api's path rules: a path, never a URL; inside /api/ unless allowed,
// judged after the URL is resolved (dot segments, their percent-encoded form);
// and the client's own binding: the token goes only to its base URL's origin.
import { describe, expect, it } from 'vitest';
import { checkPath, resolveUrl } from '../../../src/cli/commands/api/run.js';
import { ApiClient } from '../../../src/client/api.js';
import { HttpClient } from '../../../src/client/http.js';
import { CliError, UsageError } from '../../../src/lib/exit.js';
import { tinyServer } from '../client/tiny-server.js';

const client = (baseUrl: string) =>
  new ApiClient(baseUrl, new HttpClient({ maxRetries: 0 }), { token: async () => 'tok', invalidate: () => false });

describe('checkPath', () => {
  it('adds the leading slash', () => {
    expect(checkPath('api/v1/x')).toBe('/api/v1/x');
    expect(checkPath('/api/v1/x?a=1')).toBe('/api/v1/x?a=1');
  });

  it('refuses URLs of any scheme, scheme-relative ones and control characters', () => {
    for (const p of ['http://evil.example/api/v1', 'HTTPS://h/api', '//evil.example/api/v1', 'javascript:alert(1)', 'file:/etc/passwd']) {
      expect(() => checkPath(p), p).toThrow(/not a URL/);
    }
    expect(() => checkPath('/api/v1/x\n/y')).toThrow(/control characters/);
    expect(() => checkPath('/api/v1/\tx')).toThrow(UsageError);
  });
});

describe('resolveUrl', () => {
  const api = client('http://127.0.0.1:9');

  it('keeps a path under /api/ on the base URL, query included', () => {
    expect(resolveUrl(api, '/api/v1/x?a=1', false).toString()).toBe('http://127.0.0.1:9/api/v1/x?a=1');
  });

  it('refuses what resolves outside /api/, unless allowed', () => {
    for (const p of [
      '/auth/v1/token',
      '/api',
      '/apiv1/x',
      '/api/../auth/v1/token',
      '/api/%2e%2e/auth',
      '/api/%2E%2e/%2e%2e/x',
      '/api/v1/../../x',
    ]) {
      expect(() => resolveUrl(api, p, false), p).toThrow(/outside \/api\//);
    }
    expect(resolveUrl(api, '/api/../auth/v1/token', true).pathname).toBe('/auth/v1/token');
  });

  it("never leaves the base URL's host, even with odd paths", () => {
    for (const p of ['/\\evil.example/api/v1', '/@evil.example/api/', '/api/v1/x#@evil.example']) {
      let host: string;
      try {
        host = resolveUrl(api, p, true).host;
      } catch (err) {
        expect(err, p).toBeInstanceOf(UsageError);
        continue;
      }
      expect(host, p).toBe('127.0.0.1:9');
    }
  });

  it('a base URL with a path: /api/ is under it', () => {
    const prefixed = client('http://127.0.0.1:9/tenant/');
    expect(resolveUrl(prefixed, '/api/v1/x', false).toString()).toBe('http://127.0.0.1:9/tenant/api/v1/x');
    expect(() => resolveUrl(prefixed, '/../api/v1/x', false)).toThrow(/leaves the configured server's base URL/);
  });
});

describe('ApiClient.request', async () => {
  const t = await tinyServer();

  it("sends the token only to its base URL's origin", async () => {
    t.reset((_req, res) => res.end('{}'));
    await expect(client(t.url).request('GET', 'http://127.0.0.2:9/api/v1/x')).rejects.toThrow(CliError);
    await expect(client(t.url).request('GET', `${t.url.replace('127.0.0.1', 'localhost')}/api/v1/x`)).rejects.toThrow(
      /refusing to send the bearer token/,
    );
    expect(t.seen).toHaveLength(0);
    const res = await client(t.url).request('GET', `${t.url}/api/v1/x`, { headers: { Authorization: 'Bearer other', 'x-a': '1' } });
    expect(res.status).toBe(200);
    expect(t.seen[0]!.headers).toMatchObject({ authorization: 'Bearer tok', 'x-a': '1' });
  });
});
