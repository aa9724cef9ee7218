// IP allowlists of webhook listeners: IPv4 and IPv6 CIDR ranges, backed by
// node:net's BlockList (which also matches IPv4-mapped IPv6 addresses such as
// `::ffff:127.0.0.1` against IPv4 ranges, and IPv4 addresses against
// `::ffff:0:0/96`-style IPv6 ranges).
import { BlockList, isIP } from 'node:net';

export class CidrError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CidrError';
  }
}

interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Removes brackets (`[::1]`) and an IPv6 zone index (`fe80::1%eth0`). */
export function normalizeIp(ip: string): string {
  let s = ip.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone > 0 && s.includes(':')) s = s.slice(0, zone);
  return s;
}

/** The IPv4-mapped IPv6 addresses (::ffff:0:0/96). */
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

/** Parses `10.0.0.0/8`, `2001:db8::/32`, or a single address (a /32 or /128 range). */
export function parseCidr(text: string): Cidr {
  const s = text.trim();
  const slash = s.indexOf('/');
  const address = normalizeIp(slash < 0 ? s : s.slice(0, slash));
  const fam = isIP(address);
  if (fam === 0) throw new CidrError(`"${text}" is not an IP address or CIDR range`);
  const family = fam === 4 ? 'ipv4' : 'ipv6';
  const max = fam === 4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const p = s.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max)
      throw new CidrError(`"${text}" has an invalid prefix length (0 to ${max} for ${family === 'ipv4' ? 'IPv4' : 'IPv6'})`);
    prefix = Number(p);
  }
  if (family === 'ipv6' && prefix < 96 && IPV4_MAPPED.check(address, 'ipv6')) {
    // ::ffff:10.0.0.0/8 is ::/8, which holds every IPv4-mapped address: the
    // allowlist would admit every IPv4 source, not the 10.0.0.0/8 meant.
    throw new CidrError(
      `"${text}" is an IPv4-mapped address with a prefix under 96, which covers every IPv4 address: write it as an IPv4 range (e.g. 10.0.0.0/8), or with 96 added to the prefix`,
    );
  }
  return { address, prefix, family };
}

/** A compiled allowlist. */
export class AllowList {
  readonly ranges: readonly string[];
  readonly #list = new BlockList();

  /**
   * Throws CidrError on a bad range; with `skipInvalid` (ranges stored by an
   * earlier version, which accepted more) a bad range admits nothing, and the
   * list still restricts even when no range is left.
   */
  constructor(ranges: readonly string[], opts: { skipInvalid?: boolean } = {}) {
    this.ranges = [...ranges];
    for (const r of ranges) {
      let c: Cidr;
      try {
        c = parseCidr(r);
      } catch (err) {
        if (opts.skipInvalid && err instanceof CidrError) continue;
        throw err;
      }
      this.#list.addSubnet(c.address, c.prefix, c.family);
    }
  }

  /** True when `ip` falls in one of the ranges; false for anything that is not an IP address. */
  contains(ip: string): boolean {
    const a = normalizeIp(ip);
    const fam = isIP(a);
    if (fam === 0) return false;
    return this.#list.check(a, fam === 4 ? 'ipv4' : 'ipv6');
  }
}

/** Validates a list of ranges; returns the error message of the first bad one, or null. */
export function cidrListError(ranges: unknown): string | null {
  if (!Array.isArray(ranges)) return 'allowedCidrs must be an array of CIDR strings';
  for (const r of ranges) {
    if (typeof r !== 'string') return 'allowedCidrs must be an array of CIDR strings';
    try {
      parseCidr(r);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return null;
}
