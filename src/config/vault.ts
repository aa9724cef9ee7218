// The CLI's sealed store for secrets at rest: stored client secrets
// (credentials/<profile>.json) and cached access tokens (tokens/<hash>.json).
// Values are sealed with AES-256-GCM. The key of a profile logged in where an
// OS keyring answers is kept in that keyring (one entry per profile and config
// directory), so a copied config directory opens nowhere; otherwise (no
// keyring, CI, --insecure-storage, AGCTL_CONFIG_KEY) the key is the one in
// its own 0600 file in the config directory (or AGCTL_CONFIG_KEY). A
// credential file says where its key is ("keptIn"); one without that mark
// (written by an older agctl) uses the key file.
//
// A stored credential belongs to one place: a profile, a base URL and a client
// ID. Its file is named after that place (credentials/<profile>+<hash>.json),
// names it in clear, and binds it in the sealed value's additional data, so an
// edited record does not open. A login writes the new credential beside the old
// one, then switches the profile (config.json, one atomic rename), then removes
// the old one: killed at any point, the profile in config.json names either the
// old place or the new one, and each has its complete credential. A credential
// file of an earlier agctl (credentials/<profile>.json) names no base URL: it is
// sent nowhere, and the profile needs a login again.
//
// A cached token is bound to the secret it was fetched with: its file carries a
// fingerprint of that secret (an HMAC under the key the token is sealed with,
// never the secret itself), also bound in the sealed value's additional data.
// A command with another secret (AGCTL_CLIENT_SECRET wrong or rotated) does not
// use it.
import { createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { KEYRING_SERVICE, secretStoreFor, type SecretStore } from './secret-store.js';
import { CliError, Exit, UsageError } from '../lib/exit.js';
import { isJsonObject } from '../lib/json.js';
import { describeFsCode, isFsError } from '../lib/fs-errors.js';
import { LockBusyError, acquireLock } from './lock.js';
import {
  SEAL_KEY_FORMAT,
  SealKeyError,
  SealOpenError,
  Sealer,
  keepPrivate,
  loadOrCreateKeyFile,
  parseKey,
  readKeyText,
} from '../lib/seal.js';
import { UnsafePathError } from '../lib/private-fs.js';
import { ensurePrivateDir, inConfigDir, readTextIfExists, writePrivateFile } from './secure-file.js';

/** Where a stored credential belongs: the profile, the base URL (an origin) and the client ID it was saved for. */
export interface CredentialPlace {
  profile: string;
  baseUrl: string;
  clientId: string;
}

/** What a profile's credential file says of itself, read without unsealing anything. */
interface StoredRecord {
  path: string;
  /** The base URL and client it belongs to; undefined in a file of an earlier agctl (which named no base URL) or a damaged one. */
  baseUrl?: string;
  clientId?: string;
  keptIn: KeptIn;
  /** Written by an earlier agctl: it names no base URL. */
  legacy: boolean;
  damaged: boolean;
}

/** Where the key sealing a profile's secrets is kept. */
export type KeptIn = 'keyring' | 'file';

export interface CachedToken {
  accessToken: string;
  /** Unix seconds. */
  expiresAt: number;
  /** Unix seconds; with expiresAt, the token's lifetime (undefined in a token cached by an earlier agctl). */
  issuedAt?: number;
}

/** The additional data binding a sealed value to its place: a copied or edited value opens nowhere else. */
const credentialAad = (p: CredentialPlace) => `credential\u0000v2\u0000${p.profile}\u0000${p.baseUrl}\u0000${p.clientId}`;
const tokenPlace = (profile: string, tokenUrl: string, clientId: string, fingerprint: string) =>
  `token\u0000${profile}\u0000${tokenUrl}\u0000${clientId}\u0000${fingerprint}`;

/** The HMAC keys of the sealers made here: a secret's fingerprint is keyed by the key its token is sealed with. */
const macKeys = new WeakMap<Sealer, Buffer>();

/** A sealer for `key`, whose fingerprints (`fingerprintUnder`) are keyed by a key derived from it (never the AES key itself). */
function sealerFor(key: Buffer): Sealer {
  const sealer = new Sealer(key);
  macKeys.set(sealer, Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'agctl secret fingerprint', 32)));
  return sealer;
}

