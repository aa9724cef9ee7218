// A profile's stored secret and cached tokens belong to the base URL it was
// logged in to (DESIGN.md §5). A second server on 127.0.0.1 records every
// request it gets; commands are pointed at it with --base-url and with
// AGCTL_BASE_URL while profiles for the real test server are logged in (plain
// and key secret). Nothing of theirs may arrive there: not the secret, not an
// assertion signed with it, not a cached token; in fact no request at all.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenUrlFor } from '../../../src/client/auth.js';
import { Vault } from '../../../src/config/vault.js';
import { cliFor, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { sendJson, tinyServer, type Seen } from '../../unit/client/tiny-server.js';

const s = await startTestServer();
const app = s.demo.rules.appId as string;
const mcp = s.demo.mcp as { appId: string; hosted: string };
const dir = join(tempDir('agctl-binding-e2e-'), 'cfg');
const cli = cliFor(dir);

// The capture server plays a willing tenant: it hands out a token to whatever
// credentials it gets and answers every API call, so a leaking command would
// go on to send the bearer token too.
const capture = await tinyServer();
capture.reset((req, res) => {
  if (req.path.startsWith('/auth/v1/token'))
    return sendJson(res, 200, { access_token: 'captured-token', token_type: 'Bearer', expires_in: 3600 });
  sendJson(res, 200, { list: [], nextPageToken: '', mcpServer: {} });
});

const PROFILES = { plain: s.plainClient, key: s.keyClient } as const;

/** Everything in a recorded request, as one string to search. */
const everything = (r: Seen) => `${r.method} ${r.path}\n${JSON.stringify(r.headers)}\n${r.body}`;

/** The secrets and tokens that must never reach the capture server. */
function forbidden(): string[] {
  const vault = new Vault(dir, {});
  const cached = Object.entries(PROFILES).map(([name, c]) => vault.loadToken(name, tokenUrlFor(s.baseUrl), c.clientId)?.accessToken);
  expect(cached.every(Boolean)).toBe(true); // the logins cached a token for each profile
  return [s.plainClient.clientSecret, s.keyClient.clientSecret, s.keyClient.clientSecret.split(':v1:')[1]!, ...(cached as string[])];
}

function expectNothingOfTheProfiles(seen: Seen[]) {
  for (const r of seen) {
    const all = everything(r);
    for (const secret of forbidden()) expect(all).not.toContain(secret);
    expect(all).not.toContain('client_assertion'); // only the key secret signs one: none may arrive
    expect(all).not.toContain(`client_id=${encodeURIComponent(s.keyClient.clientId)}`);
  }
}

function expectRefused(r: CliResult, profile: string, from: string) {
  expect(r.code, r.stderr).toBe(3);
  expect(r.stderr).toContain(`agctl: profile "${profile}" is logged in to ${s.baseUrl}, not to ${capture.url} (from ${from})`);
  expect(r.stderr).toContain(`agctl login --base-url ${capture.url}`);
  expect(r.stderr).toContain('AGCTL_CLIENT_SECRET');
  expect(r.stderr).not.toMatch(/^\s+at /m);
}

describe('credentials bound to the base URL they were saved for', () => {
  it('logs in both profiles, whose secrets and tokens then reach no other base URL', async () => {
    for (const [profile, client] of Object.entries(PROFILES)) {
      const login = await cli(
        ['login', '--profile', profile, '--base-url', s.baseUrl, '--client-id', client.clientId, '--client-secret-stdin'],
        { input: client.clientSecret },
      );
      expect(login.code, login.stderr).toBe(0);
    }
    const commands = [
      ['rules', 'list', app],
      ['rules', 'delete', app, 'ecr-001', '--yes'],
      ['mcp', 'get', mcp.appId, mcp.hosted],
      ['auth', 'token'],
    ];
    const runs: Promise<[CliResult, string, string, string[]]>[] = [];
    for (const profile of Object.keys(PROFILES)) {
      for (const args of commands) {
        runs.push(cli([...args, '--profile', profile, '--base-url', capture.url]).then((r) => [r, profile, '--base-url', args]));
        runs.push(
          cli([...args], { env: { AGCTL_PROFILE: profile, AGCTL_BASE_URL: `${capture.url}/` } }).then((r) => [
            r,
            profile,
            'AGCTL_BASE_URL',
            args,
          ]),
        );
      }
    }
    const results = await Promise.all(runs);
    // What reached the capture server first: that is the point of this test.
    expectNothingOfTheProfiles(capture.seen);
    expect(capture.seen).toEqual([]);
    for (const [r, profile, from, args] of results) {
      expect([args, r.stdout]).toEqual([args, '']);
      expectRefused(r, profile, from);
    }

    // auth status says where the credentials belong, sends nothing, and exits 3 (not logged in for that URL)
    const status = await cli(['auth', 'status', '--profile', 'key', '--base-url', capture.url, '-o', 'json']);
    expect(status.code).toBe(3);
    expect(status.json()).toMatchObject({
      loggedIn: false,
      baseUrl: capture.url,
      credentials: `stored (sealed) for ${s.baseUrl}, not used with ${capture.url}`,
      token: { state: 'none' },
    });
    expect(capture.seen).toEqual([]);

    // the same profiles still work with their own base URL, however it is spelled
    const own = await Promise.all([
      cli([
        'rules',
        'list',
        app,
        '--limit',
        '1',
        '-o',
        'json',
        '--profile',
        'plain',
        '--base-url',
        `${s.baseUrl.toUpperCase().replace('HTTP', 'http')}/`,
      ]),
      cli(['rules', 'list', app, '--limit', '1', '-o', 'json'], { env: { AGCTL_PROFILE: 'key', AGCTL_BASE_URL: s.baseUrl } }),
    ]);
    for (const r of own) expect([r.code, r.stderr]).toEqual([0, '']);
  }, 120_000);

  it('sends what the invocation itself gives (AGCTL_CLIENT_SECRET, AGCTL_ACCESS_TOKEN) where it says, never the stored one', async () => {
    capture.seen.length = 0;
    const [oneOffSecret, oneOffToken] = await Promise.all([
      cli(['rules', 'list', app, '-o', 'json', '--profile', 'plain', '--base-url', capture.url], {
        env: { AGCTL_CLIENT_SECRET: 'one-off-secret' },
      }),
      cli(['rules', 'list', app, '-o', 'json', '--profile', 'key'], {
        env: { AGCTL_BASE_URL: capture.url, AGCTL_ACCESS_TOKEN: 'one-off-token' },
      }),
    ]);
    for (const r of [oneOffSecret, oneOffToken]) expect([r.code, r.json()]).toEqual([0, []]);
    const tokenRequests = capture.seen.filter((r) => r.path === '/auth/v1/token');
    expect(tokenRequests.map((r) => Object.fromEntries(new URLSearchParams(r.body)))).toEqual([
      { grant_type: 'client_credentials', client_id: s.plainClient.clientId, client_secret: 'one-off-secret' },
    ]);
    expect(
      capture.seen
        .filter((r) => r.path !== '/auth/v1/token')
        .map((r) => r.headers.authorization)
        .sort(),
    ).toEqual(['Bearer captured-token', 'Bearer one-off-token']);
    expectNothingOfTheProfiles(capture.seen);
  });

  it("logout with another base URL removes the profile's credentials without sending anything", async () => {
    capture.seen.length = 0;
    const out = await cli(['logout', '--profile', 'key', '--base-url', capture.url, '-o', 'json']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.json()).toMatchObject({ profile: 'key', removedSecret: true });
    expect(capture.seen).toEqual([]);
  });

  it('login --base-url still creates or replaces (with --force, without a terminal) a profile for the new URL', async () => {
    const other = await startTestServer();
    const args = [
      'login',
      '--profile',
      'plain',
      '--base-url',
      other.baseUrl,
      '--client-id',
      other.plainClient.clientId,
      '--client-secret-stdin',
    ];
    const refused = await cli(args, { input: other.plainClient.clientSecret });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `agctl: profile "plain" is saved for ${s.baseUrl} as ${s.plainClient.clientId}: this login would replace it (base URL ${s.baseUrl} -> ${other.baseUrl}); pass --force to replace it`,
    );
    const login = await cli([...args, '--force'], { input: other.plainClient.clientSecret });
    expect(login.code, login.stderr).toBe(0);
    const [there, old] = await Promise.all([
      cli(['rules', 'list', app, '--limit', '1', '-o', 'json', '--profile', 'plain']),
      cli(['rules', 'list', app, '--profile', 'plain', '--base-url', s.baseUrl]),
    ]);
    expect([there.code, there.stderr]).toEqual([0, '']);
    // the profile now belongs to the new server: its new secret is not sent to the old one either
    expect(old.code).toBe(3);
    expect(old.stderr).toContain(`agctl: profile "plain" is logged in to ${other.baseUrl}, not to ${s.baseUrl} (from --base-url)`);
  });
});
