import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/profiles.js';
import { ensurePrivateDir, writePrivateFile } from '../../../src/config/secure-file.js';
import { Vault } from '../../../src/config/vault.js';
import { NoKeyring, type SecretStore } from '../../../src/config/secret-store.js';
import { createKeyFile, loadOrCreateKeyFile } from '../../../src/lib/seal.js';
import { CliError, Exit, UsageError } from '../../../src/lib/exit.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-vault-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `d${n++}`);
const mode = (p: string) => statSync(p).mode & 0o777;
const TOKEN_URL = 'https://acme.example.com/auth/v1/token';
const TOKEN = 'agt_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ';
const SECRET = 'plain-client-secret-value-that-must-stay-sealed';
/** No keyring is touched (CI set): the key file, as before keyrings. */
const FILE_ONLY = { CI: '1' };
const BASE_URL = 'https://acme.example.com';
/** The place of a stored credential: a profile, logged in to BASE_URL as `clientId`. */
const at = (profile: string, clientId = 'bot') => ({ profile, baseUrl: BASE_URL, clientId });

describe('file modes', () => {
  it('writes secret files 0600 inside 0700 directories', async () => {
    const dir = fresh();
    const vault = new Vault(dir, FILE_ONLY);
    vault.saveToken('default', TOKEN_URL, 'bot', { accessToken: TOKEN, expiresAt: 2_000_000_000 }, SECRET);
    await vault.saveCredential(at('default', 'bot'), SECRET);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'tokens'))).toBe(0o700);
    expect(mode(join(dir, 'credentials'))).toBe(0o700);
    expect(mode(vault.tokenPath('default', TOKEN_URL, 'bot'))).toBe(0o600);
    expect(mode(vault.credentialPath(at('default')))).toBe(0o600);
    expect(mode(join(dir, 'key'))).toBe(0o600);
  });

  it('tightens directories and files that were created with looser modes, on every save', async () => {
    const dir = fresh();
    mkdirSync(join(dir, 'tokens'), { recursive: true });
    mkdirSync(join(dir, 'credentials'), { recursive: true });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'tokens'), 0o711);
    chmodSync(join(dir, 'credentials'), 0o755);
    const vault = new Vault(dir, FILE_ONLY);
    const tokenFile = vault.tokenPath('default', TOKEN_URL, 'bot');
    writeFileSync(tokenFile, '{}', { mode: 0o644 });
    chmodSync(tokenFile, 0o644);

    vault.saveToken('default', TOKEN_URL, 'bot', { accessToken: TOKEN, expiresAt: 2_000_000_000 }, SECRET);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'tokens'))).toBe(0o700);
    expect(mode(tokenFile)).toBe(0o600);

    // Someone loosens them again: the next save tightens them again.
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'tokens'), 0o755);
    chmodSync(tokenFile, 0o644);
    vault.saveToken('default', TOKEN_URL, 'bot', { accessToken: TOKEN, expiresAt: 2_000_000_001 }, SECRET);
    expect([mode(dir), mode(join(dir, 'tokens')), mode(tokenFile)]).toEqual([0o700, 0o700, 0o600]);

    await vault.saveCredential(at('ci', 'bot'), SECRET);
    expect(mode(join(dir, 'credentials'))).toBe(0o700);
    expect(mode(vault.credentialPath(at('ci')))).toBe(0o600);
  });

  it('sets a loosened key file back to 0600 when it is used, for writing or reading', async () => {
    const dir = fresh();
    const vault = new Vault(dir, FILE_ONLY);
    await vault.saveCredential(at('ci', 'bot'), SECRET);
    chmodSync(vault.keyFile, 0o644);
    await new Vault(dir, FILE_ONLY).saveCredential(at('ci', 'bot'), SECRET);
    expect(mode(vault.keyFile)).toBe(0o600);
    chmodSync(vault.keyFile, 0o640);
    expect(new Vault(dir, FILE_ONLY).loadCredential(at('ci'))).toBe(SECRET);
    expect(mode(vault.keyFile)).toBe(0o600);
    // One that others could write is refused, for reading and writing alike, and left as it is.
    chmodSync(vault.keyFile, 0o666);
    expect(() => new Vault(dir, FILE_ONLY).loadCredential(at('ci'))).toThrow(
      `the key file ${vault.keyFile} is not safe to read: it is writable by group and others (mode 0666)`,
    );
    await expect(new Vault(dir, FILE_ONLY).saveCredential(at('ci', 'bot'), SECRET)).rejects.toThrow('is not safe to read');
    expect(mode(vault.keyFile)).toBe(0o666);
  });

  it('saves profiles 0600 in a 0700 directory, re-chmodded on every save', async () => {
    const dir = fresh();
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    const store = new ProfileStore(dir);
    await store.save('default', { baseUrl: 'https://a.example.com', clientId: 'a' });
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
    chmodSync(store.path, 0o644);
    chmodSync(dir, 0o755);
    await store.save('ci', { clientId: 'b' }, true);
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
    // merged, and the current profile moved only when asked
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      profiles: { default: { baseUrl: 'https://a.example.com', clientId: 'a' }, ci: { clientId: 'b' } },
      currentProfile: 'ci',
    });
    await store.save('default', { clientId: 'a2' });
    const again = new ProfileStore(dir);
    expect(again.currentName()).toBe('ci');
    expect(again.get('default')).toEqual({ baseUrl: 'https://a.example.com', clientId: 'a2' });
  });

  it('creates the key file 0600 and keeps one key for racing creators', () => {
    const dir = fresh();
    const a = loadOrCreateKeyFile(join(dir, 'key'));
    const b = loadOrCreateKeyFile(join(dir, 'key'));
    expect(a.equals(b)).toBe(true);
    expect(a).toHaveLength(32);
    expect(mode(join(dir, 'key'))).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['key']);
  });

  it('keeps a key file another process created after this one found none', () => {
    const dir = fresh();
    const theirs = randomBytes(32);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'key'), theirs.toString('hex') + '\n', { mode: 0o600 });
    expect(createKeyFile(join(dir, 'key')).equals(theirs)).toBe(true);
    expect(readFileSync(join(dir, 'key'), 'utf8')).toBe(theirs.toString('hex') + '\n');
    expect(readdirSync(dir)).toEqual(['key']);
  });
});

