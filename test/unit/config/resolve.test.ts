import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Exit, UsageError } from '../../../src/lib/exit.js';
import {
  ConfigContext,
  CredentialBindingError,
  attachStoredSecret,
  sameTenant,
  baseUrlFromClientId,
  normalizeBaseUrl,
  parseOutput,
  parseTimeout,
  resolveSettings,
  type GlobalFlags,
} from '../../../src/config/resolve.js';
import { isValidProfileName, type ConfigFile } from '../../../src/config/profiles.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-resolve-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A config dir holding `file` as config.json, and the env pointing at it. */
function setup(file?: ConfigFile, env: Record<string, string> = {}) {
  const dir = join(root, `c${n++}`);
  mkdirSync(dir, { recursive: true });
  if (file) writeFileSync(join(dir, 'config.json'), JSON.stringify(file));
  const e: NodeJS.ProcessEnv = { AGCTL_CONFIG_DIR: dir, CI: '1', ...env };
  return { env: e, config: new ConfigContext(e) };
}

const resolve = (flags: GlobalFlags, file?: ConfigFile, env: Record<string, string> = {}) => {
  const { env: e, config } = setup(file, env);
  return resolveSettings(flags, e, config);
};

const PROFILES: ConfigFile = {
  currentProfile: 'work',
  profiles: {
    work: { baseUrl: 'https://work.example.com', clientId: 'work-bot', output: 'json' },
    home: { baseUrl: 'https://home.example.com', clientId: 'home-bot' },
    tenant: { clientId: 'bot@acme.example.com/agctl' },
  },
};

describe('profile selection', () => {
  it('takes --profile over AGCTL_PROFILE over the current profile over "default"', () => {
    expect(resolve({ profile: 'home' }, PROFILES, { AGCTL_PROFILE: 'tenant' })).toMatchObject({ profile: 'home', profileSource: 'flag' });
    expect(resolve({}, PROFILES, { AGCTL_PROFILE: 'tenant' })).toMatchObject({ profile: 'tenant', profileSource: 'env' });
    expect(resolve({}, PROFILES)).toMatchObject({ profile: 'work', profileSource: 'config' });
    expect(resolve({})).toMatchObject({ profile: 'default', profileSource: 'default' });
  });

  it('refuses invalid profile names with a usage error', () => {
    for (const bad of ['../etc', 'a b', '-x', '.hidden', 'x/y', 'é', 'a'.repeat(65)]) {
      expect(isValidProfileName(bad)).toBe(false);
      expect(() => resolve({ profile: bad })).toThrow(UsageError);
      expect(() => resolve({}, undefined, { AGCTL_PROFILE: bad })).toThrow(/invalid profile name/);
    }
    for (const good of ['default', 'ci', 'Prod-2', 'a.b_c', 'a'.repeat(64)]) expect(isValidProfileName(good)).toBe(true);
  });

  it('refuses an empty --profile instead of falling back to another profile', () => {
    expect(() => resolve({ profile: '' }, PROFILES, { AGCTL_PROFILE: 'tenant' })).toThrow(/invalid profile name ""/);
    // An empty AGCTL_PROFILE counts as unset, like every empty variable.
    expect(resolve({}, PROFILES, { AGCTL_PROFILE: '' })).toMatchObject({ profile: 'work', profileSource: 'config' });
  });

  it('reports a config file that is not JSON clearly', () => {
    const { env, config } = setup();
    writeFileSync(join(env.AGCTL_CONFIG_DIR!, 'config.json'), '{ nope');
    // the user's file, not a bug: a usage error (exit 2)
    expect(() => resolveSettings({}, env, config)).toThrow(UsageError);
    expect(() => resolveSettings({}, env, config)).toThrow(/config\.json is not valid JSON/);
  });
});

