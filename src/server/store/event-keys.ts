// A set of webhook event keys (listener number, 16-byte event ID) with the time
// each was received: the in-memory half of the listener's idempotency check
// (the durable half is the event log in the database; see EventIndex in
// routes/webhooks.ts).
//
// An open-addressing hash table with linear probing, kept in typed arrays:
// the keys live outside the JavaScript heap, so a week of events (millions of
// keys) costs the garbage collector nothing to trace, and a lookup is one hash
// and, at the load kept here (at most half full), one or two probes.
// Deletion shifts later entries of the probe run back (no tombstones), so the
// table never degrades with churn.
import { randomBytes } from 'node:crypto';

/** Words per key: the event ID's four 32-bit words and the listener number. */
const WORDS = 5;
const MIN_CAPACITY = 1024;

/** What `claim` did. `previous` is the time a taken-over key had (for an undo). */
export type ClaimOutcome = { claimed: false } | { claimed: true; previous?: number };

export class EventKeySet {
  #capacity = 0;
  #mask = 0;
  #keys = new Uint32Array(0);
  #times = new Float64Array(0);
  #used = new Uint8Array(0);
  #size = 0;
  /** Where the next `sweep` continues. */
  #cursor = 0;
  /**
   * A per-process random seed for the hash. Only senders that passed
   * authentication reach the idempotency check, and without the seed they
   * cannot choose event IDs that pile up in one probe run.
   */
  readonly #seed = randomBytes(4).readUInt32LE(0);

  constructor(capacity = MIN_CAPACITY) {
    this.#allocate(Math.max(MIN_CAPACITY, 2 ** Math.ceil(Math.log2(capacity))));
  }

  get size(): number {
    return this.#size;
  }

  /** Bytes held by the table's arrays. */
  get bytes(): number {
    return this.#keys.byteLength + this.#times.byteLength + this.#used.byteLength;
  }

  /** The time stored for a key, or undefined. */
  get(listener: number, event: Uint8Array): number | undefined {
    const i = this.#find(listener, event);
    return i >= 0 ? this.#times[i] : undefined;
  }

  /**
   * Claims a key at `now`: a key not in the set, or one stored at or before
   * `expiredAtOrBefore` (taken over), is claimed; any other is a duplicate.
   */
  claim(listener: number, event: Uint8Array, now: number, expiredAtOrBefore: number): ClaimOutcome {
    const i = this.#find(listener, event);
    if (i >= 0) {
      const previous = this.#times[i]!;
      if (previous > expiredAtOrBefore) return { claimed: false };
      this.#times[i] = now;
      return { claimed: true, previous };
    }
    this.#insertAt(~i, listener, event, now);
    return { claimed: true };
  }