describe('atomic writes', () => {
  it('replaces the file by rename, leaving valid JSON and no temporary files', () => {
    const dir = fresh();
    const path = join(dir, 'f.json');
    writePrivateFile(path, JSON.stringify({ v: 1 }));
    const ino = statSync(path).ino;
    writePrivateFile(path, JSON.stringify({ v: 2, pad: 'x'.repeat(100_000) }));
    expect(statSync(path).ino).not.toBe(ino); // a new file took the name: readers never see a half-written one
    expect(JSON.parse(readFileSync(path, 'utf8')).v).toBe(2);
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('leaves the old file intact and no temporary file when the write fails', () => {
    const dir = fresh();
    const path = join(dir, 'sub');
    mkdirSync(path, { recursive: true }); // renaming a file over a directory fails
    expect(() => writePrivateFile(path, '{"v":3}')).toThrow();
    expect(readdirSync(dir)).toEqual(['sub']);
    expect(statSync(path).isDirectory()).toBe(true);
  });

  it("can leave the mode of a directory that is not its own alone (a ready file in the user's directory)", () => {
    const dir = fresh();
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    writePrivateFile(join(dir, 'ready.json'), '{}', { privateDir: false });
    expect(mode(dir)).toBe(0o755);
    expect(mode(join(dir, 'ready.json'))).toBe(0o600);
    writePrivateFile(join(dir, 'new', 'ready.json'), '{}', { privateDir: false });
    expect(mode(join(dir, 'new'))).toBe(0o700);
    writePrivateFile(join(dir, 'ready.json'), '{}');
    expect(mode(dir)).toBe(0o700);
  });

  it('ensurePrivateDir creates nested directories 0700', () => {
    const dir = join(fresh(), 'a', 'b');
    ensurePrivateDir(dir);
    expect(mode(dir)).toBe(0o700);
  });
});

describe('sealed token cache', () => {
  it('round-trips a token per (token URL, client ID) without the token in the file bytes', () => {
    const dir = fresh();
    const vault = new Vault(dir, FILE_ONLY);
    vault.saveToken('default', TOKEN_URL, 'bot', { accessToken: TOKEN, expiresAt: 2_000_000_000 }, SECRET);
    const bytes = readFileSync(vault.tokenPath('default', TOKEN_URL, 'bot'));
    expect(bytes.includes(TOKEN)).toBe(false);
    expect(bytes.includes(TOKEN.slice(4, 24))).toBe(false);
    const parsed = JSON.parse(bytes.toString('utf8'));
    expect(parsed).toMatchObject({ tokenUrl: TOKEN_URL, clientId: 'bot', expiresAt: 2_000_000_000 });
    expect(parsed.accessToken).toMatch(/^v1\./);
    expect(vault.loadToken('default', TOKEN_URL, 'bot')).toEqual({ accessToken: TOKEN, expiresAt: 2_000_000_000 });
    // another process (a new Vault on the same dir) opens it with the key file
    expect(new Vault(dir, FILE_ONLY).loadToken('default', TOKEN_URL, 'bot')?.accessToken).toBe(TOKEN);
    // other keys of the cache miss
    expect(vault.loadToken('default', TOKEN_URL, 'other-bot')).toBeUndefined();
    expect(vault.loadToken('default', 'https://other.example.com/auth/v1/token', 'bot')).toBeUndefined();
    expect(vault.tokenPath('default', TOKEN_URL, 'bot')).not.toBe(vault.tokenPath('default', TOKEN_URL, 'other-bot'));
  });

  it('does not open a sealed value moved to another place or under another key', () => {
    const dir = fresh();
    const vault = new Vault(dir, FILE_ONLY);
    vault.saveToken('default', TOKEN_URL, 'bot', { accessToken: TOKEN, expiresAt: 2_000_000_000 }, SECRET);
    const sealed = JSON.parse(readFileSync(vault.tokenPath('default', TOKEN_URL, 'bot'), 'utf8'));
    // the same sealed value copied under the name of another client
    writePrivateFile(vault.tokenPath('default', TOKEN_URL, 'mallory'), JSON.stringify({ ...sealed, clientId: 'mallory' }));
    expect(vault.loadToken('default', TOKEN_URL, 'mallory')).toBeUndefined();
    // another key (AGCTL_CONFIG_KEY) cannot open it
    expect(new Vault(dir, { AGCTL_CONFIG_KEY: 'ab'.repeat(32) }).loadToken('default', TOKEN_URL, 'bot')).toBeUndefined();
    // a corrupt file reads as a miss, not a crash
    writeFileSync(vault.tokenPath('default', TOKEN_URL, 'bot'), '{"tokenUrl":');
    expect(vault.loadToken('default', TOKEN_URL, 'bot')).toBeUndefined();
  });

  it('seals stored client secrets and removes them', async () => {
    const dir = fresh();
    const vault = new Vault(dir, FILE_ONLY);
    await vault.saveCredential(at('ci', 'bot'), SECRET);
    expect(readFileSync(vault.credentialPath(at('ci'))).includes(SECRET)).toBe(false);
    expect(vault.loadCredential(at('ci'))).toBe(SECRET);
    expect(vault.loadCredential(at('other'))).toBeUndefined();
    expect(await vault.removeCredential('ci')).toEqual({ removed: true });
    expect(await vault.removeCredential('ci')).toEqual({ removed: false });
    expect(existsSync(vault.credentialPath(at('ci')))).toBe(false);
  });

  it('uses AGCTL_CONFIG_KEY instead of a key file when set', () => {
    const dir = fresh();
    const vault = new Vault(dir, { AGCTL_CONFIG_KEY: 'cd'.repeat(32) });
    vault.saveToken('default', TOKEN_URL, 'bot', { accessToken: TOKEN, expiresAt: 1 }, SECRET);
    expect(existsSync(join(dir, 'key'))).toBe(false);
    expect(new Vault(dir, { AGCTL_CONFIG_KEY: 'cd'.repeat(32) }).loadToken('default', TOKEN_URL, 'bot')?.accessToken).toBe(TOKEN);
  });

  it('removes every cached token of a profile, and only of that profile, even for the same client and token URL', () => {
    const dir = fresh();
    const vault = new Vault(dir, FILE_ONLY);
    vault.saveToken('a', TOKEN_URL, 'bot', { accessToken: TOKEN, expiresAt: 1 }, SECRET);
    vault.saveToken('a', 'http://127.0.0.1:1/auth/v1/token', 'other', { accessToken: TOKEN, expiresAt: 1 }, SECRET);
    vault.saveToken('b', TOKEN_URL, 'bot', { accessToken: TOKEN + 'b', expiresAt: 1 }, SECRET);
    expect(vault.tokenPath('a', TOKEN_URL, 'bot')).not.toBe(vault.tokenPath('b', TOKEN_URL, 'bot'));
    // a token cached by an older agctl (one per token URL and client, never read any more) goes with the client IDs given
    writePrivateFile(
      join(dir, 'tokens', 'legacy.json'),
      JSON.stringify({ tokenUrl: TOKEN_URL, clientId: 'bot', expiresAt: 1, accessToken: 'v1.x.y' }),
    );
    expect(vault.removeTokensOf('a', ['bot'])).toBe(3);
    expect(vault.loadToken('a', TOKEN_URL, 'bot')).toBeUndefined();
    expect(vault.loadToken('b', TOKEN_URL, 'bot')?.accessToken).toBe(TOKEN + 'b');
    // a token copied under another profile's name does not open there
    writePrivateFile(
      vault.tokenPath('a', TOKEN_URL, 'bot'),
      readFileSync(vault.tokenPath('b', TOKEN_URL, 'bot'), 'utf8').replace('"profile":"b"', '"profile":"a"'),
    );
    expect(vault.loadToken('a', TOKEN_URL, 'bot')).toBeUndefined();
    expect(vault.removeTokensOf('b')).toBe(1);
    expect(vault.removeToken('a', TOKEN_URL, 'bot')).toBe(true);
    expect(readdirSync(join(dir, 'tokens'))).toEqual([]);
    expect(new Vault(fresh(), FILE_ONLY).removeTokensOf('a')).toBe(0);
  });
});

describe('a stored secret that cannot be unsealed', () => {
  /** The CliError `fn` throws (it must throw one). */
  const cliError = (fn: () => unknown): CliError => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(CliError);
      return err as CliError;
    }
    throw new Error('expected a CliError');
  };
  const stored = async () => {
    const dir = fresh();
    await new Vault(dir, FILE_ONLY).saveCredential(at('ci', 'bot'), SECRET);
    return dir;
  };
  const prefix = 'the stored client secret of profile "ci" cannot be unsealed: ';

  it('names a wrong or malformed AGCTL_CONFIG_KEY (exit 3), and still tells nothing about another client', async () => {
    const dir = await stored();
    const wrong = cliError(() => new Vault(dir, { AGCTL_CONFIG_KEY: 'ab'.repeat(32) }).loadCredential(at('ci')));
    expect(wrong.exitCode).toBe(Exit.Unauthenticated);
    expect(wrong.message).toBe(`${prefix}it was sealed with another key than AGCTL_CONFIG_KEY, or its file was edited`);
    expect(wrong.hint).toMatch(/^set AGCTL_CONFIG_KEY to the key used when it was stored .*agctl login/);
    expect(cliError(() => new Vault(dir, { AGCTL_CONFIG_KEY: 'garbage' }).loadCredential(at('ci'))).message).toBe(
      `${prefix}AGCTL_CONFIG_KEY is not a valid key: it must be 32 bytes, written as 64 hex digits or 43 base64url characters`,
    );
    // A credential for another client ID or base URL is not unsealed at all.
    expect(new Vault(dir, { AGCTL_CONFIG_KEY: 'ab'.repeat(32) }).loadCredential(at('ci', 'someone-else'))).toBeUndefined();
    expect(
      new Vault(dir, { AGCTL_CONFIG_KEY: 'ab'.repeat(32) }).loadCredential({ ...at('ci'), baseUrl: 'https://other.example.com' }),
    ).toBeUndefined();
    expect(new Vault(dir, { AGCTL_CONFIG_KEY: 'ab'.repeat(32) }).storedRecords('ci').map((r) => [r.baseUrl, r.clientId])).toEqual([
      [BASE_URL, 'bot'],
    ]);
  });

  it('names a damaged, replaced or missing key file and a damaged credential file', async () => {
    const damaged = await stored();
    writeFileSync(join(damaged, 'key'), 'abc\n');
    expect(cliError(() => new Vault(damaged, FILE_ONLY).loadCredential(at('ci'))).message).toBe(
      `${prefix}the key file ${join(damaged, 'key')} is damaged (it must hold 32 bytes, written as 64 hex digits or 43 base64url characters)`,
    );
    // Saving with a damaged key file is a usage error: no new key is made behind the user's back.
    await expect(new Vault(damaged, FILE_ONLY).saveCredential(at('ci', 'bot'), SECRET)).rejects.toThrow(UsageError);

    const replaced = await stored();
    writeFileSync(join(replaced, 'key'), 'cd'.repeat(32) + '\n');
    expect(cliError(() => new Vault(replaced, FILE_ONLY).loadCredential(at('ci'))).message).toBe(
      `${prefix}it was sealed with another key than the key file ${join(replaced, 'key')}, or its file was edited`,
    );

    const missing = await stored();
    rmSync(join(missing, 'key'));
    expect(cliError(() => new Vault(missing, FILE_ONLY).loadCredential(at('ci'))).message).toBe(
      `${prefix}the key file ${join(missing, 'key')} is missing`,
    );
    expect(existsSync(join(missing, 'key'))).toBe(false);

    const broken = await stored();
    const vault = new Vault(broken, FILE_ONLY);
    writeFileSync(vault.credentialPath(at('ci')), '{"clientId":');
    expect(cliError(() => vault.loadCredential(at('ci'))).message).toBe(`${prefix}the file ${vault.credentialPath(at('ci'))} is damaged`);
  });
});