describe('flag > env > profile > default', () => {
  it('resolves the client ID', () => {
    expect(resolve({ clientId: 'flag-bot' }, PROFILES, { AGCTL_CLIENT_ID: 'env-bot' })).toMatchObject({
      clientId: 'flag-bot',
      clientIdSource: 'flag',
    });
    expect(resolve({}, PROFILES, { AGCTL_CLIENT_ID: 'env-bot' })).toMatchObject({ clientId: 'env-bot', clientIdSource: 'env' });
    expect(resolve({}, PROFILES)).toMatchObject({ clientId: 'work-bot', clientIdSource: 'profile' });
    expect(resolve({}).clientId).toBeUndefined();
  });

  it('resolves the base URL, normalising it', () => {
    const env = { AGCTL_BASE_URL: 'https://env.example.com/' };
    expect(resolve({ baseUrl: 'https://FLAG.example.com:443/' }, PROFILES, env)).toMatchObject({
      baseUrl: 'https://flag.example.com',
      baseUrlSource: 'flag',
    });
    expect(resolve({}, PROFILES, env)).toMatchObject({ baseUrl: 'https://env.example.com', baseUrlSource: 'env' });
    expect(resolve({}, PROFILES)).toMatchObject({ baseUrl: 'https://work.example.com', baseUrlSource: 'profile' });
    expect(resolve({}).baseUrl).toBeUndefined();
  });

  it('refuses a base URL with a path, naming where it came from and the origin to use', () => {
    expect(() => resolve({ baseUrl: 'https://flag.example.com/api/v1' })).toThrow(
      expect.objectContaining({
        message:
          "--base-url: the base URL https://flag.example.com/api/v1 has a path (/api/v1): it must be the service's origin alone, https://flag.example.com",
        hint: 'drop the path: --base-url https://flag.example.com',
      }),
    );
    expect(() => resolve({}, undefined, { AGCTL_BASE_URL: 'acme.example.com/x/' })).toThrow(
      expect.objectContaining({ hint: 'drop the path: AGCTL_BASE_URL=https://acme.example.com' }),
    );
    expect(() => normalizeBaseUrl('http://127.0.0.1:8080/api', 'base URL')).toThrow(UsageError);
    expect(normalizeBaseUrl('http://127.0.0.1:8080//', 'base URL')).toBe('http://127.0.0.1:8080');
  });

  it('resolves the output format, and rejects unknown ones naming their source', () => {
    expect(resolve({ output: 'table' }, PROFILES, { AGCTL_OUTPUT: 'json' }).output).toBe('table');
    expect(resolve({ profile: 'home' }, PROFILES, { AGCTL_OUTPUT: 'json' }).output).toBe('json');
    expect(resolve({}, PROFILES).output).toBe('json'); // the "work" profile says json
    expect(resolve({ profile: 'home' }, PROFILES).output).toBe('table');
    expect(() => resolve({ output: 'csv' })).toThrow(/--output: unknown output format "csv"/);
    expect(() => resolve({}, undefined, { AGCTL_OUTPUT: 'xml' })).toThrow(/AGCTL_OUTPUT: unknown output format "xml"/);
    expect(parseOutput('', 'x')).toBeUndefined();
  });

  it("rejects a profile's unknown output format, naming the profile", () => {
    const file: ConfigFile = { currentProfile: 'odd', profiles: { odd: { output: 'csv' as 'json' } } };
    expect(() => resolve({}, file)).toThrow(/output of profile "odd": unknown output format "csv"/);
    expect(resolve({ output: 'table' }, file).output).toBe('table');
  });

  it('resolves the timeout in milliseconds', () => {
    expect(resolve({}).timeoutMs).toBe(30_000);
    expect(resolve({ timeout: '2.5' }, undefined, { AGCTL_TIMEOUT: '9' }).timeoutMs).toBe(2500);
    expect(resolve({}, undefined, { AGCTL_TIMEOUT: '9' }).timeoutMs).toBe(9000);
    for (const bad of ['0', '-1', 'abc', '3601', 'Infinity']) expect(() => parseTimeout(bad, {})).toThrow(UsageError);
    // A tiny positive timeout stays positive (never a 0 ms timeout).
    expect(parseTimeout('0.0001', {})).toBe(1);
  });

  it('takes secrets and static tokens from the environment only', () => {
    const s = resolve({}, PROFILES, { AGCTL_CLIENT_SECRET: 's3cret', AGCTL_ACCESS_TOKEN: 'tok' });
    expect(s).toMatchObject({ clientSecret: 's3cret', clientSecretSource: 'env', accessToken: 'tok' });
    expect(resolve({}, PROFILES).clientSecret).toBeUndefined();
  });
});

