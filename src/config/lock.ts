// A lock file around a read-modify-write in the config directory, so that
// agctl processes started at once (logins, a switch, a logout, token renewals)
// take turns. The lock is a file created exclusively (O_EXCL) holding the
// holder's PID and host; a lock whose holder is dead (on this host), or that
// is older than `staleMs` whoever holds it, is taken over. Waiting is bounded.
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { sleep } from '../lib/clock.js';
import { isRunning } from '../lib/pid.js';

interface LockOptions {
  /** How long to wait for another holder before giving up (ms). */
  waitMs: number;
  /** A lock older than this is stale whoever holds it (a PID reused, a holder on another host) (ms). */
  staleMs?: number;
}

/** A lock still held by another process after the wait. */
export class LockBusyError extends Error {
  constructor(
    readonly path: string,
    readonly holder: string,
  ) {
    super(`${path} is held by ${holder}`);
    this.name = 'LockBusyError';
  }
}

const DEFAULT_STALE_MS = 60_000;
const POLL_MS = [5, 25] as const;

interface Holder {
  text: string;
  pid?: number;
  host?: string;
  ageMs: number;
}

/** The lock's holder as written in it, undefined when there is no lock (any more). */
function readHolder(path: string): Holder | undefined {
  let text: string;
  let mtimeMs: number;
  try {
    text = readFileSync(path, 'utf8');
    mtimeMs = statSync(path).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const ageMs = Date.now() - mtimeMs;
  try {
    const v = JSON.parse(text) as { pid?: unknown; host?: unknown };
    return { text, ageMs, pid: Number.isSafeInteger(v.pid) ? (v.pid as number) : undefined, host: typeof v.host === 'string' ? v.host : undefined };
  } catch {
    // Being written this very moment (or damaged): judged by its age alone.
    return { text, ageMs };
  }
}

function isStale(h: Holder, staleMs: number): boolean {
  if (h.ageMs > staleMs) return true;
  return h.pid !== undefined && h.host === hostname() && h.pid !== process.pid && !isRunning(h.pid);
}

/**
 * Removes a stale lock whose content was `seen`. It is first renamed aside,
 * so that two processes taking over the same stale lock at once cannot both
 * remove it: the one that moved a fresh lock instead (its content differs)
 * puts it back.
 */
export function takeOverLock(path: string, seen: string): void {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    if (readFileSync(aside, 'utf8') !== seen) linkSync(aside, path);
  } catch {
    // the fresh lock was released, or replaced meanwhile: nothing to put back
  } finally {
    rmSync(aside, { force: true });
  }
}

const describe = (h: Holder | undefined) => (h?.pid !== undefined ? `process ${h.pid}${h.host && h.host !== hostname() ? ` on ${h.host}` : ''}` : 'another process');

/**
 * Takes the lock at `path` (waiting at most `waitMs` for another holder),
 * returning the function that releases it. Throws LockBusyError after the
 * wait, and file system errors (a read-only directory) as they are.
 */
export async function acquireLock(path: string, opts: LockOptions): Promise<() => void> {
  const me = JSON.stringify({ pid: process.pid, host: hostname(), id: randomBytes(8).toString('hex') });
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    try {
      writeFileSync(path, me, { flag: 'wx', mode: 0o600 });
      return () => {
        // Released only while still ours: a holder too slow for `staleMs` may have lost it.
        try {
          if (readFileSync(path, 'utf8') === me) rmSync(path, { force: true });
        } catch {
          // gone already
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(path);
    if (!holder) continue;
    if (isStale(holder, opts.staleMs ?? DEFAULT_STALE_MS)) {
      takeOverLock(path, holder.text);
      continue;
    }
    if (Date.now() >= deadline) throw new LockBusyError(path, describe(holder));
    await sleep(POLL_MS[0] + Math.random() * (POLL_MS[1] - POLL_MS[0]));
  }
}

/** Runs `fn` holding the lock at `path` (see acquireLock). */
export async function withLock<T>(path: string, opts: LockOptions, fn: () => T | Promise<T>): Promise<T> {
  const release = await acquireLock(path, opts);
  try {
    return await fn();
  } finally {
    release();
  }
}
