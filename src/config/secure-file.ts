// Files in the config directory: mode 0600 inside a 0700 directory, written
// atomically (src/lib/private-fs.ts: a temporary file fsynced and renamed over
// the file, the directory fsynced), never through a link; read only when
// owned by this user and not writable by group or others.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../lib/exit.js';
import { isFsError, pathProblem } from '../lib/fs-errors.js';
import { UnsafePathError, ensurePrivateDir as ensurePrivate, readPrivateFile, writeFileAtomic } from '../lib/private-fs.js';

/**
 * A file system error in the config directory (a regular file where the
 * directory should be, no permission, a read-only disk), as a usage error
 * naming the directory (and AGCTL_CONFIG_DIR when that chose it). `code` is
 * the error's errno code: a cache write may go on without it.
 */
export class ConfigDirError extends UsageError {
  constructor(
    readonly dir: string,
    readonly code: string | undefined,
    message: string,
    hint: string,
  ) {
    super(message, hint);
    this.name = 'ConfigDirError';
  }
}

/** A file system error in the config directory as a ConfigDirError; other errors are returned as they are. */
function configDirError(dir: string, env: NodeJS.ProcessEnv, err: unknown): unknown {
  if (err instanceof UnsafePathError) return new ConfigDirError(dir, undefined, err.message, err.hint);
  if (!isFsError(err) || err instanceof UsageError) return err;
  const fromEnv = Boolean(env.AGCTL_CONFIG_DIR);
  const problem = pathProblem(dir, err, { isDir: true });
  const path = (err as NodeJS.ErrnoException).path;
  const where = path && path !== dir && !problem.includes(' is a file') ? ` (${path})` : '';
  return new ConfigDirError(
    dir,
    (err as NodeJS.ErrnoException).code,
    `${fromEnv ? 'AGCTL_CONFIG_DIR' : 'config directory'} ${dir}: ${problem}${where}`,
    fromEnv
      ? 'AGCTL_CONFIG_DIR must name a directory agctl can write (it is created when missing)'
      : 'fix it, or set AGCTL_CONFIG_DIR to another directory',
  );
}

/** Runs `fn`, turning file system errors in the config directory into usage errors (ConfigDirError). */
export function inConfigDir<T>(dir: string, env: NodeJS.ProcessEnv, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw configDirError(dir, env, err);
  }
}

/** inConfigDir for an asynchronous `fn`. */
export async function inConfigDirAsync<T>(dir: string, env: NodeJS.ProcessEnv, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw configDirError(dir, env, err);
  }
}

export { ensurePrivateDir } from '../lib/private-fs.js';

/**
 * Writes `content` to `path` atomically with mode 0600. The directory is made
 * (or tightened to) 0700 unless `privateDir` is false: a file the user placed
 * in a directory of their own (serve --ready-file) must not change that directory.
 */
export function writePrivateFile(path: string, content: string, opts: { privateDir?: boolean } = {}): void {
  const dir = dirname(path);
  if (opts.privateDir === false) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else ensurePrivate(dir);
  writeFileAtomic(path, content);
}

/**
 * Reads a file of the config directory, undefined when there is none: never
 * through a link, and only when it and its directory (and `top`, the config
 * directory, when given) are this user's and not writable by group or others
 * (else an UnsafePathError: another user could have written it).
 */
export function readTextIfExists(path: string, top = dirname(path)): string | undefined {
  return readPrivateFile(path, top);
}