describe('a config directory that is not one', () => {
  it('is a usage error naming AGCTL_CONFIG_DIR (or the config directory)', () => {
    const file = join(fresh() + '-file');
    writeFileSync(file, 'x');
    const env = { AGCTL_CONFIG_DIR: file };
    expect(() => new ProfileStore(file, env).read()).toThrow(`AGCTL_CONFIG_DIR ${file}: it is a file, not a directory`);
    expect(() => new Vault(file, env).loadCredential(at('default'))).toThrow(`AGCTL_CONFIG_DIR ${file}: it is a file, not a directory`);
    expect(() => new Vault(file, env).saveToken('default', TOKEN_URL, 'bot', { accessToken: TOKEN, expiresAt: 1 }, SECRET)).toThrow(
      UsageError,
    );
    expect(() => new Vault(join(file, 'sub'), FILE_ONLY).loadToken('default', TOKEN_URL, 'bot')).toThrow(
      `config directory ${join(file, 'sub')}: ${file} is a file, not a directory`,
    );
  });

  it('makes ProfileStore.save a usage error too', async () => {
    const file = join(fresh() + '-file');
    writeFileSync(file, 'x');
    await expect(new ProfileStore(file, { AGCTL_CONFIG_DIR: file }).save('default', { clientId: 'x' })).rejects.toThrow(
      `AGCTL_CONFIG_DIR ${file}: it is a file, not a directory`,
    );
  });
});

