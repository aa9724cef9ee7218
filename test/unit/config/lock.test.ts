// The config directory's lock file: holders take turns, the lock of a dead
// process or a too old one is taken over (never a live one by mistake), the
// wait is bounded. Real processes racing on it: test/e2e/cli/concurrency.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LockBusyError, acquireLock, takeOverLock, withLock } from '../../../src/config/lock.js';
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

  it('does not judge a holder on another host by its PID, only by the lock\'s age', async () => {
    const path = fresh();
    writeFileSync(path, holderText(deadPid(), 'another-host.example'));
    const err = await acquireLock(path, { waitMs: 50 }).catch((e: unknown) => e);
    expect((err as LockBusyError).holder).toMatch(/^process \d+ on another-host\.example$/);
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(path, old, old);
    const release = await acquireLock(path, { waitMs: 0, staleMs: 60_000 });
    release();
  });

  it('takes over a lock older than staleMs even when its PID is alive (a PID reused), and damaged content by age', async () => {
    const path = fresh();
    writeFileSync(path, holderText(process.ppid));
    const old = (Date.now() - 5_000) / 1000;
    utimesSync(path, old, old);
    (await acquireLock(path, { waitMs: 0, staleMs: 1_000 }))();
    writeFileSync(path, ''); // a holder between creating the file and writing its PID: alive while young
    await expect(acquireLock(path, { waitMs: 50, staleMs: 1_000 })).rejects.toBeInstanceOf(LockBusyError);
    utimesSync(path, old, old);
    (await acquireLock(path, { waitMs: 0, staleMs: 1_000 }))();
  });

  it('a holder that lost its lock to a takeover does not remove the new holder\'s on release', async () => {
    const path = fresh();
    const release = await acquireLock(path, { waitMs: 0 });
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(path, old, old);
    const second = await acquireLock(path, { waitMs: 0, staleMs: 60_000 });
    const theirs = readFileSync(path, 'utf8');
    release();
    expect(readFileSync(path, 'utf8')).toBe(theirs);
    second();
    expect(existsSync(path)).toBe(false);
  });

  it('two processes taking over the same stale lock: the late one puts back the lock the first one took', async () => {
    const path = fresh();
    const stale = holderText(deadPid());
    writeFileSync(path, stale);
    // The first takes it over and holds it; the second read the stale content before that, and removes it now.
    const release = await acquireLock(path, { waitMs: 0 });
    const fresh1 = readFileSync(path, 'utf8');
    takeOverLock(path, stale);
    expect(readFileSync(path, 'utf8')).toBe(fresh1);
    // and leaves nothing aside
    expect(readdirSync(root).filter((f) => f.includes('.stale'))).toEqual([]);
    release();
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
