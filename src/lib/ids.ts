// Identifier helpers: KSUIDs (27 base62 characters) and UUID v4 checks.
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KSUID_EPOCH = 1_400_000_000;

/** A new KSUID: 4 bytes of seconds since the KSUID epoch + 16 random bytes, base62, 27 chars. */
export function ksuid(nowMs: number = Date.now()): string {
  const buf = Buffer.alloc(20);
  buf.writeUInt32BE(Math.max(0, Math.floor(nowMs / 1000) - KSUID_EPOCH), 0);
  randomBytes(16).copy(buf, 4);
  let n = BigInt('0x' + buf.toString('hex'));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(27, '0');
}

const KSUID_RE = /^[0-9A-Za-z]{27}$/;
export const isKsuid = (s: string): boolean => KSUID_RE.test(s) && s <= 'aWgEPTl1tmebfsQzFP4bxwgy80V';

/** UUID version 4 with the RFC 4122 variant. */
const UUID_V4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const isUuidV4 = (s: string): boolean => UUID_V4_RE.test(s);

/** The 16 bytes of a UUID written with hyphens (any case); the caller has checked its form. */
export const uuidBytes = (uuid: string): Buffer => Buffer.from(uuid.replaceAll('-', ''), 'hex');