describe('base URL from a name@host/suffix client ID', () => {
  it('derives https://host', () => {
    expect(baseUrlFromClientId('bot@acme.example.com/agctl')).toBe('https://acme.example.com');
    expect(baseUrlFromClientId('bot@localhost:8443/x')).toBe('https://localhost:8443');
    expect(baseUrlFromClientId('bot@ACME.example.com:443/x')).toBe('https://acme.example.com');
    expect(baseUrlFromClientId('bot@[::1]:8443/x')).toBe('https://[::1]:8443');
    expect(baseUrlFromClientId('bot@[0:0:0:0:0:0:0:1]/x')).toBe('https://[::1]');
    expect(baseUrlFromClientId('bot@[not-v6]/x')).toBeUndefined();
    expect(baseUrlFromClientId('bot@[::g]/x')).toBeUndefined();
    for (const no of ['bot', 'bot@acme.example.com', '@acme.example.com/x', 'bot@/x', 'a b@h/x', 'bot@ho_st/x'])
      expect(baseUrlFromClientId(no)).toBeUndefined();
  });

  it('applies when no base URL is configured, and never over an explicit one', () => {
    expect(resolve({ clientId: 'bot@acme.example.com/x' })).toMatchObject({
      baseUrl: 'https://acme.example.com',
      baseUrlSource: 'client-id',
    });
    expect(resolve({ profile: 'tenant' }, PROFILES)).toMatchObject({ baseUrl: 'https://acme.example.com', baseUrlSource: 'client-id' });
    expect(resolve({ clientId: 'bot@acme.example.com/x', baseUrl: 'http://127.0.0.1:9' }).baseUrl).toBe('http://127.0.0.1:9');
    expect(resolve({}, undefined, { AGCTL_CLIENT_ID: 'bot@acme.example.com/x', AGCTL_BASE_URL: 'https://other.example.com' }).baseUrl).toBe(
      'https://other.example.com',
    );
  });

  it('prefers the tenant a client ID names over the base URL of a profile saved for another client', () => {
    // The profile's base URL belongs to the profile's client; another client naming its tenant goes there.
    expect(resolve({ clientId: 'bot@acme.example.com/x' }, PROFILES)).toMatchObject({
      baseUrl: 'https://acme.example.com',
      baseUrlSource: 'client-id',
    });
    // The profile's own client keeps the profile's base URL.
    expect(resolve({ clientId: 'work-bot' }, PROFILES)).toMatchObject({ baseUrl: 'https://work.example.com', baseUrlSource: 'profile' });
  });

  it("falls back to the profile's base URL when the client ID names no tenant", () => {
    expect(resolve({}, PROFILES, { AGCTL_CLIENT_ID: 'another-bot' })).toMatchObject({
      clientId: 'another-bot',
      baseUrl: 'https://work.example.com',
      baseUrlSource: 'profile',
    });
  });
});

