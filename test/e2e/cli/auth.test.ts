// login / logout / auth status / auth token: the real bin/agctl.js against the
// in-process embedded server, each scenario in its own config dir so they run at once.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenUrlFor } from '../../../src/client/auth.js';
import { Vault } from '../../../src/config/vault.js';
import { cliFor, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { sendJson, tinyServer } from '../../unit/client/tiny-server.js';

const s = await startTestServer();
const work = tempDir('agctl-auth-e2e-');
let n = 0;
const configDir = () => join(work, `cfg${n++}`);
const app = s.demo.rules.appId as string;
const plain = s.plainClient;
const key = s.keyClient;
const mode = (p: string) => statSync(p).mode & 0o777;

/** Everything a run printed must be free of these. */
function expectNoSecrets(r: CliResult, ...secrets: string[]) {
  const all = r.stdout + r.stderr;
  for (const x of [plain.clientSecret, key.clientSecret, key.clientSecret.split(':v1:')[1]!, ...secrets]) expect(all).not.toContain(x);
  expect(all).not.toMatch(/agt_[A-Za-z0-9_-]{10}/); // access tokens of the embedded server
  expect(all).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/); // a JWT (client assertion)
}

function expectNoStack(r: CliResult) {
  expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

describe('login', () => {
  it('works in both secret forms, from stdin, a file and the environment, and saves the profile sealed', async () => {
    const secretFile = join(work, 'key-secret.txt');
    writeFileSync(secretFile, key.clientSecret + '\n', { mode: 0o600 });
    const dirs = { stdin: configDir(), file: configDir(), env: configDir() };
    const [viaStdin, viaFile, viaEnv] = await Promise.all([
      cliFor(dirs.stdin)(['login', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], {
        input: plain.clientSecret + '\n',
      }),
      cliFor(dirs.file)([
        'login',
        '--base-url',
        s.baseUrl,
        '--client-id',
        key.clientId,
        '--client-secret-file',
        secretFile,
        '--profile',
        'admin',
        '-o',
        'json',
      ]),
      cliFor(dirs.env)(['login', '--profile', 'ci'], {
        env: { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_ID: plain.clientId, AGCTL_CLIENT_SECRET: plain.clientSecret },
      }),
    ]);
    for (const r of [viaStdin, viaFile, viaEnv]) {
      expect(r.code, r.stderr).toBe(0);
      expectNoSecrets(r);
    }
    expect(viaStdin.stderr).toContain(`Logged in to ${s.baseUrl} as ${plain.clientId} (profile "default")`);
    expect(viaFile.json()).toEqual({
      profile: 'admin',
      baseUrl: s.baseUrl,
      clientId: key.clientId,
      secretForm: 'key',
      secretKeptIn: 'file',
      tokenExpiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      currentProfile: 'admin',
    });

    for (const [dir, profile, client] of [
      [dirs.stdin, 'default', plain],
      [dirs.file, 'admin', key],
      [dirs.env, 'ci', plain],
    ] as const) {
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      expect(config.profiles[profile]).toEqual({ baseUrl: s.baseUrl, clientId: client.clientId });
      expect(config.currentProfile).toBe(profile);
      const cred = new Vault(dir, {}).credentialPath({ profile, baseUrl: s.baseUrl, clientId: client.clientId });
      expect(mode(cred)).toBe(0o600);
      expect(mode(join(dir, 'credentials'))).toBe(0o700);
      expect(mode(dir)).toBe(0o700);
      expect(readFileSync(cred, 'utf8')).not.toContain(client.clientSecret);
      const token = new Vault(dir, {}).loadToken(profile, tokenUrlFor(s.baseUrl), client.clientId);
      expect(token?.accessToken).toMatch(/^agt_/);
      expect(readFileSync(new Vault(dir, {}).tokenPath(profile, tokenUrlFor(s.baseUrl), client.clientId), 'utf8')).not.toContain(
        token!.accessToken,
      );
    }

    // The saved profiles work on their own: no env, no flags.
    const lists = await Promise.all([
      cliFor(dirs.stdin)(['rules', 'list', app, '-o', 'json']),
      cliFor(dirs.file)(['rules', 'list', app, '-o', 'json', '--limit', '2']),
    ]);
    expect(lists.map((r) => r.code)).toEqual([0, 0]);
    expect(lists[0]!.json()).toHaveLength(s.demo.rules.count);
    expect(lists[1]!.json()).toHaveLength(2);
  });

  it('with a wrong secret exits 3 and saves nothing', async () => {
    const dir = configDir();
    const cli = cliFor(dir);
    const [plainWrong, keyWrong, jsonWrong] = await Promise.all([
      cli(['login', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], { input: 'not-the-secret' }),
      cliFor(configDir())(['login', '--base-url', s.baseUrl, '--client-id', key.clientId, '--client-secret-stdin'], {
        input:
          key.clientSecret.replace(/:v1:.*/, ':v1:') +
          Buffer.from('{"kty":"OKP","crv":"Ed25519","x":"AAAA","d":"AAAA"}').toString('base64url'),
      }),
      cliFor(configDir())(['login', '-o', 'json', '--base-url', s.baseUrl, '--client-id', 'nobody', '--client-secret-stdin'], {
        input: 'x',
      }),
    ]);
    for (const r of [plainWrong, keyWrong, jsonWrong]) {
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toBe('');
      expectNoStack(r);
    }
    expect(plainWrong.stderr).toMatch(
      /^agctl: authentication failed: client authentication failed \(invalid_client\)\nhint: check the client ID and secret\n$/,
    );
    expect(keyWrong.stderr).toMatch(/^agctl: (authentication failed|the client secret is unusable)/);
    expect(JSON.parse(jsonWrong.stderr)).toEqual({
      error: {
        code: 'invalid_client',
        message: 'authentication failed: client authentication failed (invalid_client)',
        hint: 'check the client ID and secret',
        exitCode: 3,
        status: 401,
        details: [],
      },
    });
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect(existsSync(join(dir, 'credentials'))).toBe(false);
    expect(existsSync(join(dir, 'tokens')) ? readdirSync(join(dir, 'tokens')) : []).toEqual([]);
  });

  it('with a wrong secret leaves an earlier login of the profile untouched', async () => {
    const cli = cliFor(configDir());
    expect(
      (await cli(['login', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], { input: plain.clientSecret }))
        .code,
    ).toBe(0);
    expect(
      (await cli(['login', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], { input: 'wrong' })).code,
    ).toBe(3);
    const r = await cli(['rules', 'list', app, '--limit', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('reports a token endpoint that redirects (exit 9) or fails in one clean line, saving nothing', async () => {
    const t = await tinyServer();
    t.reset((req, res) => {
      const scenario = new URLSearchParams(req.body).get('client_id');
      if (scenario === 'redirect') return res.writeHead(302, { location: `${t.url}/elsewhere/auth/v1/token`, 'content-length': 0 }).end();
      if (scenario === 'bare-500') return res.writeHead(500, { 'content-type': 'text/html', 'content-length': 6 }).end('<html>');
      if (scenario === 'oauth-500') return sendJson(res, 500, { error: 'server_error', error_description: 'database unavailable' });
      if (scenario === 'oauth-400') return sendJson(res, 400, { error: 'unsupported_grant_type' });
      sendJson(res, 404, {});
    });
    const login = (scenario: string, dir = configDir()) =>
      cliFor(dir)(['login', '--base-url', t.url, '--client-id', scenario, '--client-secret-stdin'], { input: 'plain-secret' });
    const dir = configDir();
    const [redirect, bare, oauth500, oauth400] = await Promise.all([
      login('redirect', dir),
      login('bare-500'),
      login('oauth-500'),
      login('oauth-400'),
    ]);
    expect([redirect.code, bare.code, oauth500.code, oauth400.code]).toEqual([9, 9, 9, 7]);
    expect(redirect.stderr).toBe(
      `agctl: the server redirected to ${t.url}/elsewhere/auth/v1/token (HTTP 302); agctl does not follow redirects\nhint: check --base-url\n`,
    );
    expect(bare.stderr).toBe('agctl: token request failed: HTTP 500 Internal Server Error\n');
    expect(oauth500.stderr).toBe('agctl: token request failed: HTTP 500 Internal Server Error: database unavailable (server_error)\n');
    expect(oauth400.stderr).toBe('agctl: token request failed: HTTP 400 Bad Request (unsupported_grant_type)\n');
    // the redirect was not followed, and nothing was saved
    expect(t.seen.map((x) => `${x.path} ${new URLSearchParams(x.body).get('client_id')}`).sort()).toEqual([
      '/auth/v1/token bare-500',
      '/auth/v1/token oauth-400',
      '/auth/v1/token oauth-500',
      '/auth/v1/token redirect',
    ]);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect(existsSync(join(dir, 'credentials'))).toBe(false);
  });

  it('without a terminal, a missing value is a usage error naming the flag and the env var', async () => {
    const cli = cliFor(configDir());
    const [noId, noUrl, noSecret] = await Promise.all([
      cli(['login']),
      cli(['login', '--client-id', 'plain-bot']),
      cli(['login', '--client-id', plain.clientId, '--base-url', s.baseUrl]),
    ]);
    expect([noId.code, noUrl.code, noSecret.code]).toEqual([2, 2, 2]);
    expect(noId.stderr).toBe('agctl: missing client ID: pass --client-id or set AGCTL_CLIENT_ID\n');
    expect(noUrl.stderr).toMatch(/^agctl: missing base URL: pass --base-url or set AGCTL_BASE_URL\n/);
    expect(noSecret.stderr).toMatch(
      /^agctl: missing client secret: provide it with --client-secret-stdin, --client-secret-file, AGCTL_CLIENT_SECRET/,
    );
  });
});

describe('auth status, auth token, logout', () => {
  it('status shows profile, base URL, client ID and expiry, never the token or secret; token prints a working token; logout removes both', async () => {
    const dir = configDir();
    const cli = cliFor(dir);
    expect(
      (
        await cli(['login', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin', '--profile', 'ci'], {
          input: plain.clientSecret,
        })
      ).code,
    ).toBe(0);

    const [status, statusJson, tok, tok2] = await Promise.all([
      cli(['auth', 'status']),
      cli(['auth', 'status', '-o', 'json']),
      cli(['auth', 'token']),
      cli(['auth', 'token', '-o', 'json']),
    ]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Profile:\s+ci \(from config\)$/m);
    expect(status.stdout).toMatch(new RegExp(`^Base URL:\\s+${s.baseUrl.replace(/\./g, '\\.')}$`, 'm'));
    expect(status.stdout).toMatch(new RegExp(`^Client ID:\\s+${plain.clientId}$`, 'm'));
    expect(status.stdout).toMatch(/^Credentials:\s+plain client secret stored \(sealed\)$/m);
    expect(status.stdout).toMatch(/^Token:\s+valid until \d{4}-\d\d-\d\dT[\d:.]+Z \(in \d+m\)$/m);
    expect(statusJson.json()).toMatchObject({
      profile: 'ci',
      loggedIn: true,
      baseUrl: s.baseUrl,
      clientId: plain.clientId,
      token: { state: 'valid' },
    });

    const token = tok.stdout.trim();
    expect(tok.code).toBe(0);
    expect(token).toMatch(/^agt_/);
    expect(tok.stdout).toBe(`${token}\n`);
    expect(tok2.json()).toEqual({ accessToken: token, baseUrl: s.baseUrl }); // the cached token
    for (const r of [status, statusJson]) expectNoSecrets(r, token);
    const use = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=1`, {
      auth: false,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(use.status).toBe(200);

    const out = await cli(['logout']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe('✓ Logged out of profile "ci": removed the stored client secret and 1 cached token\n');
    expect(readdirSync(join(dir, 'credentials'))).toEqual([]);
    expect(readdirSync(join(dir, 'tokens'))).toEqual([]);

    const [after, afterJson, list, again] = await Promise.all([
      cli(['auth', 'status']),
      cli(['auth', 'status', '-o', 'json']),
      cli(['rules', 'list', app]),
      cli(['logout', '-o', 'json']),
    ]);
    expect(after.code).toBe(3);
    expect(after.stdout).toMatch(/^Credentials:\s+none$/m);
    expect(after.stdout).toMatch(/^Token:\s+none cached$/m);
    expect(after.stderr).toContain('hint: run `agctl login`');
    expect(afterJson.code).toBe(3);
    expect(afterJson.json()).toMatchObject({ profile: 'ci', loggedIn: false, token: { state: 'none' } });
    expect(list.code).toBe(3);
    expect(list.stderr).toMatch(/^agctl: not logged in: no client secret for profile "ci"\nhint: /);
    expect(again.json()).toEqual({ profile: 'ci', removedSecret: false, removedTokens: 0 });
  });

  it('status exits 3 for a fresh config, and token exits 3 without credentials', async () => {
    const cli = cliFor(configDir());
    const [status, token] = await Promise.all([cli(['auth', 'status']), cli(['auth', 'token'], { env: { AGCTL_BASE_URL: s.baseUrl } })]);
    expect(status.code).toBe(3);
    expect(status.stdout).toMatch(/^Profile:\s+default$/m);
    expect(token.code).toBe(3);
    expect(token.stdout).toBe('');
    expect(token.stderr).toMatch(/^agctl: not logged in: no client ID for profile "default"/);
  });
});

describe('AGCTL_ACCESS_TOKEN', () => {
  it('is used as is: no token request, nothing cached; a refused one is not retried', async () => {
    const dir = configDir();
    const token = await s.token();
    const cli = cliFor(dir, { AGCTL_BASE_URL: s.baseUrl });
    const [ok, status, bad] = await Promise.all([
      cli(['rules', 'list', app, '-o', 'json', '--limit', '3'], { env: { AGCTL_ACCESS_TOKEN: token } }),
      cli(['auth', 'status', '-o', 'json'], { env: { AGCTL_ACCESS_TOKEN: token } }),
      cli(['rules', 'list', app, '--debug'], {
        env: { AGCTL_ACCESS_TOKEN: 'agt_not-a-real-token', AGCTL_CLIENT_ID: plain.clientId, AGCTL_CLIENT_SECRET: plain.clientSecret },
      }),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json().map((r: { id: string }) => r.id)).toEqual(['ecr-001', 'ecr-002', 'ecr-003']);
    expect(status.json()).toMatchObject({ loggedIn: true, credentials: 'access token from AGCTL_ACCESS_TOKEN' });
    expect(JSON.stringify(status.json())).not.toContain(token);
    expect(bad.code).toBe(3);
    expect(bad.stderr.match(/\[debug\] > GET /g)).toHaveLength(1);
    expect(bad.stderr).not.toContain('/auth/v1/token');
    expect(bad.stderr).not.toContain('agt_not-a-real-token');
    expect(existsSync(join(dir, 'tokens'))).toBe(false);
  });
});

describe('auth status with AGCTL_ACCESS_TOKEN', () => {
  it("does not report the profile's cached token, which is not the one used", async () => {
    const dir = configDir();
    const cli = cliFor(dir);
    const login = await cli(['login', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], {
      input: plain.clientSecret,
    });
    expect(login.code, login.stderr).toBe(0);
    const env = { AGCTL_ACCESS_TOKEN: await s.token() };
    const [json, table] = await Promise.all([cli(['auth', 'status', '-o', 'json'], { env }), cli(['auth', 'status'], { env })]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json()).toMatchObject({
      loggedIn: true,
      credentials: 'access token from AGCTL_ACCESS_TOKEN',
      token: { state: 'unknown', source: 'AGCTL_ACCESS_TOKEN' },
    });
    expect(json.stdout).not.toContain('expiresAt');
    expect(table.stdout).toMatch(/^Token:\s+from AGCTL_ACCESS_TOKEN \(expiry not known\)$/m);
    expect(table.stdout).not.toMatch(/valid until/);
  });
});

describe('--debug', () => {
  it('logs requests and responses with the secret, the assertion and the tokens redacted', async () => {
    const dir = configDir();
    const cli = cliFor(dir);
    const [loginPlain, listKey] = await Promise.all([
      cli(['login', '--debug', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], {
        input: plain.clientSecret,
      }),
      cliFor(configDir())(['rules', 'list', app, '--limit', '1', '--debug'], {
        env: { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_ID: key.clientId, AGCTL_CLIENT_SECRET: key.clientSecret },
      }),
    ]);
    expect(loginPlain.code, loginPlain.stderr).toBe(0);
    expect(listKey.code, listKey.stderr).toBe(0);
    expect(loginPlain.stderr).toContain(`[debug] > POST ${s.baseUrl}/auth/v1/token`);
    expect(loginPlain.stderr).toContain('client_secret=<redacted>');
    expect(loginPlain.stderr).toContain('"access_token":"<redacted>"');
    expect(listKey.stderr).toContain('client_assertion=<redacted>');
    expect(listKey.stderr).toContain('[debug] > authorization: Bearer <redacted>');
    expect(listKey.stderr).toContain('[debug] < 200');
    const cached = new Vault(dir, {}).loadToken('default', tokenUrlFor(s.baseUrl), plain.clientId)!.accessToken;
    expectNoSecrets(loginPlain, cached);
    expectNoSecrets(listKey);
  });
});
