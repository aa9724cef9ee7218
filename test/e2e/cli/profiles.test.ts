// Profiles: auth list, auth switch, login making its profile current, unknown
// profiles, login --no-input on an existing profile, a base URL without scheme,
// and auth status checking the credentials with the server. The CLI runs
// in-process against the in-process embedded server (and small stand-ins for
// servers that go away or lack a route), each scenario in its own config dir.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/profiles.js';
import { Vault } from '../../../src/config/vault.js';
import { tokenUrlFor } from '../../../src/client/auth.js';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../../src/cli/main.js';
import type { IO } from '../../../src/cli/io.js';
import { BIN, baseEnv, cliFor, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { closedPort, sendJson, tinyServer } from '../../unit/client/tiny-server.js';

const s = await startTestServer();
const work = tempDir('agctl-profiles-e2e-');
let n = 0;
const configDir = () => join(work, `cfg${n++}`);
const profileNames = (dir: string) => new ProfileStore(dir, { AGCTL_CONFIG_DIR: dir }).names();
const app = s.demo.rules.appId as string;
const plain = s.plainClient;
const key = s.keyClient;

function expectClean(r: CliResult) {
  const all = r.stdout + r.stderr;
  for (const x of [plain.clientSecret, key.clientSecret.split(':v1:')[1]!]) expect(all).not.toContain(x);
  expect(all).not.toMatch(/agt_[A-Za-z0-9_-]{10}/); // access tokens of the embedded server
  expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

/** A config dir with profile "default" (key client) and "ci" (plain client), both logged in to the test server. */
async function twoProfiles() {
  const dir = configDir();
  const cli = cliFor(dir);
  const first = await cli(['login', '--base-url', s.baseUrl, '--client-id', key.clientId, '--client-secret-stdin'], {
    input: key.clientSecret,
  });
  expect(first.code, first.stderr).toBe(0);
  const second = await cli(['login', '--profile', 'ci', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], {
    input: plain.clientSecret,
  });
  expect(second.code, second.stderr).toBe(0);
  return { dir, cli, first, second };
}

const currentOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).currentProfile;

describe('login and the current profile', () => {
  it('makes the profile logged in to current and says so; --no-switch keeps the current one', async () => {
    const { dir, cli, first, second } = await twoProfiles();
    expect(first.stderr).toContain('current profile: "default"');
    expect(second.stderr).toContain('current profile: "ci"');
    expect(currentOf(dir)).toBe('ci');
    const status = await cli(['auth', 'status', '-o', 'json', '--offline']);
    expect(status.json()).toMatchObject({ profile: 'ci', clientId: plain.clientId });

    const kept = await cli(
      ['login', '--profile', 'other', '--no-switch', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'],
      { input: plain.clientSecret },
    );
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stderr).toContain('current profile: "ci" (kept); use this one with --profile other or `agctl auth switch other`');
    expect(currentOf(dir)).toBe('ci');
    const json = await cli(
      [
        'login',
        '--profile',
        'other',
        '--no-switch',
        '-o',
        'json',
        '--base-url',
        s.baseUrl,
        '--client-id',
        plain.clientId,
        '--client-secret-stdin',
      ],
      { input: plain.clientSecret },
    );
    expect(json.json()).toMatchObject({ profile: 'other', currentProfile: 'ci' });
    for (const r of [first, second, kept, json]) expectClean(r);
  });

  it('with AGCTL_PROFILE set to another profile, says that it still wins', async () => {
    const { cli } = await twoProfiles();
    const r = await cli(['login', '--profile', 'third', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], {
      input: plain.clientSecret,
      env: { AGCTL_PROFILE: 'ci' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('current profile: "third"; AGCTL_PROFILE=ci overrides it in this shell');
  });
});

describe('where the secret is kept', () => {
  it('with CI set (as here) or AGCTL_CONFIG_KEY: sealed with that key; login warns once when it tried no keyring for CI, not for the variable', async () => {
    const dir = configDir();
    const cli = cliFor(dir);
    const ci = await cli(['login', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], {
      input: plain.clientSecret,
    });
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stderr.split('\n').filter((l) => l.startsWith('! '))).toEqual([
      `! no OS keyring (the CI variable is set (CI=1)): the secret is sealed with the key file ${join(dir, 'key')} instead, which anyone who copies ${dir} has too`,
    ]);
    expect((await cli(['auth', 'status', '--offline'])).stdout).toMatch(
      new RegExp(`^Secret kept in:\\s+file \\(sealed with the key file ${join(dir, 'key').replace(/[.]/g, '\\.')}\\)$`, 'm'),
    );

    const env = { AGCTL_CONFIG_KEY: 'ab'.repeat(32) };
    const withKey = await cli(
      ['login', '--profile', 'k', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'],
      { input: plain.clientSecret, env },
    );
    expect(withKey.code, withKey.stderr).toBe(0);
    expect(withKey.stderr).not.toMatch(/^! /m);
    expect(withKey.stderr).toContain(`credentials saved in ${dir}, sealed with AGCTL_CONFIG_KEY`);
    expect((await cli(['auth', 'status', '--offline', '--profile', 'k'], { env })).stdout).toMatch(
      /^Secret kept in:\s+file \(sealed with AGCTL_CONFIG_KEY\)$/m,
    );
  });
});

describe('a login again where no keyring answers', () => {
  it('says that the key of the earlier login is left in the OS keyring, naming the entry', async () => {
    const dir = configDir();
    // logged in before where a keyring answered
    const earlier = new Vault(dir, {}, async () => ({ get: async () => undefined, set: async () => {}, delete: async () => true }));
    await new ProfileStore(dir).save('p', { baseUrl: s.baseUrl, clientId: plain.clientId }, true);
    expect((await earlier.saveCredential({ profile: 'p', baseUrl: s.baseUrl, clientId: plain.clientId }, plain.clientSecret)).keptIn).toBe(
      'keyring',
    );
    const r = await cliFor(dir)(
      ['login', '--profile', 'p', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'],
      { input: plain.clientSecret },
    );
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('! '));
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toBe(
      `! the key of the earlier login of profile "p" could not be removed from the OS keyring (the CI variable is set (CI=1)): remove the entry "${earlier.keyringAccount('p')}" of service "agctl" by hand`,
    );
  });
});

describe('logout', () => {
  it('removes the cached tokens of its profile only, even when another profile has the same client and base URL', async () => {
    const dir = configDir();
    const cli = cliFor(dir);
    for (const profile of ['a', 'b']) {
      const r = await cli(
        ['login', '--profile', profile, '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'],
        { input: plain.clientSecret },
      );
      expect(r.code, r.stderr).toBe(0);
    }
    const before = await cli(['auth', 'token', '--profile', 'b']);
    expect(before.code, before.stderr).toBe(0);
    const out = await cli(['logout', '--profile', 'a', '-o', 'json']);
    expect(out.json()).toEqual({ profile: 'a', removedSecret: true, removedTokens: 1 });
    // b's token is still cached: the same one comes back, no new one is fetched
    const after = await cli(['auth', 'token', '--profile', 'b']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toBe(before.stdout);
    expect((await cli(['auth', 'status', '--offline', '--profile', 'b', '-o', 'json'])).json().token.state).toBe('valid');
    expect((await cli(['auth', 'status', '--offline', '--profile', 'a', '-o', 'json'])).json().token.state).toBe('none');
  });
});

describe('auth list', () => {
  it('lists the profiles with the current one marked and the cached token expiry, never a token or secret', async () => {
    const { dir, cli } = await twoProfiles();
    const [table, json] = await Promise.all([cli(['auth', 'list']), cli(['auth', 'list', '-o', 'json'])]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CURRENT\s+NAME\s+BASE URL\s+CLIENT ID\s+SECRET\s+TOKEN\s+EXPIRES$/);
    expect(lines).toHaveLength(3);
    // On a pipe the expiry is the time itself (on a terminal, its age: see below).
    expect(lines[1]).toMatch(
      new RegExp(`^\\*\\s+ci\\s+${s.baseUrl}\\s+${plain.clientId}\\s+file\\s+valid\\s+\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z$`),
    );
    expect(lines[2]).toMatch(
      new RegExp(`^\\s+default\\s+${s.baseUrl}\\s+${key.clientId.replace(/[.]/g, '\\.')}\\s+file\\s+valid\\s+\\d{4}-`),
    );
    expect(json.json()).toEqual([
      {
        name: 'ci',
        current: true,
        baseUrl: s.baseUrl,
        clientId: plain.clientId,
        secretStored: true,
        secretKeptIn: 'file',
        token: { state: 'valid', expiresAt: expect.any(String), expiresIn: expect.any(Number) },
      },
      {
        name: 'default',
        current: false,
        baseUrl: s.baseUrl,
        clientId: key.clientId,
        secretStored: true,
        secretKeptIn: 'file',
        token: { state: 'valid', expiresAt: expect.any(String), expiresIn: expect.any(Number) },
      },
    ]);
    for (const r of [table, json]) expectClean(r);

    // On a terminal the expiry is its age, as every time in a table, never a timestamp beside an age.
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 200, rows: 50 });
    let shown = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (shown += d));
    const io: IO = {
      stdin: Readable.from([]),
      stdout,
      stderr: new PassThrough(),
      isStdoutTTY: true,
      isStdinTTY: false,
      isStderrTTY: false,
      onInterrupt: () => () => {},
      onTerminate: () => () => {},
    };
    expect(await main(['node', BIN, 'auth', 'list'], { io, env: baseEnv(dir) })).toBe(0);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(shown.split('\n')[1]).toMatch(/\s+valid\s+in \d+(m|h)$/);
    expect(shown).not.toMatch(/\d{4}-\d\d-\d\dT/);

    // After logout the profile stays, logged out.
    expect((await cli(['logout', '--profile', 'default'])).code).toBe(0);
    const after = await cli(['auth', 'list', '-o', 'json']);
    expect(after.json()[1]).toMatchObject({ name: 'default', secretStored: false, token: { state: 'none' } });
    expect((await cli(['auth', 'list'])).stdout).toMatch(/^\s+default\s+\S+\s+\S+\s+-\s+logged out\s+-$/m);

    // The function completion uses.
    expect(profileNames(dir)).toEqual(['ci', 'default']);
    expect(profileNames(join(work, 'none'))).toEqual([]);
  });

  it('without profiles points to agctl login (exit 0); -o json is []', async () => {
    const cli = cliFor(configDir());
    const [table, json] = await Promise.all([cli(['auth', 'list']), cli(['auth', 'list', '-o', 'json'])]);
    expect(table.code).toBe(0);
    expect(table.stdout).toBe('');
    expect(table.stderr).toBe('No profiles yet: run `agctl login` (or `agctl login --profile NAME`) to create one\n');
    expect(json.json()).toEqual([]);
  });

  it('works with AGCTL_PROFILE naming no profile, and notes it', async () => {
    const { cli } = await twoProfiles();
    const r = await cli(['auth', 'list'], { env: { AGCTL_PROFILE: 'nosuch' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('note: AGCTL_PROFILE=nosuch overrides the current profile in this environment, and names no saved profile\n');
  });
});

describe('auth switch', () => {
  it('makes a saved profile current: later commands use it', async () => {
    const { dir, cli } = await twoProfiles();
    const r = await cli(['auth', 'switch', 'default']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`✓ Switched to profile "default" (${s.baseUrl} as ${key.clientId})\n`);
    expect(currentOf(dir)).toBe('default');
    const [status, list] = await Promise.all([
      cli(['auth', 'status', '-o', 'json', '--offline']),
      cli(['rules', 'list', app, '--limit', '1', '-o', 'json']),
    ]);
    expect(status.json()).toMatchObject({ profile: 'default', clientId: key.clientId });
    expect(list.code, list.stderr).toBe(0);
    const json = await cli(['auth', 'switch', 'ci', '-o', 'json']);
    expect(json.json()).toEqual({ profile: 'ci', previous: 'default', baseUrl: s.baseUrl, clientId: plain.clientId });
    expect(currentOf(dir)).toBe('ci');
  });

  it('warns when AGCTL_PROFILE still wins', async () => {
    const { cli } = await twoProfiles();
    const r = await cli(['auth', 'switch', 'default'], { env: { AGCTL_PROFILE: 'ci' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('! AGCTL_PROFILE=ci is set: it still wins in this environment (unset it to use "default")');
  });

  it('refuses an unknown profile (exit 2) listing the saved ones, and changes nothing', async () => {
    const { dir, cli } = await twoProfiles();
    const [r, json, bad] = await Promise.all([
      cli(['auth', 'switch', 'nosuch']),
      cli(['auth', 'switch', 'nosuch', '-o', 'json']),
      cli(['auth', 'switch', '../x']),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'agctl: unknown profile "nosuch": the profiles are ci, default\nhint: run `agctl login --profile nosuch` to create it, or `agctl auth list` to see the profiles\n',
    );
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'usage',
        message: 'unknown profile "nosuch": the profiles are ci, default',
        hint: 'run `agctl login --profile nosuch` to create it, or `agctl auth list` to see the profiles',
        exitCode: 2,
        status: null,
        details: [],
      },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^agctl: invalid profile name "\.\.\/x"/);
    expect(currentOf(dir)).toBe('ci');
    const none = await cliFor(configDir())(['auth', 'switch', 'ci']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /^agctl: unknown profile "ci": no profile is saved yet\nhint: run `agctl login --profile ci` to create it\n$/,
    );
  });
});

describe('an unknown profile', () => {
  it('is a usage error naming it and the saved profiles, from --profile, AGCTL_PROFILE or the config', async () => {
    const { dir, cli } = await twoProfiles();
    const [flag, env, status, logout, token] = await Promise.all([
      cli(['--profile', 'nosuch', 'rules', 'list', app]),
      cli(['rules', 'list', app], { env: { AGCTL_PROFILE: 'nosuch' } }),
      cli(['auth', 'status', '--profile', 'nosuch']),
      cli(['logout', '--profile', 'nosuch']),
      cli(['auth', 'token'], {
        env: {
          AGCTL_PROFILE: 'nosuch',
          AGCTL_BASE_URL: s.baseUrl,
          AGCTL_CLIENT_ID: plain.clientId,
          AGCTL_CLIENT_SECRET: plain.clientSecret,
        },
      }),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      'agctl: unknown profile "nosuch" (from --profile): the profiles are ci, default\nhint: run `agctl login --profile nosuch` to create it, or `agctl auth list` to see the profiles\n',
    );
    expect(env.stderr).toMatch(/^agctl: unknown profile "nosuch" \(from AGCTL_PROFILE\): the profiles are ci, default\n/);
    for (const r of [env, status, logout, token]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('unknown profile "nosuch"');
      expect(r.stdout).toBe('');
    }

    // A current profile removed from the config by hand.
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, currentProfile: 'gone' }));
    const gone = await cli(['rules', 'list', app]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(
      `agctl: unknown profile "gone" (from the current profile in ${join(dir, 'config.json')}): the profiles are ci, default`,
    );
  });

  it('in a fresh config says no profile is saved; the implicit "default" is not checked', async () => {
    const cli = cliFor(configDir());
    const [named, implicit] = await Promise.all([cli(['--profile', 'nosuch', 'rules', 'list', app]), cli(['rules', 'list', app])]);
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(/^agctl: unknown profile "nosuch" \(from --profile\): no profile is saved yet\n/);
    expect(implicit.code).toBe(2);
    expect(implicit.stderr).toMatch(/^agctl: no base URL configured/);
  });

  it('is created by login; --embedded ignores the profile', async () => {
    const dir = configDir();
    const cli = cliFor(dir);
    const login = await cli(['login', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], {
      input: plain.clientSecret,
      env: { AGCTL_PROFILE: 'fresh' },
    });
    expect(login.code, login.stderr).toBe(0);
    expect(profileNames(dir)).toEqual(['fresh']);
  });
});

describe('login --no-input on an existing profile', () => {
  it('takes the client ID and base URL from the profile (a new secret for the same client)', async () => {
    const { cli } = await twoProfiles();
    const r = await cli(['login', '--profile', 'ci', '--no-input', '--client-secret-stdin', '-o', 'json'], { input: plain.clientSecret });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ profile: 'ci', baseUrl: s.baseUrl, clientId: plain.clientId });
    // A wrong secret for the same profile is refused, and the saved secret stays.
    const wrong = await cli(['login', '--profile', 'ci', '--no-input', '--client-secret-stdin'], { input: 'wrong' });
    expect(wrong.code).toBe(3);
    expect((await cli(['rules', 'list', app, '--limit', '1', '--profile', 'ci'])).code).toBe(0);
    // Without a saved client ID it still names the flag.
    const none = await cliFor(configDir())(['login', '--no-input', '--client-secret-stdin'], { input: 'x' });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('agctl: missing client ID: pass --client-id or set AGCTL_CLIENT_ID\n');
  });
});

describe('a base URL without scheme at login', () => {
  it('is taken as https (shown), never as plain http', async () => {
    const host = new URL(s.baseUrl).host; // the test server speaks plain http
    const dir = configDir();
    const r = await cliFor(dir)(['login', '--base-url', host, '--client-id', plain.clientId, '--client-secret-stdin'], {
      input: plain.clientSecret,
    });
    expect(r.stderr).toContain(`Base URL: https://${host} (https:// assumed; write http:// out for a plain-http server)`);
    // https to a plain-http server fails; nothing is saved and no secret went out in clear.
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/TLS|plain HTTP/);
    expect(profileNames(dir)).toEqual([]);
  });
});

describe('auth status checks with the server', () => {
  it('says the credentials are accepted, with the user they act as', async () => {
    const { cli } = await twoProfiles();
    const [table, json] = await Promise.all([cli(['auth', 'status']), cli(['auth', 'status', '-o', 'json', '--profile', 'default'])]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^Server:\s+credentials accepted \(user \S+\)$/m);
    expect(json.json()).toMatchObject({
      profile: 'default',
      loggedIn: true,
      token: { state: 'valid' },
      server: { state: 'accepted', userId: expect.any(String) },
    });
    expect(json.json().server.userId).not.toBe('');
    for (const r of [table, json]) expectClean(r);
  });

  it('says when AGCTL_ACCESS_TOKEN or AGCTL_CLIENT_SECRET is refused (exit 3), keeping what it knows offline', async () => {
    const cli = cliFor(configDir(), { AGCTL_BASE_URL: s.baseUrl });
    const [token, secret, offline] = await Promise.all([
      cli(['auth', 'status'], { env: { AGCTL_ACCESS_TOKEN: 'agt_not-a-real-token' } }),
      cli(['auth', 'status', '-o', 'json'], { env: { AGCTL_CLIENT_ID: plain.clientId, AGCTL_CLIENT_SECRET: 'wrong' } }),
      cli(['auth', 'status', '--offline', '-o', 'json'], { env: { AGCTL_CLIENT_ID: plain.clientId, AGCTL_CLIENT_SECRET: 'wrong' } }),
    ]);
    expect(token.code).toBe(3);
    expect(token.stdout).toMatch(/^Server:\s+AGCTL_ACCESS_TOKEN was refused: /m);
    expect(token.stdout).toMatch(/^Token:\s+from AGCTL_ACCESS_TOKEN, not accepted by the server$/m);
    expect(token.stdout).toMatch(/^Base URL:\s+http:\/\/127\.0\.0\.1:\d+ \(from env\)$/m);
    expect(token.stderr).toBe('hint: set AGCTL_ACCESS_TOKEN to a valid token, or unset it to use the profile\n');
    expect(secret.code).toBe(3);
    expect(secret.json()).toMatchObject({
      loggedIn: false,
      clientId: plain.clientId,
      server: {
        state: 'refused',
        message: expect.stringMatching(/^the client secret from AGCTL_CLIENT_SECRET was refused: authentication failed/),
      },
    });
    expect(offline.code).toBe(0);
    expect(offline.json()).toMatchObject({ server: { state: 'not-checked' } });
  });

  it('says when the server cannot be reached (exit 9), or has no introspect route (accepted)', async () => {
    const t = await tinyServer();
    t.reset((req, res) => {
      if (req.path === '/auth/v1/token') return sendJson(res, 200, { access_token: 'stand-in-token', expires_in: 3600 });
      sendJson(res, 404, { code: 5, message: 'no such route' });
    });
    const dir = configDir();
    const cli = cliFor(dir);
    const login = await cli(['login', '--base-url', t.url, '--client-id', 'bot', '--client-secret-stdin'], { input: 'stand-in-secret' });
    expect(login.code, login.stderr).toBe(0);
    const ok = await cli(['auth', 'status', '-o', 'json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ server: { state: 'accepted', userId: '' } });
    expect(t.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /auth/v1/token',
      'POST /auth/v1/token',
      'GET /api/v1/auth/introspect',
    ]);
    expect(t.seen[2]!.headers.authorization).toBe('Bearer stand-in-token');

    // The same profile's client pointed at a port nothing listens on (its secret given for this call).
    const gone = `http://127.0.0.1:${await closedPort()}`;
    const down = await cli(['auth', 'status'], { env: { AGCTL_BASE_URL: gone, AGCTL_CLIENT_SECRET: 'stand-in-secret' } });
    expect(down.code).toBe(9);
    expect(down.stdout).toMatch(new RegExp(`^Server:\\s+unreachable: cannot reach ${gone}`, 'm'));
    expect(down.stdout).toMatch(/^Profile:\s+default \(from config\)$/m);
    expect(down.stdout).toMatch(/^Client ID:\s+bot$/m);
    expect(down.stderr).toMatch(/^hint: is the server running\?/);
  });
});

describe('hints to log in again name the profile in use', () => {
  /** Profile p2 logged in, then its secret revoked: the stored one is no longer the server's, and no token is cached. */
  async function revoked() {
    const dir = configDir();
    const cli = cliFor(dir);
    const login = await cli(
      ['login', '--profile', 'p2', '--no-switch', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'],
      { input: plain.clientSecret },
    );
    expect(login.code, login.stderr).toBe(0);
    const vault = new Vault(dir, { CI: '1' });
    await vault.saveCredential({ profile: 'p2', baseUrl: s.baseUrl, clientId: plain.clientId }, 'revoked-secret');
    vault.removeToken('p2', tokenUrlFor(s.baseUrl), plain.clientId);
    return { dir, cli };
  }

  it('--profile p2 or AGCTL_PROFILE=p2 with a revoked secret: the hint says `agctl login --profile p2`', async () => {
    const { cli } = await revoked();
    const [flag, env, json] = await Promise.all([
      cli(['rules', 'list', app, '--profile', 'p2']),
      cli(['rules', 'list', app], { env: { AGCTL_PROFILE: 'p2' } }),
      cli(['rules', 'list', app, '--profile', 'p2', '-o', 'json']),
    ]);
    for (const r of [flag, env]) {
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/^agctl: authentication failed/);
      expect(r.stderr).toContain('\nhint: check the client ID and secret, or run `agctl login --profile p2`\n');
    }
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr).error.hint).toBe('check the client ID and secret, or run `agctl login --profile p2`');
  });

  it('auth status names it too; the current profile needs no --profile', async () => {
    const { dir, cli } = await revoked();
    new Vault(dir, {}).removeCredential('p2');
    const [named, current] = await Promise.all([cli(['auth', 'status', '--profile', 'p2']), cli(['auth', 'status'])]);
    expect(named.code).toBe(3);
    expect(named.stderr).toBe('hint: run `agctl login --profile p2`\n');
    expect(current.code).toBe(3);
    expect(current.stderr).toBe('hint: run `agctl login`\n');
  });
});