describe('normalizeBaseUrl', () => {
  it('accepts http(s) URLs and drops trailing slashes', () => {
    expect(normalizeBaseUrl('https://a.example.com', 'x')).toBe('https://a.example.com');
    expect(normalizeBaseUrl('https://a.example.com///', 'x')).toBe('https://a.example.com');
    expect(normalizeBaseUrl('http://127.0.0.1:8080/', 'x')).toBe('http://127.0.0.1:8080');
  });

  it('rejects what cannot be a base URL with a usage error naming the source', () => {
    expect(() => normalizeBaseUrl('not a url', '--base-url')).toThrow(/--base-url: "not a url" is not a valid URL/);
    expect(() => normalizeBaseUrl('ftp://a.example.com', 'AGCTL_BASE_URL')).toThrow(/AGCTL_BASE_URL: the base URL must use https/);
    expect(() => normalizeBaseUrl('https://u:p@a.example.com', 'x')).toThrow(/credentials/);
    expect(() => normalizeBaseUrl('https://a.example.com/?q=1', 'x')).toThrow(/query or fragment/);
    expect(() => normalizeBaseUrl('https://a.example.com/#f', 'x')).toThrow(UsageError);
    expect(() => resolve({ baseUrl: 'no pe' })).toThrow(UsageError);
    expect(() => resolve({}, undefined, { AGCTL_BASE_URL: 'no pe' })).toThrow(/AGCTL_BASE_URL/);
    expect(() => normalizeBaseUrl('acme.example.com:99999', '--base-url')).toThrow(
      /--base-url: "acme.example.com:99999" is not a valid URL/,
    );
    expect(() => normalizeBaseUrl('mailto:a@example.com', '--base-url')).toThrow(UsageError);
  });

  it('takes a URL without scheme as https (plain http must be written out), and says it was assumed', () => {
    expect(normalizeBaseUrl('acme.example.com', 'x')).toBe('https://acme.example.com');
    expect(normalizeBaseUrl(' Acme.Example.com:8443/ ', 'x')).toBe('https://acme.example.com:8443');
    expect(normalizeBaseUrl('localhost:8080', 'x')).toBe('https://localhost:8080');
    expect(normalizeBaseUrl('[::1]:8080', 'x')).toBe('https://[::1]:8080');
    expect(normalizeBaseUrl('http://localhost:8080', 'x')).toBe('http://localhost:8080');
    expect(resolve({ baseUrl: 'acme.example.com' })).toMatchObject({
      baseUrl: 'https://acme.example.com',
      baseUrlSource: 'flag',
      baseUrlSchemeAssumed: true,
    });
    expect(resolve({}, undefined, { AGCTL_BASE_URL: 'acme.example.com' })).toMatchObject({
      baseUrl: 'https://acme.example.com',
      baseUrlSchemeAssumed: true,
    });
    expect(resolve({ baseUrl: 'https://acme.example.com' })).toMatchObject({ baseUrlSchemeAssumed: false });
  });
});

/** Where the "work" profile's secret is stored by a login: its base URL and client. */
const WORK = { profile: 'work', baseUrl: 'https://work.example.com', clientId: 'work-bot' };

describe('attachStoredSecret', () => {
  it("loads the profile's stored secret only for the client it was saved with", async () => {
    const { env, config } = setup(PROFILES);
    await config.vault.saveCredential(WORK, 'stored-secret');
    expect(attachStoredSecret(resolveSettings({}, env, config), config)).toMatchObject({
      clientSecret: 'stored-secret',
      clientSecretSource: 'stored',
    });
    // another client: nothing unsealed, exit 3 naming the profile and the client it is logged in as
    expect(() => attachStoredSecret(resolveSettings({ clientId: 'someone-else' }, env, config), config)).toThrow(
      'profile "work" is logged in as work-bot, not as someone-else (from --client-id): its stored secret is not sent for another client; log in again to profile "work" to use that client',
    );
    const fromEnv = attachStoredSecret(resolveSettings({}, { ...env, AGCTL_CLIENT_SECRET: 'env-secret' }, config), config);
    expect(fromEnv).toMatchObject({ clientSecret: 'env-secret', clientSecretSource: 'env' });
  });
});

