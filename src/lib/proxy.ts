// Which HTTP proxy a request goes through, from the environment, as curl,
// gh and Go read it:
//   - https_proxy / HTTPS_PROXY for https: URLs, http_proxy / HTTP_PROXY for
//     http: URLs, all_proxy / ALL_PROXY for either when its own is not set
//     (the lowercase form first when both are set, as curl; an empty value is
//     not set); an https: URL never falls back to HTTP_PROXY;
//   - no_proxy / NO_PROXY: entries separated by commas (or spaces); `*` is
//     every host; a host name matches itself and its subdomains (a leading
//     `.` or `*.` is dropped, as curl does); an IP address or a CIDR block
//     matches addresses written in the URL; `host:port` only that port;
//   - loopback destinations (localhost, 127.0.0.0/8, ::1) never go through a proxy.
// The proxy is an http:// URL (a bare host:port means http://; its port
// defaults to 80), with credentials in it when it asks for them (sent as
// Proxy-Authorization: Basic). Its URL is only ever shown without them.
import { BlockList, isIP } from 'node:net';
import { UsageError } from './exit.js';
import { isLoopbackHost } from './net.js';

export interface HttpProxy {
  /** The proxy as shown: scheme, host and port, never its credentials. */
  display: string;
  /** The variable it came from, as it is spelled in the environment (e.g. `https_proxy`). */
  source: string;
  /** Host name (IPv6 without brackets) and port to connect to. */
  host: string;
  port: number;
  /** `Basic …` for the credentials in the URL, if any. */
  authorization?: string;
}

/** The environment variables read, in order of precedence for each use. */
const VARS = {
  'https:': ['https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'],
  'http:': ['http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'],
} as const;
const NO_PROXY = ['no_proxy', 'NO_PROXY'];

function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/**
 * The proxy for a request to `target`, or undefined to connect directly.
 * Throws a UsageError when the variable that applies holds no usable proxy
 * URL (the message names the variable, never its value: it may hold a password).
 */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv): HttpProxy | undefined {
  const vars = VARS[target.protocol as keyof typeof VARS];
  if (!vars) return undefined;
  const hostname = bare(target.hostname);
  if (isLoopbackHost(hostname)) return undefined;
  const set = firstSet(env, vars);
  if (!set) return undefined;
  const noProxy = firstSet(env, NO_PROXY);
  if (noProxy && bypasses(noProxy.value, hostname, Number(target.port) || (target.protocol === 'https:' ? 443 : 80))) return undefined;
  return parseProxy(set.name, set.value);
}

function parseProxy(source: string, value: string): HttpProxy {
  let u: URL;
  try {
    u = new URL(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) ? value : `http://${value}`);
  } catch {
    throw new UsageError(
      `${source} is not a valid proxy URL`,
      `set it to http://host:port (with user:password@ before the host if the proxy asks for credentials)`,
    );
  }
  if (u.protocol !== 'http:') {
    throw new UsageError(
      `${source}: agctl cannot use a ${u.protocol.slice(0, -1)} proxy`,
      'give an http:// proxy (https requests go through it in a CONNECT tunnel, encrypted end to end)',
    );
  }
  if (!u.hostname) throw new UsageError(`${source} names no proxy host`, 'set it to http://host:port');
  // A `/`, `?` or `#` left raw in the credentials ends the authority early: the parser would take part of the
  // password for the host and port, and it would be shown. Such a value is refused, and never shown.
  const rest = value.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '');
  const at = rest.lastIndexOf('@');
  if (at >= 0 && (/[/?#]/.test(rest.slice(0, at)) || (!u.username && !u.password))) {
    throw new UsageError(
      `${source}: the proxy credentials are not validly percent-encoded`,
      'encode special characters in the user name and password (e.g. / as %2F, @ as %40)',
    );
  }
  const proxy: HttpProxy = { display: `http://${u.host}`, source, host: bare(u.hostname), port: Number(u.port) || 80 };
  if (u.username || u.password) {
    let credentials: string;
    try {
      credentials = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    } catch {
      throw new UsageError(
        `${source}: the proxy credentials are not validly percent-encoded`,
        'encode special characters in the user name and password (e.g. @ as %40)',
      );
    }
    proxy.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return proxy;
}

/** `[::1]` → `::1`; a trailing dot dropped; lowercase. */
function bare(host: string): string {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return h.toLowerCase().replace(/\.$/, '');
}

/** True when NO_PROXY's `list` names the host (and port) of a request. */
export function bypasses(list: string, hostname: string, port: number): boolean {
  const host = bare(hostname);
  const hostIp = isIP(host);
  for (const raw of list.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    // A CIDR block: matches an address written in the URL (the host is never resolved for this).
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const family = isIP(bare(cidr[1]!));
      if (!family || !hostIp) continue;
      const blocks = new BlockList();
      try {
        blocks.addSubnet(bare(cidr[1]!), Number(cidr[2]), family === 4 ? 'ipv4' : 'ipv6');
      } catch {
        continue; // a prefix longer than the address
      }
      if (blocks.check(host, hostIp === 4 ? 'ipv4' : 'ipv6')) return true;
      continue;
    }
    // An optional port: host:port, [v6]:port (a bare IPv6 address has colons of its own).
    let entryPort: number | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1]!;
      entryPort = bracketed[2] ? Number(bracketed[2]) : undefined;
    } else if (!isIP(entry)) {
      const m = /^(.*):(\d+)$/.exec(entry);
      if (m) {
        entry = m[1]!;
        entryPort = Number(m[2]);
      }
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    if (isIP(entry)) {
      if (hostIp && sameAddress(entry, host)) return true;
      continue;
    }
    entry = entry.replace(/^\*?\./, '').replace(/\.$/, '');
    if (entry && (host === entry || host.endsWith(`.${entry}`))) return true;
  }
  return false;
}

function sameAddress(a: string, b: string): boolean {
  const list = new BlockList();
  list.addAddress(a, isIP(a) === 4 ? 'ipv4' : 'ipv6');
  return list.check(b, isIP(b) === 4 ? 'ipv4' : 'ipv6');
}
