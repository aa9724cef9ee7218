// The pure parts of agctl doctor: which proxy the environment names for a
// URL (as curl and Go read it), and a store that does not load, in words.
import { describe, expect, it } from 'vitest';
import { noProxyCovers, proxyFor } from '../../../src/cli/commands/doctor/proxy.js';
import { describeError, storeProblem } from '../../../src/cli/commands/doctor/store.js';

describe('proxyFor', () => {
  const u = (s: string) => new URL(s);
  it('https uses https_proxy, then HTTPS_PROXY, then ALL_PROXY; http its own', () => {
    expect(proxyFor(u('https://t.example.com'), { HTTPS_PROXY: 'http://p:3128', https_proxy: 'http://lower:1' })).toEqual({ via: 'proxy', variable: 'https_proxy', proxy: 'http://lower:1', withCredentials: false });
    expect(proxyFor(u('https://t.example.com'), { HTTP_PROXY: 'http://p:3128', ALL_PROXY: 'socks5://s:1080' })).toMatchObject({ variable: 'ALL_PROXY', proxy: 'socks5://s:1080' });
    expect(proxyFor(u('http://t.example.com'), { HTTP_PROXY: 'p:3128' })).toMatchObject({ variable: 'HTTP_PROXY', proxy: 'http://p:3128' });
    expect(proxyFor(u('https://t.example.com'), { HTTP_PROXY: 'http://p:3128' })).toMatchObject({ via: 'direct', reason: 'no proxy variable is set' });
    expect(proxyFor(u('https://t.example.com'), { HTTPS_PROXY: '  ' })).toMatchObject({ via: 'direct' });
  });

  it('never gives the credentials of a proxy URL', () => {
    const p = proxyFor(u('https://t.example.com'), { HTTPS_PROXY: 'http://me:pa%40ss@proxy.corp:8080' });
    expect(p).toEqual({ via: 'proxy', variable: 'HTTPS_PROXY', proxy: 'http://proxy.corp:8080', withCredentials: true });
    expect(JSON.stringify(p)).not.toContain('pa');
  });

  it('a proxy variable that is not a URL is named', () => {
    expect(proxyFor(u('https://t.example.com'), { HTTPS_PROXY: 'http://[bad' })).toEqual({ via: 'invalid', variable: 'HTTPS_PROXY' });
  });

  it('loopback and NO_PROXY destinations go direct', () => {
    const env = { HTTPS_PROXY: 'http://p:3128' };
    expect(proxyFor(u('https://localhost:8443'), env)).toMatchObject({ via: 'direct' });
    expect(proxyFor(u('https://127.0.0.1'), env)).toMatchObject({ via: 'direct' });
    expect(proxyFor(u('https://a.corp.example'), { ...env, no_proxy: 'corp.example' })).toMatchObject({ via: 'direct', reason: 'no_proxy names it' });
    expect(proxyFor(u('https://acorp.example'), { ...env, NO_PROXY: 'corp.example' })).toMatchObject({ via: 'proxy' });
  });

  it('NO_PROXY entries: *, hosts, domain suffixes with or without a dot, ports, IPv6', () => {
    expect(noProxyCovers('*', 'x.y', '443')).toBe(true);
    expect(noProxyCovers('a.com, .b.com', 'x.b.com', '443')).toBe(true);
    expect(noProxyCovers('a.com .b.com', 'b.com', '443')).toBe(true);
    expect(noProxyCovers('*.c.com', 'x.c.com', '443')).toBe(true);
    expect(noProxyCovers('c.com', 'xc.com', '443')).toBe(false);
    expect(noProxyCovers('c.com:8443', 'c.com', '443')).toBe(false);
    expect(noProxyCovers('c.com:443', 'C.COM', '443')).toBe(true);
    expect(noProxyCovers('[::1]:443,fe80::1', '[fe80::1]', '443')).toBe(true);
    expect(noProxyCovers('', 'c.com', '443')).toBe(false);
  });
});

describe('storeProblem', () => {
  it('a module built for another Node.js: both versions and the rebuild', () => {
    const p = storeProblem(new Error("The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 137."));
    expect(p.problem).toBe('better-sqlite3 was built for another Node.js (module version 127; this Node.js needs 137)');
    expect(p.hint).toContain('npm rebuild better-sqlite3');
  });

  it('a module not installed, and anything else, in one line', () => {
    const missing = storeProblem(Object.assign(new Error("Cannot find package 'better-sqlite3' imported from /x/db.js"), { code: 'ERR_MODULE_NOT_FOUND' }));
    expect(missing.problem).toBe("better-sqlite3 is not installed or not built: Cannot find package 'better-sqlite3' imported from /x/db.js");
    expect(storeProblem(new Error('disk on fire\n    at x (y.js:1:1)')).problem).toBe('the store does not load: disk on fire');
    expect(describeError('x'.repeat(400))).toHaveLength(301);
  });
});