describe('the key of a profile in the OS keyring', () => {
  /** An in-memory keyring (the real one is tested in test/e2e/cli/keyring.test.ts). */
  class MemoryKeyring implements SecretStore {
    readonly entries = new Map<string, string>();
    async get(account: string) {
      return this.entries.get(account);
    }
    async set(account: string, secret: string) {
      this.entries.set(account, secret);
    }
    async delete(account: string) {
      return this.entries.delete(account);
    }
  }
  const withKeyring = (dir: string, keyring: SecretStore, env: NodeJS.ProcessEnv = {}) => new Vault(dir, env, async () => keyring);

  it('seals the secret and the profile tokens with a key kept in the keyring, not in the directory', async () => {
    const dir = fresh();
    const keyring = new MemoryKeyring();
    const vault = withKeyring(dir, keyring);
    expect(await vault.saveCredential(at('ci', 'bot'), SECRET)).toEqual({ keptIn: 'keyring', noKeyring: undefined });
    vault.saveToken('ci', TOKEN_URL, 'bot', { accessToken: TOKEN, expiresAt: 2_000_000_000 }, SECRET);
    expect([...keyring.entries.keys()]).toEqual([vault.keyringAccount('ci')]);
    expect(vault.keyringAccount('ci')).toMatch(/^[0-9a-f]{16}:ci$/);
    expect(existsSync(join(dir, 'key'))).toBe(false);
    expect(vault.keptIn('ci')).toBe('keyring');
    expect(JSON.parse(readFileSync(vault.tokenPath('ci', TOKEN_URL, 'bot'), 'utf8')).keptIn).toBe('keyring');

    // another process: unlocked from the keyring, it opens both
    const again = withKeyring(dir, keyring);
    await again.unlock('ci');
    expect(again.loadCredential(at('ci'))).toBe(SECRET);
    expect(again.loadToken('ci', TOKEN_URL, 'bot')?.accessToken).toBe(TOKEN);

    // the directory copied elsewhere (or used with an empty keyring): nothing opens, with a clear error
    const copy = fresh();
    cpSync(dir, copy, { recursive: true });
    for (const other of [withKeyring(copy, keyring), withKeyring(dir, new MemoryKeyring())]) {
      await other.unlock('ci');
      expect(other.loadToken('ci', TOKEN_URL, 'bot')).toBeUndefined();
      expect(() => other.loadCredential(at('ci'))).toThrow(
        /cannot be unsealed: its key is not in the OS keyring \(service "agctl", account "[0-9a-f]{16}:ci"\)/,
      );
    }

    // logout: the entry goes with the file
    expect(await again.removeCredential('ci')).toEqual({ removed: true, keyringProblem: undefined });
    expect(keyring.entries.size).toBe(0);
  });

  it('falls back to the key file where no keyring takes the key, and with insecureStorage or AGCTL_CONFIG_KEY does not try', async () => {
    const dir = fresh();
    const keyring = new MemoryKeyring();
    const none = withKeyring(dir, new NoKeyring('no session bus'));
    expect(await none.saveCredential(at('a', 'bot'), SECRET)).toEqual({ keptIn: 'file', noKeyring: 'no session bus' });
    expect(existsSync(join(dir, 'key'))).toBe(true);
    expect(await withKeyring(dir, keyring).saveCredential(at('b', 'bot'), SECRET, { insecureStorage: true })).toEqual({
      keptIn: 'file',
      noKeyring: undefined,
    });
    expect(await withKeyring(dir, keyring, { AGCTL_CONFIG_KEY: 'ab'.repeat(32) }).saveCredential(at('c', 'bot'), SECRET)).toEqual({
      keptIn: 'file',
      noKeyring: undefined,
    });
    expect(keyring.entries.size).toBe(0);
    expect(new Vault(dir, FILE_ONLY).loadCredential(at('a'))).toBe(SECRET);
    expect(new Vault(dir, FILE_ONLY).keptIn('b')).toBe('file');
    // with CI set, the keyring is never asked
    expect(await new Vault(fresh(), { CI: 'true' }).saveCredential(at('a', 'bot'), SECRET)).toEqual({
      keptIn: 'file',
      noKeyring: 'the CI variable is set (CI=true)',
    });
  });

  it('keeps a credential file without the keyring mark on the key file, and a move to the file removes the keyring entry once the old credential goes', async () => {
    const dir = fresh();
    const keyring = new MemoryKeyring();
    await new Vault(dir, FILE_ONLY).saveCredential(at('old', 'bot'), SECRET);
    const path = new Vault(dir, FILE_ONLY).credentialPath(at('old'));
    const { keptIn: _, ...legacy } = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify(legacy));
    const vault = withKeyring(dir, keyring);
    expect(vault.keptIn('old')).toBe('file');
    await vault.unlock('old');
    expect(vault.loadCredential(at('old'))).toBe(SECRET);

    await vault.saveCredential(at('p', 'bot'), SECRET);
    expect(keyring.entries.size).toBe(1);
    expect(await vault.saveCredential(at('p', 'bot'), SECRET, { insecureStorage: true })).toMatchObject({ keptIn: 'file' });
    expect(keyring.entries.size).toBe(1);
    expect(await vault.retireCredentials(at('p'))).toEqual({});
    expect(keyring.entries.size).toBe(0);
    expect(new Vault(dir, FILE_ONLY).loadCredential(at('p'))).toBe(SECRET);
  });

  it('a login kept in the keyring to another base URL retires the old credential and keeps the key the new one is sealed with', async () => {
    const dir = fresh();
    const keyring = new MemoryKeyring();
    const vault = withKeyring(dir, keyring);
    await vault.saveCredential(at('p'), SECRET);
    const moved = { ...at('p'), baseUrl: 'https://other.example.com' };
    expect(await vault.saveCredential(moved, 'other-secret')).toMatchObject({ keptIn: 'keyring' });
    expect(await vault.retireCredentials(moved)).toEqual({});
    expect(keyring.entries.size).toBe(1);
    expect(vault.storedRecords('p').map((r) => r.baseUrl)).toEqual(['https://other.example.com']);
    const later = withKeyring(dir, keyring);
    await later.unlock('p');
    expect(later.loadCredential(moved)).toBe('other-secret');
  });

  it('with CI set (no keyring used), a profile kept in the keyring says so, and logout says its entry is left', async () => {
    const dir = fresh();
    await withKeyring(dir, new MemoryKeyring()).saveCredential(at('p', 'bot'), SECRET);
    const ci = new Vault(dir, { CI: '1' });
    await ci.unlock('p');
    expect(() => ci.loadCredential(at('p'))).toThrow(
      'cannot be unsealed: its key is kept in the OS keyring, which cannot be read here (the CI variable is set (CI=1))',
    );
    expect(await ci.removeCredential('p')).toEqual({ removed: true, keyringProblem: 'the CI variable is set (CI=1)' });
  });

  it('a profile logged in to the keyring by another process after this one looked is a clear error (exit 3), not a crash', async () => {
    const dir = fresh();
    const keyring = new MemoryKeyring();
    await new Vault(dir, FILE_ONLY).saveCredential(at('p', 'bot'), SECRET);
    const reader = withKeyring(dir, keyring);
    await reader.unlock('p'); // kept in the key file: the keyring is not read
    await withKeyring(dir, keyring).saveCredential(at('p', 'bot'), SECRET); // a login meanwhile
    let err: unknown;
    try {
      reader.loadCredential(at('p'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(Exit.Unauthenticated);
    expect((err as CliError).message).toMatch(/logged in again while this command ran/);
    expect(reader.loadToken('p', TOKEN_URL, 'bot')).toBeUndefined();
  });

  it('logout removes the keyring entry of a profile whose credential file is damaged too: nothing is left behind', async () => {
    const dir = fresh();
    const keyring = new MemoryKeyring();
    const vault = withKeyring(dir, keyring);
    await vault.saveCredential(at('p', 'bot'), SECRET);
    writeFileSync(vault.credentialPath(at('p')), '{"clientId": "bot", "keptIn": "keyr');
    expect(await withKeyring(dir, keyring).removeCredential('p')).toEqual({ removed: true, keyringProblem: undefined });
    expect(keyring.entries.size).toBe(0);
    // a file that is JSON but not an object (an array) is damaged too
    await vault.saveCredential(at('a', 'bot'), SECRET);
    expect(keyring.entries.size).toBe(1);
    writeFileSync(vault.credentialPath(at('a')), '["bot"]');
    expect(await withKeyring(dir, keyring).removeCredential('a')).toEqual({ removed: true, keyringProblem: undefined });
    expect(keyring.entries.size).toBe(0);
    // where no keyring answers, a damaged file (whose key may be anywhere) is removed without a word about one
    await vault.saveCredential(at('q', 'bot'), SECRET, { insecureStorage: true });
    writeFileSync(vault.credentialPath(at('q')), 'x');
    expect(await withKeyring(dir, new NoKeyring('no session bus')).removeCredential('q')).toEqual({
      removed: true,
      keyringProblem: undefined,
    });
  });

  it('a login again keeps the key in the keyring: a command that read it before opens the new secret', async () => {
    const dir = fresh();
    const keyring = new MemoryKeyring();
    await withKeyring(dir, keyring).saveCredential(at('p', 'bot'), SECRET);
    const reader = withKeyring(dir, keyring);
    await reader.unlock('p');
    await withKeyring(dir, keyring).saveCredential(at('p', 'bot'), 'the-new-secret'); // a login meanwhile
    expect(reader.loadCredential(at('p'))).toBe('the-new-secret');
    expect(keyring.entries.size).toBe(1);
    // a key in the keyring that is not one (damaged) is replaced by a new one
    keyring.entries.set(reader.keyringAccount('p'), 'not a key');
    await withKeyring(dir, keyring).saveCredential(at('p', 'bot'), SECRET);
    const again = withKeyring(dir, keyring);
    await again.unlock('p');
    expect(again.loadCredential(at('p'))).toBe(SECRET);
  });

  it('finds the key of a config directory reached by another path (a symbolic link)', async () => {
    const dir = fresh();
    mkdirSync(dir);
    const link = `${dir}-link`;
    symlinkSync(dir, link);
    const keyring = new MemoryKeyring();
    const viaLink = withKeyring(link, keyring);
    await viaLink.saveCredential(at('p', 'bot'), SECRET);
    const direct = withKeyring(dir, keyring);
    expect(direct.keyringAccount('p')).toBe(viaLink.keyringAccount('p'));
    await direct.unlock('p');
    expect(direct.loadCredential(at('p'))).toBe(SECRET);
  });

  it('leaves no key in the keyring when the secret cannot be written', async () => {
    const dir = fresh();
    mkdirSync(dir);
    // the keyring takes the key; then a file takes the place of the credentials directory
    const keyring = new (class extends MemoryKeyring {
      override async set(account: string, secret: string) {
        await super.set(account, secret);
        writeFileSync(join(dir, 'credentials'), 'x');
      }
    })();
    await expect(withKeyring(dir, keyring).saveCredential(at('p', 'bot'), SECRET)).rejects.toThrow(UsageError);
    expect(keyring.entries.size).toBe(0);
  });

  it('a login again whose secret cannot be written leaves the key of the secret stored before, which still opens', async () => {
    const dir = fresh();
    const creds = join(dir, 'credentials');
    let failNext = false;
    // once the key is asked for, the credentials directory is taken away (the old file kept aside)
    const keyring = new (class extends MemoryKeyring {
      override async get(account: string) {
        if (failNext) {
          failNext = false;
          renameSync(creds, `${creds}.aside`);
          writeFileSync(creds, 'x');
        }
        return super.get(account);
      }
    })();
    await withKeyring(dir, keyring).saveCredential(at('p', 'bot'), SECRET);
    failNext = true;
    await expect(withKeyring(dir, keyring).saveCredential(at('p', 'bot'), 'another-secret')).rejects.toThrow(UsageError);
    // the failed write left the old file as it was
    rmSync(creds);
    renameSync(`${creds}.aside`, creds);
    const again = withKeyring(dir, keyring);
    await again.unlock('p');
    expect(again.loadCredential(at('p'))).toBe(SECRET);
  });
});
