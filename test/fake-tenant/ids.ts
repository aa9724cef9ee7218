// Identifiers and time of the fake tenant.
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A 27-character base62 ID, the length of the service's KSUIDs (random, not time-ordered). */
export function ksuidLike(): string {
  let out = '';
  for (const b of randomBytes(27)) out += BASE62[b % 62];
  return out;
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
