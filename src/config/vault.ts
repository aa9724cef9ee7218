// The CLI's sealed store for secrets at rest: stored client secrets
// (credentials/<profile>.json) and cached access tokens (tokens/<hash>.json).
// Values are sealed with AES-256-GCM. The key of a profile logged in where an
// OS keyring answers is kept in that keyring (one entry per profile and config
// directory), so a copied config directory opens nowhere; otherwise (no
// keyring, CI, --insecure-storage, AGCTL_CONFIG_KEY) the key is the one in
// its own 0600 file in the config directory (or AGCTL_CONFIG_KEY). A
// credential file says where its key is ("keptIn"); one without that mark
// (written by an older agctl) uses the key file.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { KEYRING_SERVICE, secretStoreFor, type SecretStore } from './secret-store.js';
import { CliError, Exit, UsageError } from '../lib/exit.js';
import { isJsonObject } from '../lib/json.js';
import { describeFsCode, isFsError } from '../lib/fs-errors.js';
import { LockBusyError, acquireLock } from './lock.js';
import { SEAL_KEY_FORMAT, SealKeyError, SealOpenError, Sealer, keepPrivate, loadOrCreateKeyFile, parseKey, readKeyText } from '../lib/seal.js';
import { UnsafePathError } from '../lib/private-fs.js';
import { ensurePrivateDir, inConfigDir, readTextIfExists, writePrivateFile } from './secure-file.js';

interface StoredCredential {
  clientId: string;
  clientSecret: string;
}

/** Where the key sealing a profile's secrets is kept. */
export type KeptIn = 'keyring' | 'file';

export interface CachedToken {
  accessToken: string;
  /** Unix seconds. */
  expiresAt: number;
}

/** The additional data binding a sealed value to its place: a copied value opens nowhere else. */
const credentialPlace = (profile: string, clientId: string) => `credential\u0000${profile}\u0000${clientId}`;
const tokenPlace = (profile: string, tokenUrl: string, clientId: string) => `token\u0000${profile}\u0000${tokenUrl}\u0000${clientId}`;

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
const TOKEN_LOCK_WAIT_MS = 10_000;

const LOGIN_AGAIN = 'run `agctl login` again to store it anew';

