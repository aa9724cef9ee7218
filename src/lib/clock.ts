// An injectable clock, so tests can move time (token expiry, step-up transactions, webhook skew).

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Waits between retries of a request (default: a timer of `ms`); tests shorten it. */
  sleep?(ms: number): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that follows the system clock plus an offset tests can move. */
export class OffsetClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export const nowSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);
export const isoAt = (ms: number): string => new Date(ms).toISOString();
