// Latencies of a load run in constant memory: a log-linear histogram (whole
// microseconds below 256 µs, then 128 buckets per doubling, so a percentile
// is within 0.8% of the true value), with the exact minimum, maximum and
// mean beside it; and the summary's bar chart of it, as `hey` draws one.

/** Buckets per doubling above the exact range. */
const SUB = 128;
/** Values (µs) below this have a bucket each. */
const EXACT = 2 * SUB;
/** The largest value told apart (µs, about 36 minutes); longer ones count as this. */
const MAX_US = 2 ** 31 - 1;
const BUCKETS = EXACT + (31 - 8) * SUB;

function indexOf(us: number): number {
  if (us < EXACT) return us;
  const e = 31 - Math.clz32(us) - 7;
  return EXACT + (e - 1) * SUB + ((us >>> e) - SUB);
}

/** The largest value (µs) of bucket `i`. */
function upperOf(i: number): number {
  if (i < EXACT) return i;
  const e = Math.floor((i - EXACT) / SUB) + 1;
  const m = ((i - EXACT) % SUB) + SUB;
  return (m + 1) * 2 ** e - 1;
}

/** One bar of the chart: latencies from `fromMs` up to `toMs` (the last bucket includes `toMs`). */
export interface LatencyBucket {
  fromMs: number;
  toMs: number;
  count: number;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

export class LatencyHistogram {
  readonly #counts = new Float64Array(BUCKETS);
  count = 0;
  #sum = 0;
  #min = Infinity;
  #max = 0;

  record(ms: number): void {
    const v = Math.max(0, ms);
    const us = Math.min(MAX_US, Math.round(v * 1000));
    this.#counts[indexOf(us)]!++;
    this.count++;
    this.#sum += v;
    if (v < this.#min) this.#min = v;
    if (v > this.#max) this.#max = v;
  }

  get min(): number {
    return this.count ? this.#min : 0;
  }

  get max(): number {
    return this.#max;
  }

  get mean(): number {
    return this.count ? this.#sum / this.count : 0;
  }

  /** The nearest-rank percentile (ms): the top of the bucket holding that rank, at most the maximum. */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.#counts[i]!;
      if (seen >= rank) return Math.max(this.min, Math.min(this.#max, upperOf(i) / 1000));
    }
    return this.#max;
  }

  /** `n` buckets of equal width from the fastest to the slowest request (as `hey` draws them); none when nothing was measured. */
  buckets(n = 10): LatencyBucket[] {
    if (this.count === 0) return [];
    const lo = this.min;
    const hi = this.#max;
    const width = (hi - lo) / n;
    const out = Array.from({ length: width > 0 ? n : 1 }, (_, k) => ({
      fromMs: round(lo + k * width, 3),
      toMs: round(k === n - 1 || width === 0 ? hi : lo + (k + 1) * width, 3),
      count: 0,
    }));
    for (let i = 0; i < BUCKETS; i++) {
      const c = this.#counts[i]!;
      if (!c) continue;
      // A fine bucket goes where its middle (kept within the measured range) falls.
      const lower = i === 0 ? 0 : upperOf(i - 1) + 1;
      const mid = Math.min(hi, Math.max(lo, (lower + upperOf(i)) / 2000));
      const k = width > 0 ? Math.min(out.length - 1, Math.floor((mid - lo) / width)) : 0;
      out[k]!.count += c;
    }
    return out;
  }
}

/**
 * The histogram as lines of text: each bucket's range, its count, and a bar
 * of █ as long as the count relative to the largest, fitted to `columns`.
 */
export function histogramLines(buckets: readonly LatencyBucket[], columns: number): string[] {
  if (buckets.length === 0) return [];
  const fmt = (ms: number) => ms.toFixed(ms >= 100 ? 1 : ms >= 10 ? 2 : 3);
  const ranges = buckets.map((b) => `${fmt(b.fromMs)} - ${fmt(b.toMs)} ms`);
  const counts = buckets.map((b) => String(b.count));
  const rw = Math.max(...ranges.map((r) => r.length));
  const cw = Math.max(...counts.map((c) => c.length));
  const most = Math.max(...buckets.map((b) => b.count));
  const room = Math.max(1, Math.min(40, columns - 1 - (2 + rw + 2 + cw + 2)));
  return buckets.map((b, i) => {
    const bar = b.count === 0 ? '' : '█'.repeat(Math.max(1, Math.round((b.count / most) * room)));
    return `  ${ranges[i]!.padStart(rw)}  ${counts[i]!.padStart(cw)}  ${bar}`.trimEnd();
  });
}
