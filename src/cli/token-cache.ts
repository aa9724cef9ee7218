// The token cache of a command: the vault's sealed files, shared with other
// agctl processes (a lock per token, so that processes needing the same
// token at once ask for it once). When the config directory cannot be
// written (a read-only mount, no permission), a new token is kept in memory
// for this run only, with one note.
import { MemoryTokenCache, type TokenCache } from '../client/auth.js';
import type { CachedToken, Vault } from '../config/vault.js';
import { ConfigDirError } from '../config/secure-file.js';

export class VaultTokenCache implements TokenCache {
  readonly #memory = new MemoryTokenCache();
  readonly #vault: Vault;
  /** The profile whose tokens these are (sealed with its key). */
  readonly #profile: string;
  /** Called once, with the reason, when a token could not be cached. */
  readonly #notCached: (err: ConfigDirError) => void;
  /** The tokens come from the profile's stored secret: none is left cached once that secret is gone (a logout). */
  readonly #storedSecret: boolean;
  #noted = false;

  constructor(vault: Vault, profile: string, notCached: (err: ConfigDirError) => void, opts: { storedSecret?: boolean } = {}) {
    this.#vault = vault;
    this.#profile = profile;
    this.#notCached = notCached;
    this.#storedSecret = opts.storedSecret ?? false;
  }

  load(tokenUrl: string, clientId: string): CachedToken | undefined {
    return this.#memory.load(tokenUrl, clientId) ?? this.#vault.loadToken(this.#profile, tokenUrl, clientId);
  }

  save(tokenUrl: string, clientId: string, token: CachedToken): void {
    try {
      this.#vault.saveToken(this.#profile, tokenUrl, clientId, token);
      // A logout of the profile while the token was fetched removed its secret: the token goes too (checked
      // after the write, so that a logout coming later finds the file to remove). This run still uses it.
      if (this.#storedSecret && this.#vault.storedClientId(this.#profile) !== clientId) {
        this.#vault.removeToken(this.#profile, tokenUrl, clientId);
        this.#memory.save(tokenUrl, clientId, token);
      }
    } catch (err) {
      if (!(err instanceof ConfigDirError)) throw err;
      this.#memory.save(tokenUrl, clientId, token);
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
      // A refused token whose file cannot go: an expired entry in memory hides it for the rest of the run.
      this.#memory.save(tokenUrl, clientId, { accessToken: '', expiresAt: 0 });
    }
  }

  exclusive<T>(tokenUrl: string, clientId: string, fn: () => Promise<T>): Promise<T> {
    return this.#vault.withTokenLock(this.#profile, tokenUrl, clientId, fn);
  }
}