/** The fingerprint of a secret under a sealer's key: an HMAC-SHA256, which tells nothing of the secret without the key. */
function fingerprintUnder(sealer: Sealer, secret: string): string {
  const key = macKeys.get(sealer);
  if (!key) throw new Error('a sealer without a fingerprint key');
  return createHmac('sha256', key).update(secret, 'utf8').digest('base64url');
}

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

/** A stored client secret that cannot be unsealed: exit 3, saying why and what to do. */
export function credentialProblem(profile: string, cause: string, hint = LOGIN_AGAIN): CliError {
  return new CliError(`the stored client secret of profile "${profile}" cannot be unsealed: ${cause}`, Exit.Unauthenticated, { hint });
}

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
  /** Profiles whose secret moved from a keyring key to the key file in this process: the keyring entry goes once the old credential does. */
  readonly #leftInKeyring = new Set<string>();

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
        this.#sealer = sealerFor(this.#env.AGCTL_CONFIG_KEY ? this.#envKey() : this.#inDir(() => loadOrCreateKeyFile(this.keyFile)));
      } catch (err) {
        if (err instanceof KeyProblem) throw new UsageError(err.message, err.hint);
        if (err instanceof SealKeyError) {
          throw new UsageError(
            `the key file ${this.keyFile} is damaged: it must hold ${SEAL_KEY_FORMAT}`,
            'restore it from a backup, or remove it to have a new key made (the secrets sealed with the old key are then lost: log in again)',
          );
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
        throw new KeyProblem(
          `AGCTL_CONFIG_KEY is not a valid key: it must be ${SEAL_KEY_FORMAT}`,
          `fix AGCTL_CONFIG_KEY, or unset it to use the key file ${this.keyFile}`,
        );
      }
      throw err;
    }
  }

  /** The sealer for reading: never creates a key (a missing key file is a problem to report, not to paper over). */
  #openingSealer(): Sealer {
    if (this.#sealer) return this.#sealer;
    if (this.#env.AGCTL_CONFIG_KEY) return (this.#sealer = sealerFor(this.#envKey()));
    let text: string;
    try {
      text = readKeyText(this.keyFile);
    } catch (err) {
      if (err instanceof UnsafePathError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT')
        throw new KeyProblem(
          `the key file ${this.keyFile} is missing`,
          `restore it from a backup, set AGCTL_CONFIG_KEY to the key, or ${LOGIN_AGAIN}`,
        );
      throw new KeyProblem(`cannot read the key file ${this.keyFile}: ${describeFsCode(code)}`, `check the file, or ${LOGIN_AGAIN}`);
    }
    try {
      const sealer = sealerFor(parseKey(text));
      keepPrivateIfWritable(this.keyFile);
      return (this.#sealer = sealer);
    } catch (err) {
      if (err instanceof SealKeyError) {
        throw new KeyProblem(
          `the key file ${this.keyFile} is damaged (it must hold ${SEAL_KEY_FORMAT})`,
          'restore it from a backup, or remove it and run `agctl login` again',
        );
      }
      throw err;
    }
  }

  /** Why a sealed credential does not open under the current key (or, its additional data binding it, its file was edited). */
  #wrongKeyOrEdited(): KeyProblem {
    if (this.#env.AGCTL_CONFIG_KEY) {
      return new KeyProblem(
        'it was sealed with another key than AGCTL_CONFIG_KEY, or its file was edited',
        `set AGCTL_CONFIG_KEY to the key used when it was stored (or unset it to use the key file ${this.keyFile}), or ${LOGIN_AGAIN}`,
      );
    }
    return new KeyProblem(
      `it was sealed with another key than the key file ${this.keyFile}, or its file was edited`,
      `restore the key file it was sealed with, set AGCTL_CONFIG_KEY to that key, or ${LOGIN_AGAIN}`,
    );
  }

  #inDir<T>(fn: () => T): T {
    return inConfigDir(this.dir, this.#env, fn);
  }

  /** The credential file of a place: named after the profile and a hash of the base URL and client ID. */
  credentialPath(place: CredentialPlace): string {
    const h = createHash('sha256').update(`${place.baseUrl}\n${place.clientId}`).digest('hex').slice(0, 16);
    return join(this.dir, 'credentials', `${encodeURIComponent(place.profile)}+${h}.json`);
  }

  /** The credential file an earlier agctl wrote for a profile (it names no base URL). */
  legacyCredentialPath(profile: string): string {
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
   * Stores the client secret of a place (a profile, base URL and client ID),
   * sealed with a key kept in the OS keyring (the profile's key there, else a
   * new one); where no keyring takes it (or with `insecureStorage`, or
   * AGCTL_CONFIG_KEY set), with the key file. The profile's other credentials
   * (an earlier login) are left as they are: `retireCredentials` removes them
   * once the profile names the new place. Says where the key went, and why not
   * in the keyring when one was tried and failed.
   */
  async saveCredential(
    place: CredentialPlace,
    clientSecret: string,
    opts: { insecureStorage?: boolean } = {},
  ): Promise<{ keptIn: KeptIn; noKeyring?: string }> {
    const { profile } = place;
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
        sealer = sealerFor(key);
      } catch (err) {
        noKeyring = err instanceof Error ? err.message : String(err);
      }
    }
    const keptIn: KeptIn = sealer ? 'keyring' : 'file';
    sealer ??= this.sealer;
    const sealed = sealer.seal(clientSecret, credentialAad(place));
    try {
      this.#inDir(() => {
        // The config dir holds the key file: it is kept 0700 like the directories of the sealed files.
        ensurePrivateDir(this.dir);
        writePrivateFile(
          this.credentialPath(place),
          JSON.stringify({ profile, baseUrl: place.baseUrl, clientId: place.clientId, keptIn, clientSecret: sealed }) + '\n',
        );
      });
    } catch (err) {
      // A key made for a secret that could not be stored is not left in the keyring.
      if (madeKey) await this.#forgetKey(profile).catch(() => undefined);
      throw err;
    }
    if (keptIn === 'keyring') this.#profileKeys.set(profile, sealer);
    else if (previous === 'keyring') this.#leftInKeyring.add(profile);
    return { keptIn, noKeyring };
  }

  /**
   * Removes a profile's credentials other than the one of `keep` (an earlier
   * login's, one of an earlier agctl): called, holding the config lock, once the profile names `keep`.
   * When the kept one's key is in the key file, the profile's keyring entry is
   * no longer needed and goes too; `keyringProblem` says why it could not, if
   * it could not.
   */
  async retireCredentials(keep: CredentialPlace): Promise<{ keyringProblem?: string }> {
    const keepPath = this.credentialPath(keep);
    const records = this.storedRecords(keep.profile);
    const others = records.filter((r) => r.path !== keepPath);
    for (const r of others) this.#inDir(() => rmSync(r.path, { force: true }));
    // What is left (the config lock is held) is the kept one: the profile is kept in the keyring when it says so.
    if (records.some((r) => r.path === keepPath && r.keptIn === 'keyring')) return {};
    if (this.#leftInKeyring.delete(keep.profile) || others.some((r) => r.keptIn === 'keyring' && !r.damaged)) {
      try {
        await this.#forgetKey(keep.profile);
      } catch (err) {
        return { keyringProblem: (err as Error).message };
      }
    } else if (others.some((r) => r.damaged)) {
      // Its key may be in the keyring: removed when it is, no word when no keyring answers.
      await this.#forgetKey(keep.profile).catch(() => undefined);
    }
    return {};
  }

  /** The credential files of a profile, as they describe themselves (nothing unsealed); file system problems are usage errors. */
  storedRecords(profile: string): StoredRecord[] {
    const dir = join(this.dir, 'credentials');
    const names = this.#inDir(() => {
      try {
        return readdirSync(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
        throw err;
      }
    });
    const stem = encodeURIComponent(profile);
    const records: StoredRecord[] = [];
    for (const name of names.sort()) {
      const legacy = name === `${stem}.json`;
      if (!legacy && !(name.startsWith(`${stem}+`) && name.endsWith('.json'))) continue;
      const path = join(dir, name);
      const text = this.#inDir(() => readTextIfExists(path));
      if (text === undefined) continue; // removed meanwhile
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        v = undefined;
      }
      const o = isJsonObject(v) ? v : {};
      const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
      const damaged =
        !isJsonObject(v) ||
        typeof o.clientSecret !== 'string' ||
        typeof o.clientId !== 'string' ||
        (!legacy && (typeof o.baseUrl !== 'string' || o.profile !== profile));
      records.push({
        path,
        baseUrl: legacy ? undefined : str(o.baseUrl),
        clientId: str(o.clientId),
        keptIn: o.keptIn === 'keyring' ? 'keyring' : 'file',
        legacy,
        damaged,
      });
    }
    return records;
  }

  /** The credential record of a place, if one is stored (nothing unsealed). */
  storedRecord(place: CredentialPlace): StoredRecord | undefined {
    const path = this.credentialPath(place);
    const r = this.storedRecords(place.profile).find((x) => x.path === path);
    return r && !r.damaged && r.baseUrl === place.baseUrl && r.clientId === place.clientId ? r : undefined;
  }

  /** Where the key of a profile's stored secret is kept, without reading it (undefined when no secret is stored): the keyring when any of its credentials says so. */
  keptIn(profile: string): KeptIn | undefined {
    const records = this.storedRecords(profile);
    if (!records.length) return undefined;
    return records.some((r) => r.keptIn === 'keyring') ? 'keyring' : 'file';
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
        ? sealerFor(parseKey(text))
        : new KeyProblem(
            `its key is not in the OS keyring (service "${KEYRING_SERVICE}", account "${account}"): the config directory was copied from another place, user or machine, the entry was removed, or no keyring answers here`,
            LOGIN_AGAIN,
          );
    } catch (err) {
      key =
        err instanceof SealKeyError
          ? new KeyProblem(`its key in the OS keyring (service "${KEYRING_SERVICE}", account "${account}") is damaged`, LOGIN_AGAIN)
          : new KeyProblem(
              `its key is kept in the OS keyring, which cannot be read here (${(err as Error).message})`,
              `run it where the keyring answers (unlocked, CI unset), or ${LOGIN_AGAIN}`,
            );
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
   * The stored client secret of a place, or undefined when none is stored for
   * it (the profile may have one for another base URL or client: the caller
   * says so). A credential that is stored but cannot be unsealed (another key,
   * a damaged or missing key file, a key missing from the keyring, an edited or
   * damaged file) is a CliError (exit 3) saying why and what to do. A profile
   * kept in the keyring is unlocked first.
   */
  loadCredential(place: CredentialPlace): string | undefined {
    const { profile } = place;
    const path = this.credentialPath(place);
    const text = this.#inDir(() => readTextIfExists(path));
    if (text === undefined) return undefined;
    const fail = (cause: string, hint: string) => credentialProblem(profile, cause, hint);
    let v: { profile?: unknown; baseUrl?: unknown; clientId?: unknown; clientSecret?: unknown; keptIn?: unknown };
    try {
      const parsed = JSON.parse(text) as unknown;
      if (!isJsonObject(parsed)) throw new Error('not an object');
      v = parsed;
    } catch {
      throw fail(`the file ${path} is damaged`, LOGIN_AGAIN);
    }
    if (typeof v.clientSecret !== 'string') throw fail(`the file ${path} is damaged`, LOGIN_AGAIN);
    // What the record names is what its sealed value is bound to: a record naming another place was moved or edited.
    if (v.profile !== profile || v.baseUrl !== place.baseUrl || v.clientId !== place.clientId) {
      throw fail(`the file ${path} does not name the base URL and client it is stored for (moved or edited)`, LOGIN_AGAIN);
    }
    const inKeyring = v.keptIn === 'keyring';
    try {
      const sealer = inKeyring ? this.#keyringSealer(profile) : this.#openingSealer();
      return sealer.open(v.clientSecret, credentialAad(place));
    } catch (err) {
      if (err instanceof KeyProblem) throw fail(err.message, err.hint);
      if (err instanceof SealOpenError) {
        const problem = !v.clientSecret.startsWith('v1.')
          ? new KeyProblem(`the file ${path} is damaged`, LOGIN_AGAIN)
          : inKeyring
            ? new KeyProblem(
                `it was sealed with another key than the one in the OS keyring (service "${KEYRING_SERVICE}", account "${this.keyringAccount(profile)}"), or its file was edited`,
                LOGIN_AGAIN,
              )
            : this.#wrongKeyOrEdited();
        throw fail(problem.message, problem.hint);
      }
      throw err;
    }
  }

  /**
   * Removes every stored secret of a profile (whatever base URL and client it
   * was for, and one of an earlier agctl) and, when its key is in the keyring,
   * that entry too. `removed`: whether a secret was stored; `keyringProblem`:
   * why the keyring entry could not be removed, if it could not.
   */
  async removeCredential(profile: string): Promise<{ removed: boolean; keyringProblem?: string }> {
    let keyringProblem: string | undefined;
    const records = this.storedRecords(profile);
    if (records.some((r) => r.keptIn === 'keyring' && !r.damaged)) {
      try {
        await this.#forgetKey(profile);
      } catch (err) {
        keyringProblem = (err as Error).message;
      }
    } else if (records.some((r) => r.damaged)) {
      // Its key may be in the keyring: removed when it is, no word when no keyring answers.
      await this.#forgetKey(profile).catch(() => undefined);
    }
    let removed = false;
    for (const r of records) removed = this.#inDir(() => removeFile(r.path)) || removed;
    return { removed, keyringProblem };
  }

  /** A cached token belongs to the profile that fetched it: logging out of one profile leaves the others' tokens. */
  tokenPath(profile: string, tokenUrl: string, clientId: string): string {
    const h = createHash('sha256').update(`${profile}\n${tokenUrl}\n${clientId}`).digest('hex').slice(0, 32);
    return join(this.dir, 'tokens', `${h}.json`);
  }

  /**
   * Caches a token of a profile, sealed with the profile's key: the keyring's
   * when its secret is kept there (the token is then not cached when that key
   * cannot be had), else the key file's. The token is bound to the secret it
   * was fetched with (`secret`), by its fingerprint under that key. The
   * directory is checked first: on a read-only one the ConfigDirError comes
   * before any key file is made.
   */
  saveToken(profile: string, tokenUrl: string, clientId: string, token: CachedToken, secret: string): void {
    this.#inDir(() => ensurePrivateDir(this.dir));
    const inKeyring = this.keptIn(profile) === 'keyring';
    let sealer: Sealer;
    if (inKeyring) {
      const key = this.#profileKeys.get(profile);
      if (!(key instanceof Sealer)) return;
      sealer = key;
    } else sealer = this.sealer;
    const fingerprint = fingerprintUnder(sealer, secret);
    const sealed = sealer.seal(token.accessToken, tokenPlace(profile, tokenUrl, clientId, fingerprint));
    const keptIn: KeptIn = inKeyring ? 'keyring' : 'file';
    const record = {
      profile,
      tokenUrl,
      clientId,
      secretFingerprint: fingerprint,
      expiresAt: token.expiresAt,
      ...(token.issuedAt === undefined ? {} : { issuedAt: token.issuedAt }),
      keptIn,
      accessToken: sealed,
    };
    this.#inDir(() => writePrivateFile(this.tokenPath(profile, tokenUrl, clientId), JSON.stringify(record) + '\n'));
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

  /**
   * A cached token. With `secret`, only one fetched with that secret (its
   * fingerprint under the key the token is sealed with is the one recorded);
   * without, whichever secret fetched it (for showing its expiry). Anything
   * that does not open (another key, a key not in the keyring, a damaged file,
   * one cached by an earlier agctl, which named no secret) is a cache miss: a
   * new token is fetched.
   */
  loadToken(profile: string, tokenUrl: string, clientId: string, secret?: string): CachedToken | undefined {
    const text = this.#inDir(() => readTextIfExists(this.tokenPath(profile, tokenUrl, clientId)));
    if (!text) return undefined;
    try {
      const v = JSON.parse(text) as {
        profile: string;
        tokenUrl: string;
        clientId: string;
        secretFingerprint?: unknown;
        expiresAt: number;
        issuedAt?: unknown;
        keptIn?: string;
        accessToken: string;
      };
      if (
        v.profile !== profile ||
        v.tokenUrl !== tokenUrl ||
        v.clientId !== clientId ||
        typeof v.expiresAt !== 'number' ||
        typeof v.secretFingerprint !== 'string'
      )
        return undefined;
      const sealer = v.keptIn === 'keyring' ? this.#keyringSealer(profile) : this.#openingSealer();
      if (secret !== undefined && fingerprintUnder(sealer, secret) !== v.secretFingerprint) return undefined;
      const accessToken = sealer.open(v.accessToken, tokenPlace(profile, tokenUrl, clientId, v.secretFingerprint));
      return { expiresAt: v.expiresAt, ...(typeof v.issuedAt === 'number' ? { issuedAt: v.issuedAt } : {}), accessToken };
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
