// Where the key sealing a profile's secrets is kept: the operating system's
// keyring (macOS Keychain, Windows Credential Manager, the Secret Service on
// Linux) through @napi-rs/keyring, or no keyring at all. One small interface,
// so the vault does not know which one it has.
//
// The binding is a native module: it is imported only when a command needs a
// secret of a profile kept in the keyring (or logs in), never for --help,
// --version or a start-up.

import { ciSet } from '../lib/ci.js';

export interface SecretStore {
  /** The secret kept under `account`, or undefined when there is none. */
  get(account: string): Promise<string | undefined>;
  /** Keeps `secret` under `account` (replacing any); throws when no keyring takes it. */
  set(account: string, secret: string): Promise<void>;
  /** Removes the secret kept under `account`; true when there was one. */
  delete(account: string): Promise<boolean>;
}

/** The keyring service name agctl's entries are kept under. */
export const KEYRING_SERVICE = 'agctl';

/** No keyring answers (or none may be used): every call fails, saying why. */
export class NoKeyring implements SecretStore {
  constructor(readonly reason: string) {}
  async get(): Promise<string | undefined> {
    throw new Error(this.reason);
  }
  async set(): Promise<void> {
    throw new Error(this.reason);
  }
  async delete(): Promise<boolean> {
    throw new Error(this.reason);
  }
}

/** The OS keyring, through @napi-rs/keyring (loaded on the first call). */
async function osKeyring(): Promise<SecretStore> {
  let mod: typeof import('@napi-rs/keyring');
  try {
    mod = await import('@napi-rs/keyring');
  } catch (err) {
    return new NoKeyring(`the keyring module cannot be loaded: ${(err as Error).message}`);
  }
  // On Linux, the Secret Service only: the binding would otherwise fall back to the kernel's keyutils
  // keyring, which lives in memory only (gone at reboot, or with the login session) and so is no place
  // for a key that must open the sealed files later. Where no Secret Service answers, the constructor
  // throws, and the vault falls back to the key file, saying so.
  const entry = (account: string) => new mod.AsyncEntry(KEYRING_SERVICE, account, { linux: { store: 'secret-service' } });
  return {
    get: async (account) => (await entry(account).getPassword()) ?? undefined,
    set: async (account, secret) => entry(account).setPassword(secret),
    delete: async (account) => entry(account).deletePassword(),
  };
}

/** The secret store for an environment: with CI set, a keyring is never touched. */
export function secretStoreFor(env: NodeJS.ProcessEnv): () => Promise<SecretStore> {
  if (ciSet(env)) return async () => new NoKeyring(`the CI variable is set (CI=${env.CI})`);
  let store: Promise<SecretStore> | undefined;
  return () => (store ??= osKeyring());
}
