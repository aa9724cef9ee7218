// Identifiers and time of the fake tenant.
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** KSUID epoch: 2014-05-13T16:53:20Z. */
const KSUID_EPOCH_S = 1_400_000_000;

/** A KSUID (27 base62 characters: a 4-byte timestamp and 16 random bytes), the service's ID form. */
export function ksuid(nowMs = Date.now()): string {
  const bytes = Buffer.concat([Buffer.alloc(4), randomBytes(16)]);
  bytes.writeUInt32BE(Math.floor(nowMs / 1000) - KSUID_EPOCH_S, 0);
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(27, '0');
}

/** A clock the tests can move forward (expiry of transactions and tokens). */
export class FakeClock {
  #offset = 0;
  now(): number {
    return Date.now() + this.#offset;
  }
  advance(ms: number): void {
    this.#offset += ms;
  }
}

export const iso = (ms: number) => new Date(ms).toISOString();
