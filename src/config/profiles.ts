// Profiles (non-secret settings) in <config dir>/config.json, managed by conf.
// Reads parse the file directly: loading conf pulls in a JSON-schema validator
// that costs more than the rest of a `rules list` start-up, and most commands
// only read. Writes go through conf (atomic write, file mode 0600).
import { join } from 'node:path';
import { readTextIfExists, ensurePrivateDir, inConfigDir } from './secure-file.js';
import { chmodSync } from 'node:fs';
import { UsageError } from '../lib/exit.js';

export interface Profile {
  baseUrl?: string;
  clientId?: string;
  output?: 'table' | 'json';
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

export class ProfileStore {
  readonly dir: string;
  readonly #env: NodeJS.ProcessEnv;
  #cache?: ConfigFile;

  constructor(dir: string, env: NodeJS.ProcessEnv = {}) {
    this.dir = dir;
    this.#env = env;
  }

  get path(): string {
    return join(this.dir, 'config.json');
  }

  read(): ConfigFile {
    if (this.#cache) return this.#cache;
    const text = inConfigDir(this.dir, this.#env, () => readTextIfExists(this.path));
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

  async #conf() {
    inConfigDir(this.dir, this.#env, () => ensurePrivateDir(this.dir));
    const { default: Conf } = await import('conf');
    return inConfigDir(this.dir, this.#env, () => new Conf<ConfigFile>({ cwd: this.dir, configName: 'config', projectName: 'agctl', configFileMode: 0o600 }));
  }

  /** Saves (merges) a profile and optionally makes it the current one. */
  async save(name: string, profile: Profile, makeCurrent = false): Promise<void> {
    const conf = await this.#conf();
    inConfigDir(this.dir, this.#env, () => {
      const profiles = { ...(conf.get('profiles') ?? {}) };
      profiles[name] = { ...profiles[name], ...profile };
      conf.set('profiles', profiles);
      if (makeCurrent || !conf.get('currentProfile')) conf.set('currentProfile', name);
      chmodSync(this.path, 0o600);
    });
    this.#cache = undefined;
  }

  /** Makes an existing profile the current one (the caller checks that it exists). */
  async setCurrent(name: string): Promise<void> {
    const conf = await this.#conf();
    inConfigDir(this.dir, this.#env, () => {
      conf.set('currentProfile', name);
      chmodSync(this.path, 0o600);
    });
    this.#cache = undefined;
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
