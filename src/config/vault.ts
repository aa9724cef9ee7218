// The CLI's sealed store for secrets at rest: stored client secrets
// (credentials/<profile>.json) and cached access tokens (tokens/<hash>.json).
// Values are sealed with AES-256-GCM under a key kept in its own 0600 file
// (or AGCTL_CONFIG_KEY), so a copied credentials or token file alone is useless.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliError, Exit, UsageError } from '../lib/exit.js';
import { describeFsCode, isFsError } from '../lib/fs-errors.js';
import { LockBusyError, acquireLock } from './lock.js';
import { SEAL_KEY_FORMAT, SealKeyError, SealOpenError, Sealer, keepPrivate, loadOrCreateKeyFile, parseKey } from '../lib/seal.js';
import { ensurePrivateDir, inConfigDir, readTextIfExists, writePrivateFile } from './secure-file.js';

interface StoredCredential {
  clientId: string;
  clientSecret: string;
}

export interface CachedToken {
  accessToken: string;
  /** Unix seconds. */
  expiresAt: number;
}

/** The additional data binding a sealed value to its place: a copied value opens nowhere else. */
const credentialPlace = (profile: string, clientId: string) => `credential\u0000${profile}\u0000${clientId}`;
const tokenPlace = (tokenUrl: string, clientId: string) => `token\u0000${tokenUrl}\u0000${clientId}`;

/** Why the sealing key cannot be had: a plain cause and what to do. */
class KeyProblem extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** How long a process needing a token waits for another one fetching the same token. */
export const TOKEN_LOCK_WAIT_MS = 10_000;

const LOGIN_AGAIN = 'run `agctl login` again to store it anew';

