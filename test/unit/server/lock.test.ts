// The data directory lock of `agctl serve` (src/server/lock.ts): taken whole,
// refused while its holder runs, taken over from a holder that is gone.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRunning } from '../../../src/lib/pid.js';
import { processStartTime } from '../../../src/lib/private-fs.js';
import { LOCK_FILE, lockDataDir } from '../../../src/server/lock.js';
import { StartupError } from '../../../src/server/startup.js';
import { tempDir } from '../../helpers/cli.js';

const naming = { dataDirFlag: '--data-dir' };
/** The PID the lock file names. */
const pidIn = (dir: string) => (JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number }).pid;
/** The PID of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('lockDataDir', () => {
  it('creates the directory and a lock file with this PID; release removes it; a second lock in this process is refused', () => {
    const dir = join(tempDir('agctl-lock-'), 'data');
    const lock = lockDataDir(dir, naming);
    expect(pidIn(dir)).toBe(process.pid);
    expect(() => lockDataDir(dir, naming)).toThrow(`data directory ${dir} is in use by PID ${process.pid} (another agctl serve)`);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    lock.release();
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    lockDataDir(dir, naming).release();
  });

  it('is refused while the PID it names runs, naming the PID, what to do and the file', () => {
    const dir = tempDir('agctl-lock-');
    // This test's parent process runs and is not this process.
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`);
    try {
      lockDataDir(dir, naming);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(StartupError);
      expect((err as StartupError).message).toBe(`data directory ${dir} is in use by PID ${process.ppid} (another agctl serve)`);
      expect((err as StartupError).hint).toBe(
        `stop that server first, or choose another data directory with --data-dir; if PID ${process.ppid} is not an agctl serve, remove ${join(dir, LOCK_FILE)}`,
      );
    }
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.ppid}\n`);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
  });

  it('takes over a file whose PID no longer runs, or that names no PID (this PID from before, too)', () => {
    const pid = deadPid();
    expect(isRunning(pid)).toBe(false);
    for (const stale of [
      `${pid}\n`,
      '',
      'garbage',
      `${process.pid}\n`,
      JSON.stringify({ pid: process.pid, host: hostname(), id: 'an earlier process with this PID' }),
    ]) {
      const dir = tempDir('agctl-lock-');
      writeFileSync(join(dir, LOCK_FILE), stale);
      const lock = lockDataDir(dir, naming);
      expect(pidIn(dir)).toBe(process.pid);
      lock.release();
    }
  });

  it('takes over a file naming a live PID with another start time (a PID reused since), or an earlier boot', () => {
    for (const stale of [
      { pid: process.ppid, host: hostname(), start: '1', id: 'x' },
      { pid: process.ppid, host: hostname(), boot: 'an-earlier-boot', start: processStartTime(process.ppid), id: 'x' },
    ]) {
      const dir = tempDir('agctl-lock-');
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify(stale));
      const lock = lockDataDir(dir, naming);
      expect(pidIn(dir)).toBe(process.pid);
      lock.release();
    }
    // Its own start time: it runs, and holds the directory.
    const dir = tempDir('agctl-lock-');
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: process.ppid, host: hostname(), start: processStartTime(process.ppid), id: 'x' }),
    );
    expect(() => lockDataDir(dir, naming)).toThrow(`is in use by PID ${process.ppid}`);
  });

  it('leaves alone a lock file that is no longer its own', () => {
    const dir = tempDir('agctl-lock-');
    const lock = lockDataDir(dir, naming);
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`);
    lock.release();
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.ppid}\n`);
  });

  it('a data directory that is a file: a start-up error naming it', () => {
    const file = join(tempDir('agctl-lock-'), 'file');
    writeFileSync(file, '');
    expect(() => lockDataDir(file, naming)).toThrow(StartupError);
    expect(() => lockDataDir(file, naming)).toThrow(/^data directory .*file: /);
  });

  it('isRunning', () => {
    expect(isRunning(process.pid)).toBe(true);
    expect(isRunning(deadPid())).toBe(false);
  });
});
