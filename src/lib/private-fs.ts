// The one home of agctl's file primitives for local state (the config
// directory, the embedded server's data directory):
//
// - writeFileAtomic: a temporary file in the same directory, created
//   exclusively (O_EXCL, a random name, never through a link) with mode 0600,
//   written, fsynced, renamed over the target, then the directory fsynced. On
//   any failure (ENOSPC included) the old file is intact and the temporary
//   file removed. A link planted at the target is replaced, never written through.
// - createFileExclusive: the same temporary file hard-linked into place, so
//   processes racing on an empty directory all end up with the first one's.
// - readPrivateFile: opened without following a link (O_NOFOLLOW), a regular
//   file owned by this user (or root) and not writable by group or others,
//   in a directory that is the same; otherwise an UnsafePathError.
// - acquireLock: an exclusive lock file (see there).
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  readlinkSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { isRunning } from './pid.js';

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
// Non-blocking: a FIFO where a file should be is refused (not a regular file) instead of hanging the open.
const READ = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);

/**
 * A path others can write or that is not what it should be (a link, not a
 * regular file, owned by another user): refused, with the fix. The CLI turns
 * it into a usage error, the server into a start-up error (both exit 2).
 */
export class UnsafePathError extends Error {
  constructor(
    readonly path: string,
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'UnsafePathError';
  }
}

const ignore = (fn: () => void) => {
  try {
    fn();
  } catch {
    // best effort
  }
};

/** The name of a user ID (from /etc/passwd), or `uid N`. */
function userName(uid: number): string {
  try {
    const line = (fsReadText('/etc/passwd') ?? '').split('\n').find((l) => l.split(':')[2] === String(uid));
    if (line) return line.split(':')[0]!;
  } catch {
    // no passwd file
  }
  return `uid ${uid}`;
}

/** A system file's text (/etc, /proc: not local state, so none of readPrivateFile's checks), undefined when there is none. */
function fsReadText(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return readAll(fd);
  } finally {
    closeSync(fd);
  }
}

