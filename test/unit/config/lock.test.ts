// The config directory's lock file: holders take turns, the lock of a dead
// process or a too old one is taken over (never a live one by mistake), the
// wait is bounded. Real processes racing on it: test/stress/concurrency.stress.test.ts.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LockBusyError, acquireLock, withLock } from '../../../src/config/lock.js';
import { processStartTime, setTakeoverHook, tryLock } from '../../../src/lib/private-fs.js';
import { ProfileStore } from '../../../src/config/profiles.js';
import { UsageError } from '../../../src/lib/exit.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `l${n++}.lock`);

/** The PID of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
const holderText = (pid: number, host = hostname()) => JSON.stringify({ pid, host, id: 'x' });

describe('lock file', () => {
  it('lets one holder in at a time, and is gone once released', async () => {
    const path = fresh();
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        withLock(path, { waitMs: 5_000 }, async () => {
          most = Math.max(most, ++inside);
          await new Promise((r) => setTimeout(r, 10));
          order.push(i);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(order.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(existsSync(path)).toBe(false);
  });

  it('holds the PID and host of its holder, and is released after a failure too', async () => {
    const path = fresh();
    const err = await withLock(path, { waitMs: 100 }, () => {
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
      throw new Error('boom');
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('boom');
    expect(existsSync(path)).toBe(false);
  });

  it('takes over the lock of a process that died holding it', async () => {
    const path = fresh();
    writeFileSync(path, holderText(deadPid()));
    const release = await acquireLock(path, { waitMs: 0 });
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    release();
    expect(existsSync(path)).toBe(false);
  });

  it('waits a bounded time for a live holder, then says who holds it', async () => {
    const path = fresh();
    // A live process other than this one: the parent (vitest's main process).
    writeFileSync(path, holderText(process.ppid));
    const started = Date.now();
    const err = await acquireLock(path, { waitMs: 150 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockBusyError);
    expect((err as LockBusyError).holder).toBe(`process ${process.ppid}`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(Date.now() - started).toBeLessThan(2_000);
    // the live holder's lock is left alone
    expect(readFileSync(path, 'utf8')).toBe(holderText(process.ppid));
  });

  it("does not judge a holder on another host by its PID, only by the lock's age", async () => {
    const path = fresh();
    writeFileSync(path, holderText(deadPid(), 'another-host.example'));
    const err = await acquireLock(path, { waitMs: 50 }).catch((e: unknown) => e);
    expect((err as LockBusyError).holder).toMatch(/^process \d+ on another-host\.example$/);
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(path, old, old);
    const release = await acquireLock(path, { waitMs: 0, staleMs: 60_000 });
    release();
  });

  it('a PID reused (another start time) is gone at once; a live PID without a start time is judged by age; an empty or damaged lock is taken at once', async () => {
    const path = fresh();
    const other = process.ppid;
    writeFileSync(path, JSON.stringify({ pid: other, host: hostname(), start: '1', id: 'x' }));
    (await acquireLock(path, { waitMs: 0 }))();
    writeFileSync(path, JSON.stringify({ pid: other, host: hostname(), start: processStartTime(other), id: 'x' }));
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(path, old, old);
    // Its start time is its own: alive whatever the lock's age.
    await expect(acquireLock(path, { waitMs: 0, staleMs: 1_000 })).rejects.toBeInstanceOf(LockBusyError);
    writeFileSync(path, holderText(other));
    await expect(acquireLock(path, { waitMs: 0, staleMs: 60_000 })).rejects.toBeInstanceOf(LockBusyError);
    utimesSync(path, old, old);
    (await acquireLock(path, { waitMs: 0, staleMs: 60_000 }))();
    for (const damaged of ['', '{"pid":', 'garbage']) {
      writeFileSync(path, damaged);
      (await acquireLock(path, { waitMs: 0 }))();
    }
    expect(readdirSync(root).filter((f) => f.startsWith(basename(path)))).toEqual([]);
  });

  it("a holder whose lock was replaced does not remove the new holder's on release", async () => {
    const path = fresh();
    const release = await acquireLock(path, { waitMs: 0 });
    writeFileSync(path, holderText(process.ppid));
    release();
    expect(readFileSync(path, 'utf8')).toBe(holderText(process.ppid));
    rmSync(path);
  });

  it('two takers of one stale lock: the one holding its claim replaces it; the other, meanwhile, neither takes it nor lets a fresh locker in', async () => {
    const path = fresh();
    const stale = holderText(deadPid());
    writeFileSync(path, stale);
    let during: ReturnType<typeof tryLock> | undefined;
    let seenDuring = '';
    setTakeoverHook((step) => {
      if (step !== 'claimed' || during) return;
      // A second taker (and a fresh locker: the same call) while the first holds the claim.
      during = tryLock(path);
      seenDuring = readFileSync(path, 'utf8');
    });
    let release: () => void;
    try {
      release = await acquireLock(path, { waitMs: 0 });
    } finally {
      setTakeoverHook(undefined);
    }
    expect(during && 'release' in during).toBe(false);
    expect(seenDuring).toBe(stale);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    release();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(root).filter((f) => f.startsWith(basename(path)))).toEqual([]);
  });

  it('a claim left by a taker that died is taken over, and swept', async () => {
    const path = fresh();
    writeFileSync(path, holderText(deadPid()));
    const st = statSync(path);
    const identity = `${st.dev}:${st.ino}:${readFileSync(path, 'utf8')}`;
    const claim = `${path}.${createHash('sha256').update(identity).digest('hex').slice(0, 16)}.take`;
    writeFileSync(claim, holderText(deadPid()));
    const release = await acquireLock(path, { waitMs: 0 });
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    expect(existsSync(claim)).toBe(false);
    release();
    expect(readdirSync(root).filter((f) => f.startsWith(basename(path)))).toEqual([]);
  });

  it('a link planted at the lock is replaced, its target left alone', async () => {
    const path = fresh();
    const target = join(root, `target${n++}`);
    writeFileSync(target, 'precious');
    symlinkSync(target, path);
    const release = await acquireLock(path, { waitMs: 0 });
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    release();
    expect(readFileSync(target, 'utf8')).toBe('precious');
  });

  it('reports file system errors as they are (a directory that cannot be written)', async () => {
    const err = await acquireLock(join(root, 'missing', 'x.lock'), { waitMs: 0 }).catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('config directory lock', () => {
  it('a write waits for the holder and goes on once it is gone', async () => {
    const dir = join(root, `c${n++}`);
    const store = new ProfileStore(dir, {});
    await store.save('a', { clientId: 'x' });
    writeFileSync(store.lockPath, holderText(process.ppid));
    setTimeout(() => rmSync(store.lockPath), 100);
    await store.save('b', { clientId: 'y' }, true);
    expect(new ProfileStore(dir, {}).read()).toEqual({ currentProfile: 'b', profiles: { a: { clientId: 'x' }, b: { clientId: 'y' } } });
    expect(readdirSync(dir).sort()).toEqual(['config.json']);
  });

  it('a write that waited in vain is a usage error naming the directory, the holder and the lock file, and changes nothing', async () => {
    const dir = join(root, `c${n++}`);
    const store = new ProfileStore(dir, {});
    await store.save('a', { clientId: 'x' });
    const before = readFileSync(store.path, 'utf8');
    writeFileSync(store.lockPath, holderText(process.ppid));
    store.lockWaitMs = 100;
    const err = (await store.setCurrent('zz').catch((e: unknown) => e)) as UsageError;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(`the config directory ${dir} is busy: process ${process.ppid} still holds its lock after 0.1 s`);
    expect(err.hint).toBe(`try again; if no agctl is running, remove ${store.lockPath}`);
    expect(readFileSync(store.path, 'utf8')).toBe(before);
  });

  it('is held across a profile and a secret saved together, and taken once (no deadlock when a save runs inside)', async () => {
    const dir = join(root, `c${n++}`);
    const store = new ProfileStore(dir, {});
    const seen = await store.locked(async () => {
      await store.save('a', { clientId: 'x' });
      return JSON.parse(readFileSync(store.lockPath, 'utf8')).pid as number;
    });
    expect(seen).toBe(process.pid);
    expect(existsSync(store.lockPath)).toBe(false);
    expect(store.get('a')).toEqual({ clientId: 'x' });
  });
});