  /** Adds a key, or moves its time forward to `time` when that is later (records logged elsewhere). */
  merge(listener: number, event: Uint8Array, time: number): void {
    const i = this.#find(listener, event);
    if (i >= 0) {
      if (time > this.#times[i]!) this.#times[i] = time;
      return;
    }
    this.#insertAt(~i, listener, event, time);
  }

  /** Sets a key's time (to undo a takeover). */
  set(listener: number, event: Uint8Array, time: number): void {
    const i = this.#find(listener, event);
    if (i >= 0) this.#times[i] = time;
    else this.#insertAt(~i, listener, event, time);
  }

  /** Removes a key; true when it was there. */
  delete(listener: number, event: Uint8Array): boolean {
    const i = this.#find(listener, event);
    if (i < 0) return false;
    this.#removeAt(i);
    return true;
  }

  /**
   * Removes keys stored at or before `cutoff`, looking at up to `budget` slots
   * from where the last sweep stopped, so a large table is swept a slice at a
   * time. Returns how many keys it removed and whether it reached the end of
   * the table (the next sweep starts again from the beginning). After a full
   * pass, a table far larger than it needs to be is shrunk.
   */
  sweep(cutoff: number, budget: number): { removed: number; done: boolean } {
    let removed = 0;
    let i = this.#cursor;
    const end = Math.min(this.#capacity, i + budget);
    while (i < end) {
      if (this.#used[i] && this.#times[i]! <= cutoff) {
        // The slot now holds the next entry of the run (or nothing): look again.
        this.#removeAt(i);
        removed++;
      } else {
        i++;
      }
    }
    const done = i >= this.#capacity;
    this.#cursor = done ? 0 : i;
    if (done && this.#capacity > MIN_CAPACITY && this.#size * 8 < this.#capacity) this.#resize(this.#capacity / 2);
    return { removed, done };
  }

  /** Every key with its time (for tests and diagnostics). */
  *entries(): Generator<{ listener: number; event: Buffer; time: number }> {
    for (let i = 0; i < this.#capacity; i++) {
      if (!this.#used[i]) continue;
      const event = Buffer.alloc(16);
      const o = i * WORDS;
      for (let w = 0; w < 4; w++) event.writeUInt32LE(this.#keys[o + w]!, w * 4);
      yield { listener: this.#keys[o + 4]!, event, time: this.#times[i]! };
    }
  }

  #allocate(capacity: number): void {
    this.#capacity = capacity;
    this.#mask = capacity - 1;
    this.#keys = new Uint32Array(capacity * WORDS);
    this.#times = new Float64Array(capacity);
    this.#used = new Uint8Array(capacity);
    this.#size = 0;
    this.#cursor = 0;
  }

  #hash(listener: number, w0: number, w1: number, w2: number, w3: number): number {
    // Event IDs are mostly random bits already; the mixing (MurmurHash3's
    // finalizer steps) spreads the seed and every word over the slot number.
    let h = Math.imul(w0 ^ this.#seed, 0xcc9e2d51);
    h = Math.imul(h ^ (h >>> 15) ^ w1, 0x1b873593);
    h = Math.imul(h ^ (h >>> 13) ^ w2, 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 16) ^ w3, 0xc2b2ae35);
    h = Math.imul(h ^ (h >>> 13) ^ listener, 0x85ebca6b);
    return (h ^ (h >>> 16)) & this.#mask;
  }

  /** The slot holding the key (>= 0), or the bitwise complement of the empty slot where it would go. */
  #find(listener: number, event: Uint8Array): number {
    // A listener number outside 32 bits would be stored cut short and match another's keys.
    if (listener >>> 0 !== listener) throw new RangeError(`listener number ${listener} is not a 32-bit unsigned integer`);
    const w0 = word(event, 0);
    const w1 = word(event, 4);
    const w2 = word(event, 8);
    const w3 = word(event, 12);
    const keys = this.#keys;
    const used = this.#used;
    const mask = this.#mask;
    for (let i = this.#hash(listener, w0, w1, w2, w3); ; i = (i + 1) & mask) {
      if (!used[i]) return ~i;
      const o = i * WORDS;
      if (keys[o] === w0 && keys[o + 1] === w1 && keys[o + 2] === w2 && keys[o + 3] === w3 && keys[o + 4] === listener) return i;
    }
  }

  #insertAt(slot: number, listener: number, event: Uint8Array, time: number): void {
    if ((this.#size + 1) * 2 > this.#capacity) {
      this.#resize(this.#capacity * 2);
      slot = ~this.#find(listener, event);
    }
    const o = slot * WORDS;
    const keys = this.#keys;
    keys[o] = word(event, 0);
    keys[o + 1] = word(event, 4);
    keys[o + 2] = word(event, 8);
    keys[o + 3] = word(event, 12);
    keys[o + 4] = listener;
    this.#times[slot] = time;
    this.#used[slot] = 1;
    this.#size++;
  }

  /** Empties slot `i`, moving back the later entries of its run that may not stay behind a gap (backward-shift deletion). */
  #removeAt(i: number): void {
    const keys = this.#keys;
    const used = this.#used;
    const times = this.#times;
    const mask = this.#mask;
    let gap = i;
    for (let j = (i + 1) & mask; used[j]; j = (j + 1) & mask) {
      const o = j * WORDS;
      const home = this.#hash(keys[o + 4]!, keys[o]!, keys[o + 1]!, keys[o + 2]!, keys[o + 3]!);
      // The entry at j may move to the gap unless its home lies cyclically in (gap, j].
      if (((j - home) & mask) >= ((j - gap) & mask)) {
        keys.copyWithin(gap * WORDS, o, o + WORDS);
        times[gap] = times[j]!;
        gap = j;
      }
    }
    used[gap] = 0;
    this.#size--;
  }

  #resize(capacity: number): void {
    const keys = this.#keys;
    const times = this.#times;
    const used = this.#used;
    const old = this.#capacity;
    this.#allocate(capacity);
    const scratch = new Uint8Array(16);
    const view = new DataView(scratch.buffer);
    for (let i = 0; i < old; i++) {
      if (!used[i]) continue;
      const o = i * WORDS;
      for (let w = 0; w < 4; w++) view.setUint32(w * 4, keys[o + w]!, true);
      const slot = this.#find(keys[o + 4]!, scratch);
      this.#insertAt(~slot, keys[o + 4]!, scratch, times[i]!);
    }
  }
}

/** The little-endian 32-bit word at `at` (as an unsigned number, the way Uint32Array stores it). */
function word(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}
