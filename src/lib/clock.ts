// An injectable clock, so tests can move time (token expiry, step-up transactions, webhook skew) and shorten waits.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Waits `ms` (a request's retries, the pauses of a poll), or less when `signal` aborts; tests shorten it. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export const systemClock: Clock = { now: () => Date.now(), sleep };

/** A clock that follows the system clock plus an offset tests can move. */
export class OffsetClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleep(ms, signal);
  }
}

export const nowSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);
export const isoAt = (ms: number): string => new Date(ms).toISOString();