/** keepPrivate, but a key on a read-only file system (a mounted secret, a container's read-only layer) is read as it is. */
function keepPrivateIfWritable(path: string): void {
  try {
    keepPrivate(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EROFS') throw err;
  }
}

/** The key in a keyring entry's text; undefined when there is none, or the text is not a key. */
function keyFrom(text: string | undefined): Buffer | undefined {
  try {
    return text ? parseKey(text) : undefined;
  } catch (err) {
    if (err instanceof SealKeyError) return undefined;
    throw err;
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
  readonly #keyring: () => Promise<SecretStore>;
  /** The keys of profiles kept in the keyring, read by `unlock` (or why there is none). */
  readonly #profileKeys = new Map<string, Sealer | KeyProblem>();

  constructor(dir: string, env: NodeJS.ProcessEnv = process.env, keyring: () => Promise<SecretStore> = secretStoreFor(env)) {
    this.dir = dir;
    this.#env = env;
    this.#keyring = keyring;
  }

  get keyFile(): string {
    return join(this.dir, 'key');
  }

  /** The key secrets are sealed with when not in the keyring, in a message's words. */
  get fileKey(): string {
    return this.#env.AGCTL_CONFIG_KEY ? 'AGCTL_CONFIG_KEY' : `the key file ${this.keyFile}`;
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
      text = readKeyText(this.keyFile);
    } catch (err) {
      if (err instanceof UnsafePathError) throw err;
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

  /**
   * The keyring account of a profile's key: the config directory (hashed) and
   * the profile, so each directory has its own. The directory is the one it
   * is, whatever path (a symbolic link, a relative one) reaches it.
   */
  keyringAccount(profile: string): string {
    let dir = resolve(this.dir);
    try {
      dir = realpathSync(dir);
    } catch {
      // not there (yet): the path as given
    }
    return `${createHash('sha256').update(dir).digest('hex').slice(0, 16)}:${profile}`;
  }

  /**
   * Stores a profile's client secret, sealed with a key kept in the OS
   * keyring (the profile's key there, else a new one); where no keyring takes it (or with `insecureStorage`, or
   * AGCTL_CONFIG_KEY set), with the key file. Says where the key went, why
   * not in the keyring when one was tried and failed, and why the key of an
   * earlier keyring login could not be removed (`keyringProblem`), if it could not.
   */
  async saveCredential(profile: string, cred: StoredCredential, opts: { insecureStorage?: boolean } = {}): Promise<{ keptIn: KeptIn; noKeyring?: string; keyringProblem?: string }> {
    // The directory exists before its keyring account is named (the account follows its real path).
    this.#inDir(() => ensurePrivateDir(this.dir));
    const previous = this.keptIn(profile);
    let sealer: Sealer | undefined;
    let noKeyring: string | undefined;
    /** Whether the key was made (and put in the keyring) by this call. */
    let madeKey = false;
    if (!opts.insecureStorage && !this.#env.AGCTL_CONFIG_KEY) {
      try {
        const keyring = await this.#keyring();
        const account = this.keyringAccount(profile);
        // A profile kept in the keyring keeps its key: a command reading the profile meanwhile opens the
        // secret it finds, the old one or the new one, and a write that fails leaves the old one openable.
        let key = previous === 'keyring' ? keyFrom(await keyring.get(account)) : undefined;
        if (!key) {
          key = randomBytes(32);
          await keyring.set(account, key.toString('base64url'));
          madeKey = true;
        }
        sealer = new Sealer(key);
      } catch (err) {
        noKeyring = err instanceof Error ? err.message : String(err);
      }
    }
    const keptIn: KeptIn = sealer ? 'keyring' : 'file';
    sealer ??= this.sealer;
    const sealed = sealer.seal(cred.clientSecret, credentialPlace(profile, cred.clientId));
    try {
      this.#inDir(() => {
        // The config dir holds the key file: it is kept 0700 like the directories of the sealed files.
        ensurePrivateDir(this.dir);
        writePrivateFile(this.credentialPath(profile), JSON.stringify({ clientId: cred.clientId, keptIn, clientSecret: sealed }) + '\n');
      });
    } catch (err) {
      // A key made for a secret that could not be stored is not left in the keyring.
      if (madeKey) await this.#forgetKey(profile).catch(() => undefined);
      throw err;
    }
    let keyringProblem: string | undefined;
    if (keptIn === 'keyring') this.#profileKeys.set(profile, sealer);
    else {
      this.#profileKeys.delete(profile);
      // The key of an earlier keyring login is no longer needed: nothing is left behind (or the caller says what is).
      if (previous === 'keyring') {
        try {
          await this.#forgetKey(profile);
        } catch (err) {
          keyringProblem = (err as Error).message;
        }
      }
    }
    return { keptIn, noKeyring, ...(keyringProblem === undefined ? {} : { keyringProblem }) };
  }

  /** The parsed credential file of a profile (undefined when none); file system problems are usage errors, a damaged file is `damaged`. */
  #credentialFile(profile: string): { clientId?: unknown; clientSecret?: unknown; keptIn?: unknown } | 'damaged' | undefined {
    const text = this.#inDir(() => readTextIfExists(this.credentialPath(profile)));
    if (!text) return undefined;
    try {
      const v = JSON.parse(text) as unknown;
      return isJsonObject(v) ? v : 'damaged';
    } catch {
      return 'damaged';
    }
  }

  /** The client ID a profile's stored credential is for, without unsealing anything (undefined when none or unreadable). */
  storedClientId(profile: string): string | undefined {
    const v = this.#credentialFile(profile);
    return typeof v === 'object' && typeof v.clientId === 'string' ? v.clientId : undefined;
  }

  /** Where the key of a profile's stored secret is kept, without reading it (undefined when no secret is stored). */
  keptIn(profile: string): KeptIn | undefined {
    const v = this.#credentialFile(profile);
    if (v === undefined) return undefined;
    return typeof v === 'object' && v.keptIn === 'keyring' ? 'keyring' : 'file';
  }

  /**
   * Reads from the OS keyring the key of a profile kept there (once): needed
   * before its stored secret or cached tokens are read. A profile whose key is
   * in the key file needs nothing, and the keyring is then not touched.
   */
  async unlock(profile: string): Promise<void> {
    if (this.#profileKeys.has(profile) || this.keptIn(profile) !== 'keyring') return;
    const account = this.keyringAccount(profile);
    let key: Sealer | KeyProblem;
    try {
      const text = await (await this.#keyring()).get(account);
      key = text
        ? new Sealer(parseKey(text))
        : new KeyProblem(
            `its key is not in the OS keyring (service "${KEYRING_SERVICE}", account "${account}"): the config directory was copied from another place, user or machine, the entry was removed, or no keyring answers here`,
            LOGIN_AGAIN,
          );
    } catch (err) {
      key =
        err instanceof SealKeyError
          ? new KeyProblem(`its key in the OS keyring (service "${KEYRING_SERVICE}", account "${account}") is damaged`, LOGIN_AGAIN)
          : new KeyProblem(`its key is kept in the OS keyring, which cannot be read here (${(err as Error).message})`, `run it where the keyring answers (unlocked, CI unset), or ${LOGIN_AGAIN}`);
    }
    this.#profileKeys.set(profile, key);
  }

  /** The key a profile's secrets are sealed with in the keyring, as `unlock` found it. */
  #keyringSealer(profile: string): Sealer {
    const key = this.#profileKeys.get(profile);
    if (key instanceof Sealer) return key;
    if (key) throw key;
    // `unlock` found the key in the key file (or no secret): another agctl logged the profile in meanwhile.
    throw new KeyProblem('it was logged in again while this command ran (its key is now in the OS keyring)', 'run the command again');
  }

  /** Removes a profile's key from the keyring; true when there was one. */
  async #forgetKey(profile: string): Promise<boolean> {
    this.#profileKeys.delete(profile);
    return (await this.#keyring()).delete(this.keyringAccount(profile));
  }

  /**
   * The stored credential, or undefined when there is none (or, with
   * `clientId`, when it is for another client). A credential that is stored
   * but cannot be unsealed (another key, a damaged or missing key file, a key
   * missing from the keyring, a damaged file) is a CliError (exit 3) saying
   * why and what to do. A profile kept in the keyring is unlocked first.
   */
  loadCredential(profile: string, clientId?: string): StoredCredential | undefined {
    const path = this.credentialPath(profile);
    const v = this.#credentialFile(profile);
    if (v === undefined) return undefined;
    const fail = (cause: string, hint: string) =>
      new CliError(`the stored client secret of profile "${profile}" cannot be unsealed: ${cause}`, Exit.Unauthenticated, { hint });
    if (v === 'damaged' || typeof v.clientId !== 'string' || typeof v.clientSecret !== 'string') throw fail(`the file ${path} is damaged`, LOGIN_AGAIN);
    if (clientId !== undefined && v.clientId !== clientId) return undefined;
    const inKeyring = v.keptIn === 'keyring';
    try {
      const sealer = inKeyring ? this.#keyringSealer(profile) : this.#openingSealer();
      return { clientId: v.clientId, clientSecret: sealer.open(v.clientSecret, credentialPlace(profile, v.clientId)) };
    } catch (err) {
      if (err instanceof KeyProblem) throw fail(err.message, err.hint);
      if (err instanceof SealOpenError) {
        const problem = !v.clientSecret.startsWith('v1.')
          ? new KeyProblem(`the file ${path} is damaged`, LOGIN_AGAIN)
          : inKeyring
            ? new KeyProblem(`it was sealed with another key than the one in the OS keyring (service "${KEYRING_SERVICE}", account "${this.keyringAccount(profile)}")`, LOGIN_AGAIN)
            : this.#wrongKey();
        throw fail(problem.message, problem.hint);
      }
      throw err;
    }
  }

  /**
   * Removes a profile's stored secret and, when its key is in the keyring, that
   * entry too. `removed`: whether a secret was stored; `keyringProblem`: why
   * the keyring entry could not be removed, if it could not.
   */
  async removeCredential(profile: string): Promise<{ removed: boolean; keyringProblem?: string }> {
    let keyringProblem: string | undefined;
    const file = this.#credentialFile(profile);
    if (typeof file === 'object' && file.keptIn === 'keyring') {
      try {
        await this.#forgetKey(profile);
      } catch (err) {
        keyringProblem = (err as Error).message;
      }
    } else if (file === 'damaged') {
      // Its key may be in the keyring: removed when it is, no word when no keyring answers.
      await this.#forgetKey(profile).catch(() => undefined);
    }
    return { removed: this.#inDir(() => removeFile(this.credentialPath(profile))), keyringProblem };
  }

  /** A cached token belongs to the profile that fetched it: logging out of one profile leaves the others' tokens. */
  tokenPath(profile: string, tokenUrl: string, clientId: string): string {
    const h = createHash('sha256').update(`${profile}\n${tokenUrl}\n${clientId}`).digest('hex').slice(0, 32);
    return join(this.dir, 'tokens', `${h}.json`);
  }

  /**
   * Caches a token of a profile, sealed with the profile's key: the keyring's
   * when its secret is kept there (the token is then not cached when that key
   * cannot be had), else the key file's. The directory is checked first: on a
   * read-only one the ConfigDirError comes before any key file is made.
   */
  saveToken(profile: string, tokenUrl: string, clientId: string, token: CachedToken): void {
    this.#inDir(() => ensurePrivateDir(this.dir));
    const inKeyring = this.keptIn(profile) === 'keyring';
    let sealer: Sealer;
    if (inKeyring) {
      const key = this.#profileKeys.get(profile);
      if (!(key instanceof Sealer)) return;
      sealer = key;
    } else sealer = this.sealer;
    const sealed = sealer.seal(token.accessToken, tokenPlace(profile, tokenUrl, clientId));
    const keptIn: KeptIn = inKeyring ? 'keyring' : 'file';
    this.#inDir(() => writePrivateFile(this.tokenPath(profile, tokenUrl, clientId), JSON.stringify({ profile, tokenUrl, clientId, expiresAt: token.expiresAt, keptIn, accessToken: sealed }) + '\n'));
  }

  /**
   * Runs `fn` (check the cache, else fetch and cache a token) holding the lock
   * of this token's cache file, so that processes needing the same token at
   * once ask for it once: the others wait, then find it cached. Without the
   * lock (a read-only directory, another holder still busy after
   * TOKEN_LOCK_WAIT_MS) `fn` runs all the same: the worst is one more token request.
   */
  async withTokenLock<T>(profile: string, tokenUrl: string, clientId: string, fn: () => Promise<T>): Promise<T> {
    const path = this.tokenPath(profile, tokenUrl, clientId).replace(/\.json$/, '.lock');
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

  /** A cached token; anything that does not open (another key, a key not in the keyring, a damaged file) is a cache miss: a new token is fetched. */
  loadToken(profile: string, tokenUrl: string, clientId: string): CachedToken | undefined {
    const text = this.#inDir(() => readTextIfExists(this.tokenPath(profile, tokenUrl, clientId)));
    if (!text) return undefined;
    try {
      const v = JSON.parse(text) as { profile: string; tokenUrl: string; clientId: string; expiresAt: number; keptIn?: string; accessToken: string };
      if (v.profile !== profile || v.tokenUrl !== tokenUrl || v.clientId !== clientId || typeof v.expiresAt !== 'number') return undefined;
      const sealer = v.keptIn === 'keyring' ? this.#keyringSealer(profile) : this.#openingSealer();
      return { expiresAt: v.expiresAt, accessToken: sealer.open(v.accessToken, tokenPlace(profile, tokenUrl, clientId)) };
    } catch {
      return undefined;
    }
  }

  removeToken(profile: string, tokenUrl: string, clientId: string): boolean {
    return this.#inDir(() => removeFile(this.tokenPath(profile, tokenUrl, clientId)));
  }

  /**
   * Removes every cached token of a profile (whatever its token URL and
   * client); returns how many. Tokens cached by an older agctl (not per
   * profile, never read any more) of the given client IDs go too.
   */
  removeTokensOf(profile: string, legacyClientIds: Iterable<string> = []): number {
    const legacy = new Set(legacyClientIds);
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
        const v = JSON.parse(readTextIfExists(path) ?? '{}') as { profile?: string; clientId?: string };
        if (v.profile === undefined ? legacy.has(v.clientId ?? '') : v.profile === profile) {
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
