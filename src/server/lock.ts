// One `agctl serve` per data directory: a second one would share the database
// on another port while the ready file and the kept port (serve-port) name the
// first. The lock is <data dir>/serve.pid, the lock of src/lib/private-fs.ts:
// it names the serve's PID, host, boot and process start time, appears whole
// or not at all, and is removed when serve stops or its process exits. A
// process killed outright (SIGKILL, a crash, a power cut) leaves it behind:
// its holder is then gone (the PID no longer runs, or runs another program
// started later, or the machine rebooted) and the next serve takes it over,
// one serve alone even when several start at once.
//
// Only `serve` takes it. `--embedded` runs a server for one command on the same
// data directory while a serve runs; they share the database as any number of
// servers may (every write is one BEGIN IMMEDIATE transaction, store/db.ts).
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UnsafePathError, tryLock } from '../lib/private-fs.js';
import { StartupError, anotherDataDir, dataDirError, prepareDataDir, type DataDirNaming } from './startup.js';

export const LOCK_FILE = 'serve.pid';

interface DataDirLock {
  /** Removes the lock file (when it is still this process's); idempotent. */
  release(): void;
}

/** Where the PID of a serve cannot be checked (another host, no process start times): its lock is taken over only by hand. */
const NEVER = Number.POSITIVE_INFINITY;

/**
 * Takes the data directory for this process, creating it when missing. A
 * StartupError when another running process holds it ("data directory ... is
 * in use by PID n"), or when the directory cannot be used (another user's,
 * writable by others: prepareDataDir).
 */
export function lockDataDir(dir: string, naming: DataDirNaming): DataDirLock {
  prepareDataDir(dir, naming);
  const file = join(dir, LOCK_FILE);
  let r: ReturnType<typeof tryLock>;
  try {
    r = tryLock(file, NEVER);
  } catch (err) {
    if (err instanceof UnsafePathError) throw new StartupError(err.message, err.hint);
    throw dataDirError(dir, err, naming);
  }
  if (!('release' in r)) {
    const pid = r.holder?.pid;
    const who = pid !== undefined ? `PID ${pid}` : 'another process';
    throw new StartupError(
      `data directory ${dir} is in use by ${who}${r.holder?.host && r.holder.host !== hostname() ? ` on ${r.holder.host}` : ''} (another agctl serve)`,
      `stop that server first, or ${anotherDataDir(naming)}; if ${who} is not an agctl serve, remove ${file}`,
    );
  }
  // The lock's release is idempotent: a second call (stop, then exit) does nothing.
  const { release: unlock } = r;
  const release = () => {
    process.off('exit', release);
    unlock();
  };
  process.on('exit', release);
  return { release };
}
