// The CLI's sealed store for secrets at rest: stored client secrets
// (credentials/<profile>.json) and cached access tokens (tokens/<hash>.json).
// Values are sealed with AES-256-GCM under a key kept in its own 0600 file
// (or AGCTL_CONFIG_KEY), so a copied credentials or token file alone is useless.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Sealer, loadOrCreateKeyFile, parseKey } from '../lib/seal.js';
import { ensurePrivateDir, readTextIfExists, writePrivateFile } from './secure-file.js';

export interface StoredCredential {
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

  get sealer(): Sealer {
    if (!this.#sealer) {
      const key = this.#env.AGCTL_CONFIG_KEY ? parseKey(this.#env.AGCTL_CONFIG_KEY) : loadOrCreateKeyFile(join(this.dir, 'key'));
      this.#sealer = new Sealer(key);
    }
    return this.#sealer;
  }

  credentialPath(profile: string): string {
    return join(this.dir, 'credentials', `${encodeURIComponent(profile)}.json`);
  }

  saveCredential(profile: string, cred: StoredCredential): void {
    // The config dir holds the key file: it is kept 0700 like the directories of the sealed files.
    ensurePrivateDir(this.dir);
    const sealed = this.sealer.seal(cred.clientSecret, credentialPlace(profile, cred.clientId));
    writePrivateFile(this.credentialPath(profile), JSON.stringify({ clientId: cred.clientId, clientSecret: sealed }) + '\n');
  }

  /** The stored credential, or undefined when there is none or it cannot be opened. */
  loadCredential(profile: string): StoredCredential | undefined {
    const text = readTextIfExists(this.credentialPath(profile));
    if (!text) return undefined;
    try {
      const v = JSON.parse(text) as { clientId: string; clientSecret: string };
      return { clientId: v.clientId, clientSecret: this.sealer.open(v.clientSecret, credentialPlace(profile, v.clientId)) };
    } catch {
      return undefined;
    }
  }

  removeCredential(profile: string): boolean {
    return removeFile(this.credentialPath(profile));
  }

  tokenPath(tokenUrl: string, clientId: string): string {
    const h = createHash('sha256').update(`${tokenUrl}\n${clientId}`).digest('hex').slice(0, 32);
    return join(this.dir, 'tokens', `${h}.json`);
  }

  saveToken(tokenUrl: string, clientId: string, token: CachedToken): void {
    ensurePrivateDir(this.dir);
    const sealed = this.sealer.seal(token.accessToken, tokenPlace(tokenUrl, clientId));
    writePrivateFile(this.tokenPath(tokenUrl, clientId), JSON.stringify({ tokenUrl, clientId, expiresAt: token.expiresAt, accessToken: sealed }) + '\n');
  }

  loadToken(tokenUrl: string, clientId: string): CachedToken | undefined {
    const text = readTextIfExists(this.tokenPath(tokenUrl, clientId));
    if (!text) return undefined;
    try {
      const v = JSON.parse(text) as { tokenUrl: string; clientId: string; expiresAt: number; accessToken: string };
      if (v.tokenUrl !== tokenUrl || v.clientId !== clientId || typeof v.expiresAt !== 'number') return undefined;
      return { expiresAt: v.expiresAt, accessToken: this.sealer.open(v.accessToken, tokenPlace(tokenUrl, clientId)) };
    } catch {
      return undefined;
    }
  }

  removeToken(tokenUrl: string, clientId: string): boolean {
    return removeFile(this.tokenPath(tokenUrl, clientId));
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
