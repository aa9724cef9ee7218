// The token cache of a command: the vault's sealed files, shared with other
// agctl processes (a lock per token, so that processes needing the same
// token at once ask for it once). When the config directory cannot be
// written (a read-only mount, no permission), a new token is kept in memory
// for this run only, with one note. A token is bound to the secret that
// fetched it (its fingerprint, see vault.ts): a command given another secret
// (AGCTL_CLIENT_SECRET wrong or rotated) fetches its own.
import { tokenUrlFor } from '../client/auth.js';
import { MemoryTokenCache, type TokenCache } from '../client/auth.js';
import type { CachedToken, CredentialPlace, Vault } from '../config/vault.js';
import { ConfigDirError } from '../config/secure-file.js';

export class VaultTokenCache implements TokenCache {
  readonly #memory = new MemoryTokenCache();
  readonly #vault: Vault;
  /** The profile whose tokens these are (sealed with its key). */
  readonly #profile: string;
  /** Called once, with the reason, when a token could not be cached. */
  readonly #notCached: (err: ConfigDirError) => void;
  /** The tokens come from the profile's stored secret of this place: none is left cached once that secret is gone (a logout, a login elsewhere). */
  readonly #storedSecret?: CredentialPlace;
  #noted = false;
  /** Tokens refused whose files could not be removed (token URL and client ID): not read from the files again. */
  readonly #dropped = new Set<string>();

  constructor(vault: Vault, profile: string, notCached: (err: ConfigDirError) => void, opts: { storedSecret?: CredentialPlace } = {}) {
    this.#vault = vault;
    this.#profile = profile;
    this.#notCached = notCached;
    this.#storedSecret = opts.storedSecret;
  }

  load(tokenUrl: string, clientId: string, secret: string): CachedToken | undefined {
    const inMemory = this.#memory.load(tokenUrl, clientId, secret);
    if (inMemory || this.#dropped.has(`${tokenUrl}\n${clientId}`)) return inMemory;
    return this.#vault.loadToken(this.#profile, tokenUrl, clientId, secret);
  }

  save(tokenUrl: string, clientId: string, token: CachedToken, secret: string): void {
    try {
      this.#vault.saveToken(this.#profile, tokenUrl, clientId, token, secret);
      // A logout of the profile while the token was fetched removed its secret: the token goes too (checked
      // after the write, so that a logout coming later finds the file to remove). This run still uses it.
      const place = this.#storedSecret;
      if (place && (tokenUrlFor(place.baseUrl) !== tokenUrl || !this.#vault.storedRecord(place))) {
        this.#vault.removeToken(this.#profile, tokenUrl, clientId);
        this.#memory.save(tokenUrl, clientId, token, secret);
      }
    } catch (err) {
      if (!(err instanceof ConfigDirError)) throw err;
      this.#memory.save(tokenUrl, clientId, token, secret);
      if (!this.#noted) this.#notCached(err);
      this.#noted = true;
    }
  }

  remove(tokenUrl: string, clientId: string): void {
    try {
      this.#vault.removeToken(this.#profile, tokenUrl, clientId);
      this.#memory.remove(tokenUrl, clientId);
    } catch (err) {
      if (!(err instanceof ConfigDirError)) throw err;
      // A refused token whose file cannot go: it is not read again in this run.
      this.#memory.remove(tokenUrl, clientId);
      this.#dropped.add(`${tokenUrl}\n${clientId}`);
    }
  }

  exclusive<T>(tokenUrl: string, clientId: string, fn: () => Promise<T>): Promise<T> {
    return this.#vault.withTokenLock(this.#profile, tokenUrl, clientId, fn);
  }
}
