// The in-memory key set of the webhook duplicate check, against a Map doing
// the same operations: random operation sequences over a small key space
// (so keys collide, runs of the probe sequence form, wrap around the end of
// the table, and are split by deletions), through growth and shrinking.
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { EventKeySet } from '../../../src/server/store/event-keys.js';

/** A small deterministic generator, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const keyOf = (listener: number, event: Buffer) => `${listener}:${event.toString('hex')}`;

function contents(set: EventKeySet): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of set.entries()) m.set(keyOf(e.listener, e.event), e.time);
  return m;
}

describe('EventKeySet', () => {
  it('claims a new key once; a second claim is a duplicate until the first has expired', () => {
    const set = new EventKeySet();
    const ev = randomBytes(16);
    expect(set.claim(1, ev, 1000, 0)).toEqual({ claimed: true });
    expect(set.claim(1, ev, 2000, 0)).toEqual({ claimed: false });
    // The same event ID for another listener is another key.
    expect(set.claim(2, ev, 2000, 0)).toEqual({ claimed: true });
    // Stored at 1000: expired for a cutoff of 1000 (at or before), taken over with its old time reported.
    expect(set.claim(1, ev, 3000, 999)).toEqual({ claimed: false });
    expect(set.claim(1, ev, 3000, 1000)).toEqual({ claimed: true, previous: 1000 });
    expect(set.get(1, ev)).toBe(3000);
    expect(set.size).toBe(2);
  });

  it('refuses a listener number it cannot store exactly', () => {
    const set = new EventKeySet();
    for (const bad of [2 ** 32, -1, 1.5]) expect(() => set.claim(bad, randomBytes(16), 1, 0)).toThrow(RangeError);
    expect(set.size).toBe(0);
  });

  it('merge keeps the later time; set and delete undo a claim', () => {
    const set = new EventKeySet();
    const ev = randomBytes(16);
    set.merge(7, ev, 500);
    set.merge(7, ev, 400);
    expect(set.get(7, ev)).toBe(500);
    set.merge(7, ev, 600);
    expect(set.get(7, ev)).toBe(600);
    set.set(7, ev, 100);
    expect(set.get(7, ev)).toBe(100);
    expect(set.delete(7, ev)).toBe(true);
    expect(set.delete(7, ev)).toBe(false);
    expect(set.get(7, ev)).toBeUndefined();
    expect(set.size).toBe(0);
  });

  it('behaves as a Map over random operations, through growth, deletions, sweeps and shrinking', () => {
    for (const seed of [1, 2, 3, 42, 1234]) {
      const rand = rng(seed);
      const set = new EventKeySet();
      const ref = new Map<string, number>();
      // 3000 distinct keys: the table grows past its first 1024 slots, and the ops revisit keys.
      const pool = Array.from({ length: 3000 }, () => ({ listener: 1 + Math.floor(rand() * 3), event: randomBytes(16) }));
      let now = 1;
      for (let op = 0; op < 30_000; op++) {
        const k = pool[Math.floor(rand() * pool.length)]!;
        const name = keyOf(k.listener, k.event);
        const r = rand();
        now += 1;
        if (r < 0.45) {
          const cutoff = now - 5000;
          const got = set.claim(k.listener, k.event, now, cutoff);
          const had = ref.get(name);
          if (had === undefined) expect(got).toEqual({ claimed: true });
          else if (had <= cutoff) expect(got).toEqual({ claimed: true, previous: had });
          else expect(got).toEqual({ claimed: false });
          if (got.claimed) ref.set(name, now);
        } else if (r < 0.6) {
          expect(set.delete(k.listener, k.event)).toBe(ref.delete(name));
        } else if (r < 0.7) {
          const t = now - Math.floor(rand() * 8000);
          set.merge(k.listener, k.event, t);
          ref.set(name, Math.max(ref.get(name) ?? -Infinity, t));
        } else if (r < 0.98) {
          expect(set.get(k.listener, k.event)).toBe(ref.get(name));
        } else {
          const cutoff = now - 3000;
          // A slice of a sweep, the rest of its pass, then one whole pass from the start.
          let removed = set.sweep(cutoff, 1 + Math.floor(rand() * 2048)).removed;
          for (let pass = 0; pass < 2; pass++) {
            for (let more = true; more; ) {
              const step = set.sweep(cutoff, 512);
              removed += step.removed;
              more = !step.done;
            }
          }
          let expected = 0;
          for (const [n, t] of ref) if (t <= cutoff) (ref.delete(n), expected++);
          expect(removed).toBe(expected);
        }
        expect(set.size).toBe(ref.size);
      }
      expect(contents(set)).toEqual(ref);
      // Every key can still be found (no entry stranded behind a gap by a deletion).
      for (const [name, t] of ref) {
        const [l, hex] = name.split(':');
        expect(set.get(Number(l), Buffer.from(hex!, 'hex'))).toBe(t);
      }
    }
  });

  it('a full sweep removes exactly the keys at or before the cutoff, and shrinks a mostly empty table', () => {
    const set = new EventKeySet();
    const events = Array.from({ length: 20_000 }, (_, i) => ({ event: randomBytes(16), time: i }));
    for (const e of events) set.merge(1, e.event, e.time);
    const grown = set.bytes;
    let removed = 0;
    for (let more = true; more; ) {
      const step = set.sweep(19_899, 1000);
      removed += step.removed;
      more = !step.done;
    }
    expect(removed).toBe(19_900);
    expect(set.size).toBe(100);
    expect([...set.entries()].map((e) => e.time).sort((a, b) => a - b)).toEqual(events.slice(19_900).map((e) => e.time));
    for (const e of events.slice(19_900)) expect(set.get(1, e.event)).toBe(e.time);
    // One halving per full pass: a few passes bring it down.
    for (let pass = 0; pass < 6; pass++) for (let more = true; more; ) more = !set.sweep(0, 1 << 20).done;
    expect(set.bytes).toBeLessThan(grown / 8);
    for (const e of events.slice(19_900)) expect(set.get(1, e.event)).toBe(e.time);
  });
});