describe('stored credentials are bound to the base URL of their profile', () => {
  /** The "work" profile logged in (secret stored), plus whatever the test passes. */
  async function loggedIn(env: Record<string, string> = {}, file: ConfigFile = PROFILES) {
    const { env: e, config } = setup(file, env);
    await config.vault.saveCredential(WORK, 'stored-secret');
    return { attach: (flags: GlobalFlags = {}) => attachStoredSecret(resolveSettings(flags, e, config), config) };
  }

  it('compares scheme, host and port after normalisation', async () => {
    for (const [a, b] of [
      ['https://work.example.com', 'HTTPS://WORK.example.com:443/'],
      ['https://work.example.com', 'https://work.example.com/some/path'],
      ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/'],
      ['http://[::1]:80', 'http://[0:0:0:0:0:0:0:1]'],
    ])
      expect([a, b, sameTenant(a, b)]).toEqual([a, b, true]);
    for (const [a, b] of [
      ['https://work.example.com', 'http://work.example.com'],
      ['https://work.example.com', 'https://work.example.com:8443'],
      ['https://work.example.com', 'https://work.example.com.evil.example'],
      ['http://127.0.0.1:8080', 'http://localhost:8080'],
      ['https://work.example.com', 'not a url'],
    ])
      expect([a, b, sameTenant(a, b)]).toEqual([a, b, false]);
  });

  it("uses the stored secret with the profile's own base URL, however it is spelled", async () => {
    const { attach } = await loggedIn();
    expect(attach()).toMatchObject({ clientSecret: 'stored-secret', clientSecretSource: 'stored' });
    expect(attach({ baseUrl: 'HTTPS://Work.Example.com:443/' })).toMatchObject({ clientSecret: 'stored-secret' });
    expect((await loggedIn({ AGCTL_BASE_URL: 'https://work.example.com/' })).attach()).toMatchObject({ clientSecret: 'stored-secret' });
  });

  it('refuses it (exit 3, nothing unsealed) for another base URL from --base-url or AGCTL_BASE_URL, naming both URLs and the ways on', async () => {
    const viaFlag = await (async () => {
      try {
        (await loggedIn()).attach({ baseUrl: 'https://home.example.com' });
      } catch (err) {
        return err as CredentialBindingError;
      }
    })();
    expect(viaFlag).toBeInstanceOf(CredentialBindingError);
    expect(viaFlag!.exitCode).toBe(Exit.Unauthenticated);
    expect(viaFlag!.message).toBe(
      'profile "work" is logged in to https://work.example.com, not to https://home.example.com (from --base-url): its stored secret and tokens are not sent there',
    );
    // the profile saved for that URL is named, then a new login, the one-off secret, and how to use this profile
    expect(viaFlag!.hint).toBe(
      'use --profile home (logged in to https://home.example.com); or run `agctl login --base-url https://home.example.com --profile <name>` to save credentials for it (log in again to profile "work" to move it there); or set AGCTL_CLIENT_SECRET (with AGCTL_CLIENT_ID) to send a secret there for this one call; or to use profile "work" with https://work.example.com, drop --base-url',
    );
    const viaEnv = await loggedIn({ AGCTL_BASE_URL: 'http://work.example.com' });
    expect(() => viaEnv.attach()).toThrow(/not to http:\/\/work\.example\.com \(from AGCTL_BASE_URL\)/);
    const otherPort = await loggedIn({ AGCTL_BASE_URL: 'https://work.example.com:8443' });
    expect(() => otherPort.attach()).toThrow(CredentialBindingError);
    // checked before unsealing: under another key the same call would fail to unseal, and does not get that far
    const { env: e, config } = setup(PROFILES);
    await config.vault.saveCredential(WORK, 'stored-secret');
    const otherKey = { ...e, AGCTL_CONFIG_KEY: 'ab'.repeat(32) };
    const attachOtherKey = (flags: GlobalFlags) =>
      attachStoredSecret(resolveSettings(flags, otherKey, new ConfigContext(otherKey)), new ConfigContext(otherKey));
    expect(() => attachOtherKey({})).toThrow(/cannot be unsealed/);
    expect(() => attachOtherKey({ baseUrl: 'https://evil.example' })).toThrow(CredentialBindingError);
  });

  it('lets a secret or token given for this invocation go where the invocation says', async () => {
    expect((await loggedIn({ AGCTL_CLIENT_SECRET: 'one-off' })).attach({ baseUrl: 'https://other.example.com' })).toMatchObject({
      baseUrl: 'https://other.example.com',
      clientSecret: 'one-off',
      clientSecretSource: 'env',
    });
    const token = (await loggedIn({ AGCTL_ACCESS_TOKEN: 'tok' })).attach({ baseUrl: 'https://other.example.com' });
    expect(token).toMatchObject({ accessToken: 'tok' });
    expect(token.clientSecret).toBeUndefined();
  });

  it('binds a profile without a base URL to the tenant its client ID names', async () => {
    const file: ConfigFile = { currentProfile: 'work', profiles: { work: { clientId: 'work-bot@work.example.com/x' } } };
    const { env: e, config } = setup(file);
    await config.vault.saveCredential({ ...WORK, clientId: 'work-bot@work.example.com/x' }, 'stored-secret');
    const attach = (flags: GlobalFlags) => attachStoredSecret(resolveSettings(flags, e, config), config);
    expect(attach({})).toMatchObject({ baseUrl: 'https://work.example.com', baseUrlSource: 'client-id', clientSecret: 'stored-secret' });
    expect(() => attach({ baseUrl: 'https://evil.example' })).toThrow(
      /logged in to https:\/\/work\.example\.com, not to https:\/\/evil\.example/,
    );
    // a client ID naming another tenant has no stored secret here at all
    expect(() => attach({ clientId: 'work-bot@evil.example/x' })).toThrow(CredentialBindingError);
  });

  it('refuses it (exit 3, "log in again" naming the profile) when config.json names another base URL than the sealed record: an edited file, or a login cut short by an earlier agctl', async () => {
    const { env: e, config } = setup(PROFILES);
    await config.vault.saveCredential(WORK, 'stored-secret');
    // someone who can write config.json points the profile at their own server
    writeFileSync(
      join(config.dir, 'config.json'),
      JSON.stringify({ ...PROFILES, profiles: { ...PROFILES.profiles, work: { baseUrl: 'https://evil.example', clientId: 'work-bot' } } }),
    );
    const fresh = new ConfigContext(e);
    const err = (() => {
      try {
        attachStoredSecret(resolveSettings({}, e, fresh), fresh);
      } catch (x) {
        return x as CredentialBindingError;
      }
    })();
    expect(err).toBeInstanceOf(CredentialBindingError);
    expect(err!.exitCode).toBe(Exit.Unauthenticated);
    expect(err!.message).toBe(
      'profile "work" names https://evil.example, but its stored secret was saved for https://work.example.com: it is not sent to https://evil.example; log in again to profile "work"',
    );
    expect(err!.hint).toBe(
      'log in again: agctl login --profile work --base-url https://evil.example (or --base-url https://work.example.com)',
    );
  });

  it('sends nowhere a secret stored by an earlier agctl, which names no base URL: exit 3, log in again', async () => {
    const { env: e, config } = setup(PROFILES);
    await config.vault.saveCredential(WORK, 'stored-secret');
    // the layout of an earlier agctl: credentials/<profile>.json, bound to the profile and client only
    const path = config.vault.credentialPath(WORK);
    const { baseUrl: _b, profile: _p, ...legacy } = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(config.vault.legacyCredentialPath('work'), JSON.stringify(legacy));
    rmSync(path);
    expect(() => attachStoredSecret(resolveSettings({}, e, config), config)).toThrow(
      'the stored secret of profile "work" was saved by an earlier agctl, which did not record the base URL it belongs to: it is not sent anywhere; log in again to profile "work"',
    );
    // a login replaces it (retireCredentials), and logout removes it
    expect((await config.vault.removeCredential('work')).removed).toBe(true);
    expect(config.vault.storedRecords('work')).toEqual([]);
  });

  it('does not open a record edited to name another base URL (the base URL is bound in the sealing)', async () => {
    const { env: e, config } = setup(PROFILES);
    await config.vault.saveCredential(WORK, 'stored-secret');
    const evil = { ...WORK, baseUrl: 'https://evil.example' };
    const record = JSON.parse(readFileSync(config.vault.credentialPath(WORK), 'utf8'));
    writeFileSync(config.vault.credentialPath(evil), JSON.stringify({ ...record, baseUrl: evil.baseUrl }));
    rmSync(config.vault.credentialPath(WORK));
    expect(() => attachStoredSecret(resolveSettings({ baseUrl: evil.baseUrl }, e, config), config)).toThrow(
      /^the stored client secret of profile "work" cannot be unsealed: it was sealed with another key than the key file .*, or its file was edited$/,
    );
  });
});
