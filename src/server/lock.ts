// One `agctl serve` per data directory: a second one would share the database
// on another port while the ready file and the kept port (serve-port) name the
// first. The lock is a file, <data dir>/serve.pid, holding the PID of the serve
// that owns the directory. It is created whole or not at all (written under a
// temporary name, then hard-linked into place, which fails when it exists), and
// removed when serve stops or its process exits. A process killed outright
// (SIGKILL, a crash, a power cut) leaves it behind: a PID that no longer runs
// marks it stale, and the next serve takes it over.
//
// Only `serve` takes it. `--embedded` runs a server for one command on the same
// data directory while a serve runs; they share the database as any number of
// servers may (every write is one BEGIN IMMEDIATE transaction, store/db.ts).
import { linkSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRunning } from '../lib/pid.js';
import { StartupError, anotherDataDir, dataDirError, type DataDirNaming } from './startup.js';

export const LOCK_FILE = 'serve.pid';

/** The lock files this process holds (its own PID in a file it did not write is a stale file from a process with the same PID). */
const mine = new Set<string>();

interface DataDirLock {
  /** Removes the lock file (when it is still this process's); idempotent. */
  release(): void;
}

/** The PID a lock file names, or undefined when it names none (empty, damaged, gone). */
function holder(file: string): number | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return /^[1-9]\d{0,9}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the data directory for this process, creating it when missing. A
 * StartupError when another running process holds it ("data directory ... is
 * in use by PID n"), or when the directory cannot be used.
 */
export function lockDataDir(dir: string, naming: DataDirNaming): DataDirLock {
  const file = join(dir, LOCK_FILE);
  const temp = join(dir, `${LOCK_FILE}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(temp, `${process.pid}\n`, { mode: 0o600 });
  } catch (err) {
    throw dataDirError(dir, err, naming);
  }
  try {
    // A stale file is removed and the link tried again; twice is enough unless another serve takes it meanwhile.
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(temp, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw dataDirError(dir, err, naming);
      }
      const pid = holder(file);
      if (pid !== undefined && (pid === process.pid ? mine.has(file) : isRunning(pid))) {
        throw new StartupError(
          `data directory ${dir} is in use by PID ${pid} (another agctl serve)`,
          `stop that server first, or ${anotherDataDir(naming)}; if PID ${pid} is not an agctl serve, remove ${file}`,
        );
      }
      if (attempt === 2) throw new StartupError(`data directory ${dir}: cannot take its lock file ${file}`, `${anotherDataDir(naming)}, or remove the file`);
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(temp, { force: true });
  }
  mine.add(file);
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    mine.delete(file);
    process.off('exit', release);
    // Only this process's: a serve that took over a lock it thought stale keeps its own.
    if (holder(file) === process.pid) {
      try {
        unlinkSync(file);
      } catch {
        // gone already
      }
    }
  };
  process.on('exit', release);
  return { release };
}