/** keepPrivate, but a key on a read-only file system (a mounted secret, a container's read-only layer) is read as it is. */
function keepPrivateIfWritable(path: string): void {
  try {
    keepPrivate(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EROFS') throw err;
  }
}

/** Removes a file; true when there was one. */
function removeFile(path: string): boolean {
  const had = existsSync(path);
  rmSync(path, { force: true });
  return had;
}

export class Vault {
  readonly dir: string;
  #sealer?: Sealer;
  readonly #env: NodeJS.ProcessEnv;

  constructor(dir: string, env: NodeJS.ProcessEnv = process.env) {
    this.dir = dir;
    this.#env = env;
  }

  get keyFile(): string {
    return join(this.dir, 'key');
  }

  /** The sealer for writing: AGCTL_CONFIG_KEY, else the key file (created when missing). Usage errors name what is wrong. */
  get sealer(): Sealer {
    if (!this.#sealer) {
      try {
        this.#sealer = new Sealer(this.#env.AGCTL_CONFIG_KEY ? this.#envKey() : this.#inDir(() => loadOrCreateKeyFile(this.keyFile)));
      } catch (err) {
        if (err instanceof KeyProblem) throw new UsageError(err.message, err.hint);
        if (err instanceof SealKeyError) {
          throw new UsageError(`the key file ${this.keyFile} is damaged: it must hold ${SEAL_KEY_FORMAT}`, 'restore it from a backup, or remove it to have a new key made (the secrets sealed with the old key are then lost: log in again)');
        }
        throw err;
      }
    }
    return this.#sealer;
  }

  #envKey(): Buffer {
    try {
      return parseKey(this.#env.AGCTL_CONFIG_KEY!);
    } catch (err) {
      if (err instanceof SealKeyError) {
        throw new KeyProblem(`AGCTL_CONFIG_KEY is not a valid key: it must be ${SEAL_KEY_FORMAT}`, `fix AGCTL_CONFIG_KEY, or unset it to use the key file ${this.keyFile}`);
      }
      throw err;
    }
  }

  /** The sealer for reading: never creates a key (a missing key file is a problem to report, not to paper over). */
  #openingSealer(): Sealer {
    if (this.#sealer) return this.#sealer;
    if (this.#env.AGCTL_CONFIG_KEY) return (this.#sealer = new Sealer(this.#envKey()));
    let text: string;
    try {
      text = readFileSync(this.keyFile, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new KeyProblem(`the key file ${this.keyFile} is missing`, `restore it from a backup, set AGCTL_CONFIG_KEY to the key, or ${LOGIN_AGAIN}`);
      throw new KeyProblem(`cannot read the key file ${this.keyFile}: ${describeFsCode(code)}`, `check the file, or ${LOGIN_AGAIN}`);
    }
    try {
      const sealer = new Sealer(parseKey(text));
      keepPrivateIfWritable(this.keyFile);
      return (this.#sealer = sealer);
    } catch (err) {
      if (err instanceof SealKeyError) {
        throw new KeyProblem(`the key file ${this.keyFile} is damaged (it must hold ${SEAL_KEY_FORMAT})`, 'restore it from a backup, or remove it and run `agctl login` again');
      }
      throw err;
    }
  }

  /** Why a sealed value does not open under the current key. */
  #wrongKey(): KeyProblem {
    if (this.#env.AGCTL_CONFIG_KEY) {
      return new KeyProblem('it was sealed with another key than AGCTL_CONFIG_KEY', `set AGCTL_CONFIG_KEY to the key used when it was stored (or unset it to use the key file ${this.keyFile}), or ${LOGIN_AGAIN}`);
    }
    return new KeyProblem(`it was sealed with another key than the key file ${this.keyFile}`, `restore the key file it was sealed with, set AGCTL_CONFIG_KEY to that key, or ${LOGIN_AGAIN}`);
  }

  #inDir<T>(fn: () => T): T {
    return inConfigDir(this.dir, this.#env, fn);
  }

  credentialPath(profile: string): string {
    return join(this.dir, 'credentials', `${encodeURIComponent(profile)}.json`);
  }

  saveCredential(profile: string, cred: StoredCredential): void {
    const sealed = this.sealer.seal(cred.clientSecret, credentialPlace(profile, cred.clientId));
    this.#inDir(() => {
      // The config dir holds the key file: it is kept 0700 like the directories of the sealed files.
      ensurePrivateDir(this.dir);
      writePrivateFile(this.credentialPath(profile), JSON.stringify({ clientId: cred.clientId, clientSecret: sealed }) + '\n');
    });
  }

  /** The client ID a profile's stored credential is for, without unsealing anything (undefined when none or unreadable). */
  storedClientId(profile: string): string | undefined {
    try {
      const v = JSON.parse(this.#inDir(() => readTextIfExists(this.credentialPath(profile))) ?? 'null') as { clientId?: unknown } | null;
      return typeof v?.clientId === 'string' ? v.clientId : undefined;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      return undefined;
    }
  }

  /**
   * The stored credential, or undefined when there is none (or, with
   * `clientId`, when it is for another client). A credential that is stored
   * but cannot be unsealed (another key, a damaged or missing key file, a
   * damaged file) is a CliError (exit 3) saying why and what to do.
   */
  loadCredential(profile: string, clientId?: string): StoredCredential | undefined {
    const path = this.credentialPath(profile);
    const text = this.#inDir(() => readTextIfExists(path));
    if (!text) return undefined;
    const fail = (cause: string, hint: string) =>
      new CliError(`the stored client secret of profile "${profile}" cannot be unsealed: ${cause}`, Exit.Unauthenticated, { hint });
    let v: { clientId?: unknown; clientSecret?: unknown };
    try {
      v = JSON.parse(text) as typeof v;
    } catch {
      throw fail(`the file ${path} is damaged`, LOGIN_AGAIN);
    }
    if (typeof v?.clientId !== 'string' || typeof v.clientSecret !== 'string') throw fail(`the file ${path} is damaged`, LOGIN_AGAIN);
    if (clientId !== undefined && v.clientId !== clientId) return undefined;
    try {
      return { clientId: v.clientId, clientSecret: this.#openingSealer().open(v.clientSecret, credentialPlace(profile, v.clientId)) };
    } catch (err) {
      if (err instanceof KeyProblem) throw fail(err.message, err.hint);
      if (err instanceof SealOpenError) {
        const problem = v.clientSecret.startsWith('v1.') ? this.#wrongKey() : new KeyProblem(`the file ${path} is damaged`, LOGIN_AGAIN);
        throw fail(problem.message, problem.hint);
      }
      throw err;
    }
  }

  removeCredential(profile: string): boolean {
    return this.#inDir(() => removeFile(this.credentialPath(profile)));
  }

  tokenPath(tokenUrl: string, clientId: string): string {
    const h = createHash('sha256').update(`${tokenUrl}\n${clientId}`).digest('hex').slice(0, 32);
    return join(this.dir, 'tokens', `${h}.json`);
  }

  /**
   * Caches a token. The directory is checked first: on a read-only one the
   * ConfigDirError comes before any key file is made.
   */
  saveToken(tokenUrl: string, clientId: string, token: CachedToken): void {
    this.#inDir(() => ensurePrivateDir(this.dir));
    const sealed = this.sealer.seal(token.accessToken, tokenPlace(tokenUrl, clientId));
    this.#inDir(() => writePrivateFile(this.tokenPath(tokenUrl, clientId), JSON.stringify({ tokenUrl, clientId, expiresAt: token.expiresAt, accessToken: sealed }) + '\n'));
  }

  /**
   * Runs `fn` (check the cache, else fetch and cache a token) holding the lock
   * of this token's cache file, so that processes needing the same token at
   * once ask for it once: the others wait, then find it cached. Without the
   * lock (a read-only directory, another holder still busy after
   * TOKEN_LOCK_WAIT_MS) `fn` runs all the same: the worst is one more token request.
   */
  async withTokenLock<T>(tokenUrl: string, clientId: string, fn: () => Promise<T>): Promise<T> {
    const path = this.tokenPath(tokenUrl, clientId).replace(/\.json$/, '.lock');
    let release: (() => void) | undefined;
    try {
      ensurePrivateDir(this.dir);
      ensurePrivateDir(dirname(path));
      release = await acquireLock(path, { waitMs: TOKEN_LOCK_WAIT_MS });
    } catch (err) {
      if (!(err instanceof LockBusyError) && !isFsError(err)) throw err;
    }
    try {
      return await fn();
    } finally {
      release?.();
    }
  }

  /** A cached token; anything that does not open (another key, a damaged file) is a cache miss: a new token is fetched. */
  loadToken(tokenUrl: string, clientId: string): CachedToken | undefined {
    const text = this.#inDir(() => readTextIfExists(this.tokenPath(tokenUrl, clientId)));
    if (!text) return undefined;
    try {
      const v = JSON.parse(text) as { tokenUrl: string; clientId: string; expiresAt: number; accessToken: string };
      if (v.tokenUrl !== tokenUrl || v.clientId !== clientId || typeof v.expiresAt !== 'number') return undefined;
      return { expiresAt: v.expiresAt, accessToken: this.#openingSealer().open(v.accessToken, tokenPlace(tokenUrl, clientId)) };
    } catch {
      return undefined;
    }
  }

  removeToken(tokenUrl: string, clientId: string): boolean {
    return this.#inDir(() => removeFile(this.tokenPath(tokenUrl, clientId)));
  }

  /** Removes every cached token of a client ID (whatever its token URL); returns how many. */
  removeTokensOf(clientId: string): number {
    let n = 0;
    let names: string[] = [];
    try {
      names = readdirSync(join(this.dir, 'tokens'));
    } catch {
      return 0;
    }
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const path = join(this.dir, 'tokens', name);
      try {
        const v = JSON.parse(readTextIfExists(path) ?? '{}') as { clientId?: string };
        if (v.clientId === clientId) {
          rmSync(path, { force: true });
          n++;
        }
      } catch {
        // not ours to judge; leave it
      }
    }
    return n;
  }
}