function readAll(fd: number): string {
  const chunks: Buffer[] = [];
  for (;;) {
    const buf = Buffer.allocUnsafe(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** fsyncs a directory, so that the names just created or renamed in it survive a power loss (nothing where a directory cannot be opened: Windows). */
function syncDir(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | O_DIRECTORY);
  } catch (err) {
    if (['EISDIR', 'EPERM', 'EACCES'].includes((err as NodeJS.ErrnoException).code ?? '')) return;
    throw err;
  }
  try {
    fsyncSync(fd);
  } catch (err) {
    // Some file systems cannot sync a directory (EINVAL): nothing more can be done there.
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `content` to a new temporary file beside `path` (exclusive, random
 * name, mode 0600, fsynced) and returns its name; on failure nothing is left.
 */
function writeTemp(path: string, content: string | Buffer, sync = true): string {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number;
  try {
    fd = openSync(tmp, WRITE_NEW, 0o600);
  } catch (err) {
    // A file that cannot be created is its directory's problem (read-only, full, no permission): said of it, not of a temporary name.
    (err as NodeJS.ErrnoException).path = dirname(path);
    throw err;
  }
  try {
    fchmodSync(fd, 0o600); // the umask may have taken bits away; no other bits are given
    const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    if (sync) fsyncSync(fd);
    closeSync(fd);
  } catch (err) {
    ignore(() => closeSync(fd));
    ignore(() => unlinkSync(tmp));
    throw err;
  }
  return tmp;
}

/**
 * Replaces `path` with `content` atomically, mode 0600 (see the top of this
 * file). A link at `path` is replaced by the file, its target left alone.
 */
export function writeFileAtomic(path: string, content: string | Buffer): void {
  const tmp = writeTemp(path, content);
  try {
    renameSync(tmp, path);
  } catch (err) {
    ignore(() => unlinkSync(tmp));
    throw err;
  }
  syncDir(dirname(path));
}

/**
 * Creates `path` holding `content` (mode 0600, fsynced) unless it exists;
 * true when this call created it. The file appears whole or not at all.
 */
export function createFileExclusive(path: string, content: string | Buffer): boolean {
  const tmp = writeTemp(path, content);
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    ignore(() => unlinkSync(tmp));
  }
  syncDir(dirname(path));
  return true;
}

/** Why a path's owner or mode is unsafe, or undefined when it is fine: owned by this user (or root), not writable by group or others. */
function unsafeBecause(st: Stats, owner: 'self' | 'self-or-root'): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // Windows: no owners and modes to check
  if (st.uid !== uid && !(owner === 'self-or-root' && st.uid === 0))
    return `it is owned by ${userName(st.uid)}, not by ${userName(uid)} who runs agctl`;
  if (st.mode & 0o022)
    return `it is writable by ${st.mode & 0o020 ? (st.mode & 0o002 ? 'group and others' : 'its group') : 'others'} (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`;
  return undefined;
}

const fixFor = (path: string, isDir: boolean, why: string) =>
  why.startsWith('it is owned')
    ? `use a ${isDir ? 'directory' : 'file'} of your own, or have ${path} owned by you (chown)`
    : `chmod ${isDir ? '700' : '600'} ${path}`;

/**
 * Checks that a directory agctl keeps state in is owned by this user (or
 * root, where `owner` allows) and not writable by group or others, as
 * OpenSSH's StrictModes and git's safe.directory do: another user who can
 * write it could replace what agctl reads there. `what` names it in the message.
 */
export function checkPrivateDir(dir: string, what: string, owner: 'self' | 'self-or-root' = 'self-or-root'): void {
  const st = statSync(dir);
  if (!st.isDirectory()) return; // the caller's open or mkdir reports it in its words
  const why = unsafeBecause(st, owner);
  if (why) throw new UnsafePathError(dir, `${what} ${dir} is not safe to use: ${why}`, fixFor(dir, true, why));
}

/**
 * Reads a file of local state: undefined when there is none. It is opened
 * without following a link, and must be a regular file owned by this user
 * (or root) and not writable by group or others, in a directory that is
 * the same (`top`, and every directory between it and the file): otherwise
 * an UnsafePathError. File system errors are thrown as they are.
 */
export function readPrivateFile(file: string, topDir: string, what = 'the file'): string | undefined {
  const path = resolve(file);
  const top = resolve(topDir);
  let fd: number;
  try {
    fd = openSync(path, READ);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || (code === 'EMLINK' && lstatSync(path).isSymbolicLink())) {
      throw new UnsafePathError(
        path,
        `${what} ${path} is a symbolic link: agctl does not follow links inside its directory`,
        `remove ${path} (agctl writes a file of its own there)`,
      );
    }
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafePathError(path, `${what} ${path} is not a regular file`, `remove ${path}`);
    const why = unsafeBecause(st, 'self-or-root');
    if (why) throw new UnsafePathError(path, `${what} ${path} is not safe to read: ${why}`, fixFor(path, false, why));
    // Readable by others (a copy restored from a backup is often 0644): set back to 0600 where it can be.
    if (st.mode & 0o077 && st.uid === process.getuid?.()) ignore(() => fchmodSync(fd, 0o600));
    for (let d = dirname(path); d.length >= top.length; d = dirname(d)) {
      checkPrivateDir(d, 'the directory');
      if (d === top || d === dirname(d)) break;
    }
    return readAll(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes a directory for private files: created 0700 when missing (its
 * parent fsynced), set to 0700 when it is this user's. One owned by another
 * user (root aside: chmod then fails, "permission denied"), or writable by
 * group or others, is an UnsafePathError: another user may have put files there.
 */
export function ensurePrivateDir(dir: string): void {
  let st: Stats;
  try {
    st = statSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    syncDir(dirname(dir));
    st = statSync(dir);
  }
  if (!st.isDirectory()) {
    // mkdir says it in the words of the file system (EEXIST / ENOTDIR), as the callers expect
    mkdirSync(dir);
    return;
  }
  const why = unsafeBecause(st, 'self-or-root');
  if (why?.startsWith('it is owned'))
    throw new UnsafePathError(dir, `the directory ${dir} is not safe to use: ${why}`, fixFor(dir, true, why));
  if (why)
    throw new UnsafePathError(
      dir,
      `the directory ${dir} is not safe to use: ${why}: another user may have put files there`,
      `check its files, then chmod 700 ${dir}`,
    );
  if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

/** chmods a file, never through a link (an UnsafePathError). */
export function chmodNoFollow(path: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(path, READ);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new UnsafePathError(path, `${path} is a symbolic link: agctl does not follow links for its files`, `remove ${path}`);
    throw err;
  }
  try {
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

// ---------------------------------------------------------------------------
// The lock.
//
// A lock is a file holding its holder: PID, host, boot ID and the process's
// start time (Linux: /proc), and a random ID. It is written whole under a
// temporary name, then hard-linked into place (which fails while a lock
// exists), so nobody ever sees it incomplete. Its holder is gone when the PID
// no longer runs on this host, runs with another start time (a PID reused),
// the machine rebooted since (another boot ID), or the file names nobody
// (empty or damaged: agctl never shows an incomplete lock); a holder on
// another host, or where start times cannot be read, is gone once the lock is
// older than `staleMs`.
//
// Taking over a lock whose holder is gone replaces it in one step (a rename
// over it), never removes it: it is never absent, so no fresh locker slips in.
// The takers of one stale lock are serialized by a claim file named after
// that lock's identity (a hash of device, inode and content, which never
// recurs): only the process holding the claim, having read the lock again and
// found it unchanged, replaces it. Since only a claim holder replaces a lock,
// and a lock is never created while one exists, the lock it read stays as it
// was until it replaces it. A claim whose holder died is taken over the same
// way (a claim of the claim). A lock is released by its holder alone, and
// nothing is ever put back.
// ---------------------------------------------------------------------------

interface LockHolder {
  pid?: number;
  host?: string;
  boot?: string;
  start?: string;
  id?: string;
}

interface Seen {
  text: string;
  /** Device, inode and content: what the lock is, whatever the clock. */
  identity: string;
  ageMs: number;
  holder?: LockHolder;
}

let cachedBootId: string | null | undefined;
/** The boot ID of this machine (Linux), undefined elsewhere. */
function bootId(): string | undefined {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = fsReadText('/proc/sys/kernel/random/boot_id')?.trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId ?? undefined;
}

/** A process's start time in clock ticks since boot (Linux /proc), undefined when it cannot be read. */
export function processStartTime(pid: number): string | undefined {
  try {
    const text = fsReadText(`/proc/${pid}/stat`);
    if (!text) return undefined;
    // pid (comm) state ppid ...: the command may hold spaces and parentheses, so fields count from the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** The lock IDs this process holds: a lock with this PID and another ID was left by an earlier process with this PID. */
const held = new Set<string>();

function holderText(): { text: string; id: string } {
  const id = randomBytes(8).toString('hex');
  const start = processStartTime(process.pid);
  const boot = bootId();
  return {
    id,
    text: JSON.stringify({ pid: process.pid, host: hostname(), ...(boot ? { boot } : {}), ...(start ? { start } : {}), id }) + '\n',
  };
}

/** The lock at `path` as it is now, undefined when there is none. A link there is read as a damaged lock (replaced, never followed). */
function readLock(path: string): Seen | undefined {
  let text: string;
  let st: Stats;
  let fd: number;
  try {
    fd = openSync(path, READ);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code !== 'ELOOP' && code !== 'EMLINK') throw err;
    try {
      st = lstatSync(path);
      text = `link:${readlinkSync(path)}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    return { text, identity: `${st.dev}:${st.ino}:${text}`, ageMs: Date.now() - st.mtimeMs };
  }
  try {
    st = fstatSync(fd);
    text = readAll(fd);
  } finally {
    closeSync(fd);
  }
  let holder: LockHolder | undefined;
  // A serve.pid of an earlier agctl: the PID alone, of this host.
  if (/^[1-9]\d{0,9}\n?$/.test(text)) holder = { pid: Number(text.trim()), host: hostname() };
  else
    try {
      const v = JSON.parse(text) as Record<string, unknown>;
      if (Number.isSafeInteger(v.pid) && (v.pid as number) > 0) {
        holder = { pid: v.pid as number };
        for (const k of ['host', 'boot', 'start', 'id'] as const) if (typeof v[k] === 'string') holder[k] = v[k] as string;
      }
    } catch {
      // empty or damaged: names nobody
    }
  return { text, identity: `${st.dev}:${st.ino}:${text}`, ageMs: Date.now() - st.mtimeMs, holder };
}

/** Whether the holder of a lock is gone (see above). */
function isGone(seen: Seen, staleMs: number): boolean {
  const h = seen.holder;
  if (h?.pid === undefined) return true;
  if (h.host !== hostname()) return seen.ageMs > staleMs;
  const boot = bootId();
  if (h.boot && boot && h.boot !== boot) return true;
  if (h.pid === process.pid) return !(h.id && held.has(h.id));
  if (!isRunning(h.pid)) return true;
  const start = h.start ? processStartTime(h.pid) : undefined;
  if (start !== undefined) return start !== h.start;
  return seen.ageMs > staleMs;
}

/** Who holds a lock, in a message's words. */
function describeHolder(h: LockHolder | undefined): string {
  return h?.pid !== undefined ? `process ${h.pid}${h.host && h.host !== hostname() ? ` on ${h.host}` : ''}` : 'another process';
}

/** Links `tmp` at `path`: true when it was created, false when something is there. */
function tryLink(tmp: string, path: string): boolean {
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Replaces `path` with another name of `tmp` (tmp stays for the next use). */
function placeOver(tmp: string, path: string): void {
  const second = `${tmp}.${randomBytes(3).toString('hex')}`;
  linkSync(tmp, second);
  try {
    renameSync(second, path);
  } catch (err) {
    ignore(() => unlinkSync(second));
    throw err;
  }
}

const claimOf = (path: string, seen: Seen) => `${path}.${createHash('sha256').update(seen.identity).digest('hex').slice(0, 16)}.take`;

/** A hook for tests: called between the steps of a takeover. */
let takeoverHook: ((step: string) => void) | undefined;
export function setTakeoverHook(hook: typeof takeoverHook): void {
  takeoverHook = hook;
}

/**
 * Replaces `path`, seen as `seen` (its holder gone), with `tmp`'s content
 * when it is still `seen`, holding the claim of that lock; true when done.
 */
function takeOver(path: string, seen: Seen, tmp: string, me: string, staleMs: number, depth = 0): boolean {
  const claim = claimOf(path, seen);
  if (!tryLink(tmp, claim)) {
    const c = readLock(claim);
    // A claim whose holder died is itself taken over (a claim of the claim); a live one is let finish.
    if (!c || depth > 4 || !isGone(c, staleMs) || !takeOver(claim, c, tmp, me, staleMs, depth + 1)) return false;
  }
  takeoverHook?.('claimed');
  try {
    const now = readLock(path);
    if (!now || now.identity !== seen.identity) return false;
    placeOver(tmp, path);
    return true;
  } finally {
    // Ours to remove: only a holder judged gone loses a claim, and the lock it named is no more.
    if (readLock(claim)?.text === me) ignore(() => unlinkSync(claim));
  }
}

/** Removes the claims and temporary files left in `dir` by takers of `path` that died (run by the lock's holder, when no claim can matter). */
function sweep(path: string): void {
  const base = basename(path);
  let names: string[] = [];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const n of names) if (n.startsWith(`${base}.`) && n.endsWith('.take')) ignore(() => unlinkSync(join(dirname(path), n)));
}

interface LockOptions {
  /** How long to wait for a live holder before giving up (ms). */
  waitMs: number;
  /** A lock whose holder cannot be checked (another host, no start times) is gone after this long (ms); default 60 s. */
  staleMs?: number;
  /** How to wait between tries (an injected clock's). */
  sleep?: (ms: number) => Promise<void>;
  /** The clock the wait is measured with. */
  now?: () => number;
}

/** A lock still held by a live holder after the wait. */
export class LockBusyError extends Error {
  constructor(
    readonly path: string,
    readonly holder: string,
    readonly pid?: number,
  ) {
    super(`${path} is held by ${holder}`);
    this.name = 'LockBusyError';
  }
}

/** How many times a taker that lost a takeover to another one looks again (1 ms apart) before it reports the lock as held. */
const LOST_TAKEOVER_TRIES = 200;

/**
 * Takes the lock at `path` if it can now: the function that releases it, or
 * the holder of the lock (undefined: another process was taking it over).
 */
export function tryLock(path: string, staleMs = DEFAULT_STALE_MS): { release: () => void } | { holder: LockHolder | undefined } {
  const { text: me, id } = holderText();
  // While trying, this process's claims are live to its own other callers (held by a live taker).
  held.add(id);
  let result: { release: () => void } | { holder: LockHolder | undefined } | undefined;
  try {
    for (let lost = 0; !result; ) {
      // Not fsynced: after a power loss an empty lock names nobody, and is taken over.
      const tmp = writeTemp(path, me, false);
      try {
        if (tryLink(tmp, path)) result = { release: lockReleaser(path, me, id) };
        else {
          const seen = readLock(path);
          if (!seen) continue;
          if (!isGone(seen, staleMs)) result = { holder: seen.holder };
          else if (takeOver(path, seen, tmp, me, staleMs)) {
            sweep(path);
            result = { release: lockReleaser(path, me, id) };
          } else if (++lost >= LOST_TAKEOVER_TRIES) result = { holder: undefined };
          // Lost to another taker: what it placed is judged on the next turn.
          else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        }
      } finally {
        ignore(() => unlinkSync(tmp));
      }
    }
    return result;
  } finally {
    if (!('release' in (result ?? {}))) held.delete(id);
  }
}

function lockReleaser(path: string, me: string, id: string): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    held.delete(id);
    // Only while still ours: a holder judged gone (another host, too old) may have lost it.
    try {
      if (readLock(path)?.text === me) unlinkSync(path);
    } catch {
      // gone already
    }
  };
}

const DEFAULT_STALE_MS = 60_000;
const POLL_MS = [5, 25] as const;

/**
 * Takes the lock at `path`, waiting at most `waitMs` for a live holder;
 * returns the function that releases it. Throws LockBusyError after the
 * wait, and file system errors (a read-only directory, a full disk) as they
 * are, leaving nothing behind.
 */
export async function acquireLock(path: string, opts: LockOptions): Promise<() => void> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + opts.waitMs;
  for (;;) {
    const r = tryLock(path, opts.staleMs);
    if ('release' in r) return r.release;
    if (now() >= deadline) throw new LockBusyError(path, describeHolder(r.holder), r.holder?.pid);
    await sleep(POLL_MS[0] + Math.random() * (POLL_MS[1] - POLL_MS[0]));
  }
}

/**
 * acquireLock for a short synchronous read-modify-write (a best-effort file
 * of the CLI): the wait blocks the thread, so keep `waitMs` small.
 */
export function acquireLockSync(path: string, waitMs: number, staleMs?: number): () => void {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const r = tryLock(path, staleMs);
    if ('release' in r) return r.release;
    if (Date.now() >= deadline) throw new LockBusyError(path, describeHolder(r.holder), r.holder?.pid);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, POLL_MS[0] + Math.random() * (POLL_MS[1] - POLL_MS[0]));
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
