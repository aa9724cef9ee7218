// Which proxy a request goes through, from the environment, as curl reads it.
import { describe, expect, it } from 'vitest';
import { bypasses, proxyFor } from '../../../src/lib/proxy.js';

const at = (url: string, env: NodeJS.ProcessEnv) => proxyFor(new URL(url), env)?.display;
const source = (url: string, env: NodeJS.ProcessEnv) => proxyFor(new URL(url), env)?.source;

describe('proxyFor', () => {
  it('takes HTTPS_PROXY for https, HTTP_PROXY for http, ALL_PROXY for either when its own is not set', () => {
    const env = { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://p:2', ALL_PROXY: 'http://a:3' };
    expect(at('https://tenant.example.com', env)).toBe('http://s:1');
    expect(at('http://tenant.example.com', env)).toBe('http://p:2');
    expect(at('https://tenant.example.com', { HTTP_PROXY: 'http://p:2', ALL_PROXY: 'http://a:3' })).toBe('http://a:3');
    expect(at('http://tenant.example.com', { ALL_PROXY: 'http://a:3' })).toBe('http://a:3');
  });

  it('never sends an https request to HTTP_PROXY', () => {
    expect(at('https://tenant.example.com', { HTTP_PROXY: 'http://p:2', http_proxy: 'http://p:2' })).toBeUndefined();
  });

  it('prefers the lowercase form when both are set, as curl does, and reads an empty value as not set', () => {
    expect(source('https://t.example.com', { https_proxy: 'http://low:1', HTTPS_PROXY: 'http://up:1' })).toBe('https_proxy');
    expect(source('https://t.example.com', { https_proxy: '', HTTPS_PROXY: 'http://up:1' })).toBe('HTTPS_PROXY');
    expect(source('http://t.example.com', { all_proxy: 'http://low:1', ALL_PROXY: 'http://up:1' })).toBe('all_proxy');
    expect(at('https://t.example.com', { https_proxy: 'http://p:1', no_proxy: 'other.com', NO_PROXY: 't.example.com' })).toBe('http://p:1');
  });

  it('never proxies loopback destinations', () => {
    const env = { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1', ALL_PROXY: 'http://p:1' };
    for (const u of ['http://127.0.0.1:8080', 'https://localhost', 'http://LOCALHOST.:1', 'http://[::1]:9', 'http://127.9.9.9'])
      expect(at(u, env), u).toBeUndefined();
    expect(at('http://10.0.0.1', env)).toBe('http://p:1');
  });

  it('reads a bare host:port as http://, defaults the port to 80, and keeps credentials out of what it shows', () => {
    const p = proxyFor(new URL('https://t.example.com'), { HTTPS_PROXY: 'proxy.corp:3128' })!;
    expect(p).toMatchObject({ display: 'http://proxy.corp:3128', host: 'proxy.corp', port: 3128 });
    expect(proxyFor(new URL('https://t.example.com'), { HTTPS_PROXY: 'http://proxy.corp' })!.port).toBe(80);
    const auth = proxyFor(new URL('https://t.example.com'), { HTTPS_PROXY: 'http://al%40ice:p%3Ass@proxy.corp:8080' })!;
    expect(auth.display).toBe('http://proxy.corp:8080');
    expect(auth.authorization).toBe(`Basic ${Buffer.from('al@ice:p:ss').toString('base64')}`);
    expect(JSON.stringify({ ...auth, authorization: undefined })).not.toMatch(/alice|al%40ice|p%3Ass/);
  });

  it('refuses a proxy it cannot use, naming the variable and never echoing its value', () => {
    expect(() => proxyFor(new URL('https://t.example.com'), { HTTPS_PROXY: 'socks5://u:hunter2@p:1080' })).toThrow(
      /^HTTPS_PROXY: agctl cannot use a socks5 proxy$/,
    );
    expect(() => proxyFor(new URL('https://t.example.com'), { https_proxy: 'http://u:hunter2@[bad' })).toThrow(
      /^https_proxy is not a valid proxy URL$/,
    );
    // A raw `/` in the password would end the authority early (the password's digits read as a port): refused, never shown.
    for (const value of ['http://alice:4821/x@proxy.corp:3128', 'http://alice:p?w@proxy.corp:3128', 'http://alice:p#w@proxy.corp:3128']) {
      let message = '';
      try {
        proxyFor(new URL('https://t.example.com'), { HTTPS_PROXY: value });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, value).toMatch(/^HTTPS_PROXY(: the proxy credentials are not validly percent-encoded| is not a valid proxy URL)$/);
    }
    expect(proxyFor(new URL('https://t.example.com'), { HTTPS_PROXY: 'http://alice:4821%2Fx@proxy.corp:3128' })).toMatchObject({
      display: 'http://proxy.corp:3128',
    });
    // Not consulted for a destination it does not apply to.
    expect(proxyFor(new URL('https://localhost'), { HTTPS_PROXY: 'socks5://p' })).toBeUndefined();
  });
});

describe('NO_PROXY', () => {
  const env = (list: string) => ({ HTTPS_PROXY: 'http://p:1', NO_PROXY: list });
  it.each([
    ['example.com', 'https://example.com', true],
    ['example.com', 'https://api.example.com', true],
    ['example.com', 'https://notexample.com', false],
    ['.example.com', 'https://example.com', true],
    ['.example.com', 'https://a.b.example.com', true],
    ['*.example.com', 'https://a.example.com', true],
    ['*', 'https://anything.io', true],
    ['other.com, example.com', 'https://x.example.com', true],
    ['other.com example.com', 'https://x.example.com', true],
    ['EXAMPLE.com', 'https://Api.Example.COM.', true],
    ['example.com:8443', 'https://example.com:8443', true],
    ['example.com:8443', 'https://example.com', false],
    ['example.com:443', 'https://example.com', true],
    ['10.1.2.3', 'https://10.1.2.3:9', true],
    ['10.0.0.0/8', 'https://10.200.3.4', true],
    ['10.0.0.0/8', 'https://11.0.0.1', false],
    ['10.0.0.0/8', 'https://ten.example.com', false],
    ['fd00::/8', 'https://[fd12::1]', true],
    ['[fd12::1]:443', 'https://[fd12::1]', true],
    ['fd12::1', 'https://[fd12::1]:8443', true],
    ['', 'https://example.com', false],
  ])('%j for %s: %s', (list, url, direct) => {
    expect(at(url, env(list)) === undefined).toBe(direct);
  });

  it('matches on its own too', () => {
    expect(bypasses('corp.internal', 'git.corp.internal', 443)).toBe(true);
  });
});
