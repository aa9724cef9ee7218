// Profiles (non-secret settings) in <config dir>/config.json. A write reads
// the file afresh and replaces it atomically (writePrivateFile: mode 0600,
// fsynced, never through a link) holding the config directory's lock
// (config.lock), so that agctl processes writing at once lose no update and a
// reader never sees a torn file.
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { readTextIfExists, ensurePrivateDir, inConfigDir, inConfigDirAsync, writePrivateFile } from './secure-file.js';
import { LockBusyError, acquireLock } from './lock.js';
import { UsageError } from '../lib/exit.js';
import type { OutputFormat } from '../lib/output-format.js';

export interface Profile {
  baseUrl?: string;
  clientId?: string;
  output?: OutputFormat;
  /** Logged in with --insecure-http to a plain-http base URL on another machine: its plain secret may go there (with a warning each time). */
  insecureHttp?: boolean;
}

export interface ConfigFile {
  currentProfile?: string;
  profiles?: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';
const PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function isValidProfileName(name: string): boolean {
  return PROFILE_NAME_RE.test(name);
}

/** How long a write waits for another agctl holding the config directory's lock. */
const CONFIG_LOCK_WAIT_MS = 10_000;

export class ProfileStore {
  readonly dir: string;
  readonly #env: NodeJS.ProcessEnv;
  #cache?: ConfigFile;
  #holding = false;
  /** How long a write waits for another agctl holding the lock (ms). */
  lockWaitMs = CONFIG_LOCK_WAIT_MS;

  constructor(dir: string, env: NodeJS.ProcessEnv = {}) {
    this.dir = dir;
    this.#env = env;
  }

  get path(): string {
    return join(this.dir, 'config.json');
  }

  /** The lock file held while the config directory is written. */
  get lockPath(): string {
    return join(this.dir, 'config.lock');
  }

  read(): ConfigFile {
    if (this.#cache) return this.#cache;
    const text = inConfigDir(this.dir, this.#env, () => readTextIfExists(this.path, this.dir));
    let data: ConfigFile = {};
    if (text) {
      try {
        data = JSON.parse(text) as ConfigFile;
      } catch {
        // The user's file, not a bug: a usage error (exit 2), not an unexpected one.
        throw new UsageError(`the config file ${this.path} is not valid JSON`, 'fix it, or remove it and run `agctl login` again');
      }
    }
    this.#cache = data;
    return data;
  }

  get(name: string): Profile | undefined {
    return this.read().profiles?.[name];
  }

  currentName(): string | undefined {
    return this.read().currentProfile;
  }

  /** The names of the saved profiles, sorted. */
  names(): string[] {
    return Object.keys(this.read().profiles ?? {}).sort();
  }

  has(name: string): boolean {
    return Object.hasOwn(this.read().profiles ?? {}, name);
  }

  /**
   * Throws a usage error naming the config directory when agctl cannot write
   * there (a read-only mount, no permission): for commands that must write,
   * before they ask for anything.
   */
  requireWritable(): void {
    inConfigDir(this.dir, this.#env, () => {
      ensurePrivateDir(this.dir);
      accessSync(this.dir, constants.W_OK);
    });
  }

  /**
   * Runs `fn` holding the config directory's lock: what it reads of the
   * profiles is current, and no other agctl writes them (or the stored
   * credentials) meanwhile. `save` and `setCurrent` take it themselves; a
   * command writing a profile and its secret takes it around both. Waits up
   * to lockWaitMs for another holder; the lock of a process that died is taken over.
   */
  async locked<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.#holding) return fn();
    const release = await inConfigDirAsync(this.dir, this.#env, async () => {
      ensurePrivateDir(this.dir);
      try {
        return await acquireLock(this.lockPath, { waitMs: this.lockWaitMs });
      } catch (err) {
        if (!(err instanceof LockBusyError)) throw err;
        throw new UsageError(
          `the config directory ${this.dir} is busy: ${err.holder} still holds its lock after ${this.lockWaitMs / 1000} s`,
          `try again; if no agctl is running, remove ${this.lockPath}`,
        );
      }
    });
    this.#holding = true;
    this.#cache = undefined;
    try {
      return await fn();
    } finally {
      this.#holding = false;
      this.#cache = undefined;
      release();
    }
  }

  /** Changes config.json as it is on disk now (called holding the lock), and writes it back atomically. */
  async #update(change: (data: ConfigFile) => void): Promise<void> {
    this.#cache = undefined;
    const data = this.read(); // a damaged file is a usage error naming it
    change(data);
    inConfigDir(this.dir, this.#env, () => writePrivateFile(this.path, JSON.stringify(data, null, '\t') + '\n'));
    this.#cache = undefined;
  }

  /** Saves (merges) a profile and optionally makes it the current one. */
  async save(name: string, profile: Profile, makeCurrent = false): Promise<void> {
    await this.locked(() =>
      this.#update((data) => {
        data.profiles = { ...data.profiles, [name]: { ...data.profiles?.[name], ...profile } };
        if (makeCurrent || !data.currentProfile) data.currentProfile = name;
      }),
    );
  }

  /** Makes an existing profile the current one (the caller checks that it exists). */
  async setCurrent(name: string): Promise<void> {
    await this.locked(() =>
      this.#update((data) => {
        data.currentProfile = name;
      }),
    );
  }
}

/**
 * A profile named (by --profile, AGCTL_PROFILE or the config's current
 * profile) that does not exist: a usage error (exit 2) naming it and the
 * profiles that do exist.
 */
export class UnknownProfileError extends UsageError {
  constructor(
    readonly profile: string,
    from: string | undefined,
    readonly existing: string[],
  ) {
    super(
      `unknown profile "${profile}"${from ? ` (from ${from})` : ''}: ${existing.length ? `the profiles are ${existing.join(', ')}` : 'no profile is saved yet'}`,
      `run \`agctl login --profile ${profile}\` to create it${existing.length ? ', or `agctl auth list` to see the profiles' : ''}`,
    );
    this.name = 'UnknownProfileError';
  }
}
