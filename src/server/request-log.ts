// The server's request log: a line per request while traffic is light, and
// under load one line a second with the count of each status, so a long load
// run writes a few lines a second, not one per request.
//
// Seconds are counted on the server's clock. A second in which more than
// `perSecond` requests finish logs its first `perSecond` one by one and
// counts the rest; while the previous second was that busy, every request is
// counted, none logged alone. The counts of a second are written once it is
// over: by the first request of a later second, or by tick() (which the
// server calls every second, so a burst that ends is summed up at once).

/** Requests a second logged one by one; past this many, they are counted. */
export const REQUEST_LOG_PER_SECOND = 5;

export class RequestLog {
  readonly #write: (line: string) => void;
  readonly #now: () => number;
  readonly #perSecond: number;
  /** The second being counted (floor of ms / 1000), its requests, and the statuses of those not logged alone. */
  #second = -1;
  #count = 0;
  #counted = new Map<number, number>();
  /** The whole second is counted (the one before it was busy). */
  #busy = false;

  constructor(write: (line: string) => void, now: () => number, perSecond = REQUEST_LOG_PER_SECOND) {
    this.#write = write;
    this.#now = now;
    this.#perSecond = perSecond;
  }

  /** A finished request: `line` describes it, `status` is its answer's. */
  request(line: string, status: number): void {
    this.#roll();
    this.#count++;
    if (!this.#busy && this.#count <= this.#perSecond) return this.#write(line);
    this.#counted.set(status, (this.#counted.get(status) ?? 0) + 1);
  }

  /** Writes the counts of a second that is over. */
  tick(): void {
    this.#roll();
  }

  /** Writes the counts held so far (when the server stops). */
  flush(): void {
    this.#summarize();
    this.#counted.clear();
  }

  #roll(): void {
    if (this.#perSecond === Infinity) return;
    const second = Math.floor(this.#now() / 1000);
    if (second === this.#second) return;
    this.#summarize();
    // Busy again only when the second just over was, and it is the one right before this one.
    this.#busy = this.#count > this.#perSecond && second === this.#second + 1;
    this.#second = second;
    this.#count = 0;
    this.#counted.clear();
  }

  #summarize(): void {
    if (this.#counted.size === 0) return;
    const n = [...this.#counted.values()].reduce((a, b) => a + b, 0);
    const by = [...this.#counted].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`);
    const what = this.#busy ? `${n} ${n === 1 ? 'request' : 'requests'}` : `${n} more ${n === 1 ? 'request' : 'requests'}`;
    this.#write(`${what} in 1 s, not logged one by one (${by.join(', ')})`);
  }
}
