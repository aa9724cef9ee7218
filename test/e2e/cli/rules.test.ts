// rules list / delete, token refresh and 401 handling, exit codes and error
// output: the real bin/agctl.js against the in-process embedded server.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXIT_CODE_TABLE } from '../../../src/lib/exit.js';
import { tokenUrlFor } from '../../../src/client/auth.js';
import { Vault } from '../../../src/config/vault.js';
import { ROOT, cliFor, runCli, spawnCliProcess, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

// A read-only server for listing, a second one for deletes and clock moves.
const logs: string[] = [];
const s = await startTestServer({ log: (l) => logs.push(l) });
const mlogs: string[] = [];
const m = await startTestServer({ log: (l) => mlogs.push(l) });
const work = tempDir('agctl-rules-e2e-');
let n = 0;
const configDir = () => join(work, `cfg${n++}`);
const app = s.demo.rules.appId as string;
const ids = s.demo.rules.ids as string[];
const creds = (srv: typeof s, client = srv.plainClient) => ({
  AGCTL_BASE_URL: srv.baseUrl,
  AGCTL_CLIENT_ID: client.clientId,
  AGCTL_CLIENT_SECRET: client.clientSecret,
});
/** One logged-in config dir, shared by the listing tests (its token is fetched once). */
const cli = cliFor(configDir(), creds(s));
const rulesPath = `/api/v1/apps/${app}/entitlement_configuration_rules`;
const requests = (log: string[], prefix: string) => log.filter((l) => l.startsWith(prefix));

/** The order the server returns: priority, then ID. */
async function serverOrder(): Promise<{ id: string; priority: number }[]> {
  const r = await s.api(`${rulesPath}?page_size=250`);
  return r.body.list;
}

function expectOneErrorLine(r: CliResult, re: RegExp) {
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(re);
  expect(lines.length).toBeLessThanOrEqual(2);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
  expect(r.stderr).not.toMatch(/^\s+at /m);
}

describe('rules list', () => {
  it('follows nextPageToken across pages, in evaluation order', async () => {
    const before = requests(logs, `GET ${rulesPath}`).length;
    const r = await cli(['rules', 'list', app, '--page-size', '7', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rules = r.json();
    expect(rules.map((x: { id: string }) => x.id)).toEqual((await serverOrder()).map((x) => x.id));
    expect(rules).toHaveLength(26);
    expect([...rules.map((x: { id: string }) => x.id)].sort()).toEqual(ids);
    // 26 rules at 7 a page: 4 requests (the helper's own listing above is one more)
    expect(requests(logs, `GET ${rulesPath}`).length - before).toBe(4 + 1);
  });

  it('stops at --limit, asking only for what it needs', async () => {
    const order = (await serverOrder()).map((x) => x.id);
    const before = requests(logs, `GET ${rulesPath}`).length;
    const [ten, three, all] = await Promise.all([
      cli(['rules', 'list', app, '--limit', '10', '--page-size', '4', '-o', 'json']),
      cli(['rules', 'list', app, '--limit', '3', '-o', 'json']),
      cli(['rules', 'list', app, '--limit', '1000', '-o', 'json']),
    ]);
    expect(ten.json().map((x: { id: string }) => x.id)).toEqual(order.slice(0, 10));
    expect(three.json().map((x: { id: string }) => x.id)).toEqual(order.slice(0, 3));
    expect(all.json()).toHaveLength(26);
    expect(requests(logs, `GET ${rulesPath}`).length - before).toBe(3 + 1 + 1);
  });

  it('prints the API objects as a JSON array with -o json (also from AGCTL_OUTPUT)', async () => {
    const [flag, env] = await Promise.all([
      cli(['rules', 'list', app, '-o', 'json', '--limit', '2']),
      cli(['rules', 'list', app, '--limit', '2'], { env: { AGCTL_OUTPUT: 'json' } }),
    ]);
    expect(flag.stdout).toBe(env.stdout);
    const [first] = flag.json();
    expect(Object.keys(first).sort()).toEqual([
      'appId',
      'condition',
      'createdAt',
      'deletedAt',
      'description',
      'displayName',
      'enabled',
      'id',
      'priority',
      'settings',
      'updatedAt',
    ]);
    expect(first).toMatchObject({ id: 'ecr-001', appId: app, enabled: true, priority: 10, deletedAt: null });
    expect(Object.keys(first.settings).sort()).toEqual([
      'emergencyGrantEnabled',
      'emergencyGrantPolicyId',
      'maxGrantDuration',
      'requestPolicyId',
      'requestSchemaId',
    ]);
    expect(flag.stderr).toBe('');
  });

  it('prints a table by default, and a note for an app without rules', async () => {
    const [table, empty] = await Promise.all([cli(['rules', 'list', app]), cli(['rules', 'list', 'empty-app'])]);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PRIORITY\s+ID\s+NAME\s+ENABLED\s+CONDITION\s+REQUEST POLICY$/);
    expect(lines).toHaveLength(27);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[1])).toEqual((await serverOrder()).map((x) => x.id));
    expect(table.stdout).not.toMatch(/\x1b\[/); // NO_COLOR
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toBe('No entitlement configuration rules in app empty-app\n');
  });
});

describe('rules delete', () => {
  const mcli = cliFor(configDir(), creds(m));
  const live = async () => ((await m.api(`${rulesPath}?page_size=250`)).body.list as { id: string }[]).map((r) => r.id);

  it('needs --yes without a terminal (exit 2), and deletes nothing then', async () => {
    const r = await mcli(['rules', 'delete', app, 'ecr-001']);
    expect(r.code).toBe(2);
    expectOneErrorLine(r, /^agctl: refusing to delete without confirmation: pass --yes$/);
    expect(await live()).toContain('ecr-001');
  });

  it('deletes several rules, reports each, and exits with the worst failure', async () => {
    const r = await mcli(['rules', 'delete', app, 'ecr-010', 'ecr-nope', 'ecr-011', '--yes']);
    expect(r.code).toBe(5);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      '✓ Deleted rule ecr-010',
      `✗ rule ecr-nope: entitlement configuration rule ecr-nope not found in app ${app} (HTTP 404, NotFound)`,
      '✓ Deleted rule ecr-011',
    ]);
    const left = await live();
    expect(left).not.toContain('ecr-010');
    expect(left).not.toContain('ecr-011');
    expect(left).toHaveLength(24);

    // -o json: stdout holds the results alone; each failed rule is an error object, a line on stderr.
    const again = await mcli(['rules', 'delete', app, 'ecr-010', 'ecr-012', 'ecr-nope', '-y', '-o', 'json']);
    expect(again.code).toBe(5);
    expect(again.json()).toEqual([{ id: 'ecr-012', deleted: true }]);
    expect(
      again.stderr
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(
      ['ecr-010', 'ecr-nope'].map((id) => ({
        error: {
          id,
          code: 'not_found',
          message: `entitlement configuration rule ${id} not found in app ${app}`,
          hint: null,
          exitCode: 5,
          status: 404,
          details: [],
        },
      })),
    );
    // --jq filters the results; the errors stay on stderr
    const jq = await mcli(['rules', 'delete', app, 'ecr-016', 'ecr-nope', '-y', '--jq', '.[].id']);
    expect([jq.code, jq.stdout]).toEqual([5, 'ecr-016\n']);
    expect(JSON.parse(jq.stderr).error).toMatchObject({ id: 'ecr-nope', exitCode: 5 });
    const ok = await mcli(['rules', 'delete', app, 'ecr-013', '--yes']);
    expect([ok.code, ok.stderr]).toEqual([0, '✓ Deleted rule ecr-013\n']);
    const badSecret = await runCli(['rules', 'delete', app, 'ecr-014', 'ecr-015', '--yes'], {
      configDir: configDir(),
      env: { ...creds(m), AGCTL_CLIENT_SECRET: 'wrong' },
    });
    // Without valid credentials it stops at the first rule instead of repeating the failure.
    expect(badSecret.code).toBe(3);
    expect(badSecret.stderr.match(/^agctl: authentication failed/gm)).toHaveLength(1);
    expect(badSecret.stderr).not.toMatch(/rule ecr-01[45]/);
    expect(await live()).toContain('ecr-014');
    const unknownApp = await mcli(['rules', 'delete', 'no-such-app', 'ecr-001', '--yes']);
    expect(unknownApp.code).toBe(5);
    expect(unknownApp.stderr).toContain('app no-such-app not found');
  });
});

describe('tokens', () => {
  it('refreshes a cached token within 60 s of its expiry (client-side), without a 401', async () => {
    const dir = configDir();
    const c = cliFor(dir, creds(m));
    const first = (await c(['auth', 'token'])).stdout.trim();
    const vault = new Vault(dir, {});
    const url = tokenUrlFor(m.baseUrl);
    // The same token, now said to expire in 30 s (still valid on the server).
    vault.saveToken(
      'default',
      url,
      m.plainClient.clientId,
      { accessToken: first, expiresAt: Math.floor(Date.now() / 1000) + 30 },
      m.plainClient.clientSecret,
    );
    const status = await c(['auth', 'status', '-o', 'json', '--offline']);
    expect(status.json().token.state).toBe('expiring');
    const tokenPosts = requests(mlogs, 'POST /auth/v1/token').length;
    const r = await c(['rules', 'list', app, '--limit', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(requests(mlogs, 'POST /auth/v1/token').length - tokenPosts).toBe(1);
    const fresh = vault.loadToken('default', url, m.plainClient.clientId)!;
    expect(fresh.accessToken).not.toBe(first);
    expect(fresh.expiresAt - Date.now() / 1000).toBeGreaterThan(3000);
    expect(mlogs.slice(-3).some((l) => / 401 /.test(l))).toBe(false);
  });

  it('on a 401 for a token expired on the server (clock moved), fetches a new one and retries once', async () => {
    const dir = configDir();
    const c = cliFor(dir, creds(m));
    expect((await c(['rules', 'list', app, '--limit', '1'])).code).toBe(0);
    const url = tokenUrlFor(m.baseUrl);
    const old = new Vault(dir, {}).loadToken('default', url, m.plainClient.clientId)!;
    m.clock.advance(2 * 3600_000); // expired on the server, still valid for the client
    try {
      const mark = mlogs.length;
      const r = await c(['rules', 'list', app, '--limit', '2', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toHaveLength(2);
      const seq = mlogs.slice(mark).map((l) => l.replace(/ [\d.]+ms$/, ''));
      expect(seq).toEqual([`GET ${rulesPath} 401`, 'POST /auth/v1/token 200', `GET ${rulesPath} 200`]);
      expect(new Vault(dir, {}).loadToken('default', url, m.plainClient.clientId)!.accessToken).not.toBe(old.accessToken);
    } finally {
      m.clock.offsetMs = 0;
    }
  });

  it('on a 401 for a revoked token (key form), fetches a new one and retries once; a second 401 is exit 3', async () => {
    const dir = configDir();
    const c = cliFor(dir, creds(m, m.keyClient));
    expect((await c(['rules', 'list', app, '--limit', '1'])).code).toBe(0);
    const revoke = () => m.server.store.db.prepare('DELETE FROM access_tokens WHERE client_id = ?').run(m.keyClient.clientId);
    revoke();
    let mark = mlogs.length;
    const r = await c(['rules', 'delete', app, 'ecr-020', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(mlogs.slice(mark).map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual([
      `DELETE ${rulesPath}/ecr-020 401`,
      'POST /auth/v1/token 200',
      `DELETE ${rulesPath}/ecr-020 200`,
    ]);
    // A server that refuses every token: one retry, then exit 3.
    const trigger = 'CREATE TEMP TRIGGER revoke_all AFTER INSERT ON access_tokens BEGIN DELETE FROM access_tokens; END';
    revoke();
    m.server.store.db.exec(trigger);
    try {
      mark = mlogs.length;
      const refused = await c(['rules', 'list', app]);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/^agctl: a valid bearer access token is required \(HTTP 401, Unauthenticated\)\nhint: /);
      // the cached token is refused, a new one too: exactly one retry
      expect(mlogs.slice(mark).map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual([
        `GET ${rulesPath} 401`,
        'POST /auth/v1/token 200',
        `GET ${rulesPath} 401`,
      ]);
    } finally {
      m.server.store.db.exec('DROP TRIGGER IF EXISTS revoke_all');
    }
  });
});

describe('exit codes and errors', () => {
  it('documents them: agctl help exit-codes', async () => {
    const r = await cli(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const rows = lines.slice(1, 1 + EXIT_CODE_TABLE.length);
    expect(rows.map((l) => /^\s*(\d+) {2}(.*)$/.exec(l)!.slice(1))).toEqual(EXIT_CODE_TABLE.map(([c, t]) => [String(c), t]));
    // aligned: every meaning starts in the same column
    expect(new Set(rows.map((l) => l.search(/(?<=\d {2})\S/))).size).toBe(1);
    expect(lines[1 + EXIT_CODE_TABLE.length]).toBe('');
    expect(r.stdout).toContain('With -o json (or --jq) an error is one JSON object on stderr');
    const [env, unknown] = await Promise.all([cli(['help', 'environment']), cli(['help', 'nonsense'])]);
    expect(env.stdout).toContain('AGCTL_ACCESS_TOKEN');
    expect(unknown.code).toBe(2);
  });

  it('2 for usage errors, 3 without credentials, 5 for not found, 9 when the server cannot be reached', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const fresh = cliFor(configDir());
    const runs = await Promise.all([
      cli(['rules', 'list', app, '--limit', '0']),
      cli(['rules', 'list', app, '--bogus']),
      cli(['rules', 'list']),
      cli(['-o', 'xml', 'rules', 'list', app]),
      cli(['--profile', '../etc', 'rules', 'list', app]),
      cli(['rules', 'list', app, '--timeout', 'soon']),
      cli(['rules', 'list', app, '--base-url', 'ftp://x']),
      fresh(['rules', 'list', app], { env: { AGCTL_BASE_URL: s.baseUrl } }),
      fresh(['rules', 'list', app]),
      cli(['rules', 'list', 'no-such-app']),
      fresh(['rules', 'list', app, '--timeout', '1', '--base-url', `http://127.0.0.1:${port}`], { env: { AGCTL_ACCESS_TOKEN: 'agt_x' } }),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2, 2, 3, 2, 5, 9]);
    const [limit, bogus, missing, yaml, profile, timeout, ftp, noCreds, noUrl, notFound, refused] = runs;
    expectOneErrorLine(limit!, /^agctl: option '--limit <n>' argument '0' is invalid\. --limit must be a whole number 1 or more$/);
    expectOneErrorLine(bogus!, /^agctl: unknown option '--bogus'$/);
    expect(missing!.stderr).toBe(
      "agctl: missing required argument 'app-id'\nUsage: agctl rules list [options] <app-id>\nSee `agctl rules list --help`.\n",
    );
    expectOneErrorLine(yaml!, /^agctl: option '-o, --output <format>' argument 'xml' is invalid/);
    expectOneErrorLine(profile!, /^agctl: invalid profile name "\.\.\/etc"$/);
    expectOneErrorLine(timeout!, /^agctl: --timeout: "soon" is not a number of seconds/);
    expectOneErrorLine(ftp!, /^agctl: --base-url: the base URL must use https/);
    expectOneErrorLine(noCreds!, /^agctl: not logged in: no client ID for profile "default"$/);
    expectOneErrorLine(noUrl!, /^agctl: no base URL configured$/);
    expectOneErrorLine(notFound!, /^agctl: app no-such-app not found \(HTTP 404, NotFound\)$/);
    expectOneErrorLine(refused!, new RegExp(`^agctl: cannot reach http://127\\.0\\.0\\.1:${port}: connection refused$`));
    for (const r of runs) expect(r.stdout).toBe('');
  });

  it('shows a stack trace only for unexpected errors, and only with --debug', async () => {
    // A bug, injected: reading config.json throws a plain Error.
    const fault = { NODE_OPTIONS: `--import=${pathToFileURL(join(ROOT, 'test', 'helpers', 'inject-fault.mjs')).href}` };
    const notADir = join(work, 'a-file');
    writeFileSync(notADir, 'x');
    const broken = join(work, 'broken-config');
    mkdirSync(broken);
    writeFileSync(join(broken, 'config.json'), '{ not json');
    const [quiet, debug, badConfig, fileInTheWay] = await Promise.all([
      spawnCliProcess(['auth', 'status'], { configDir: join(work, 'cfg-fault'), env: fault }),
      spawnCliProcess(['auth', 'status', '--debug'], { configDir: join(work, 'cfg-fault'), env: fault }),
      runCli(['auth', 'status', '--debug'], { configDir: broken }),
      runCli(['auth', 'status', '--debug'], { configDir: join(notADir, 'cfg') }),
    ]);
    expect(quiet.code).toBe(1);
    expectOneErrorLine(quiet, /^agctl: unexpected error: injected fault$/);
    expect(quiet.stderr).toMatch(/^hint: run again with --debug for details, and please report it$/m);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    // a broken config file is the user's to fix: exit 2, no stack even with --debug
    expect(badConfig.code).toBe(2);
    expectOneErrorLine(badConfig, /^agctl: the config file .*config\.json is not valid JSON$/);
    // so is a config directory under a regular file
    expect(fileInTheWay.code).toBe(2);
    expectOneErrorLine(fileInTheWay, /^agctl: AGCTL_CONFIG_DIR .*a-file\/cfg: .*a-file is a file, not a directory$/);
  });

  it('with -o json, errors are one JSON object on stderr and stdout stays empty', async () => {
    const runs = await Promise.all([
      cli(['rules', 'list', 'no-such-app', '-o', 'json']),
      cli(['--profile', 'a b', '-o', 'json', 'rules', 'list', app]),
      cli(['rules', 'list', app, '--limit', '0', '-o', 'json']),
      cli(['rules', 'delete', app, 'ecr-001'], { env: { AGCTL_OUTPUT: 'json' } }),
    ]);
    expect(runs.map((r) => r.code)).toEqual([5, 2, 2, 2]);
    for (const r of runs) {
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(JSON.parse(runs[0]!.stderr)).toEqual({
      error: { code: 'not_found', message: 'app no-such-app not found', hint: null, exitCode: 5, status: 404, details: [] },
    });
    expect(JSON.parse(runs[1]!.stderr)).toMatchObject({
      error: { code: 'usage', message: 'invalid profile name "a b"', exitCode: 2, status: null, details: [] },
    });
    expect(JSON.parse(runs[2]!.stderr).error).toMatchObject({
      code: 'usage',
      message: expect.stringContaining('--limit must be a whole number 1 or more'),
    });
    expect(JSON.parse(runs[3]!.stderr).error).toMatchObject({
      code: 'usage',
      message: 'refusing to delete without confirmation: pass --yes',
    });
  });
});

describe('--embedded', () => {
  it('runs in-process over a persistent data dir: a delete is seen by the next run', async () => {
    const dataDir = join(work, 'data');
    const e = cliFor(configDir(), { AGCTL_DATA_DIR: dataDir });
    const del = await e(['--embedded', 'rules', 'delete', app, 'ecr-005', '--yes']);
    expect(del.code, del.stderr).toBe(0);
    expect(del.stderr).toBe('✓ Deleted rule ecr-005\n');
    const [list, again] = await Promise.all([
      e(['--embedded', 'rules', 'list', app, '-o', 'json']),
      e(['--embedded', 'rules', 'delete', app, 'ecr-005', '--yes']),
    ]);
    expect(list.code, list.stderr).toBe(0);
    const listed = list.json().map((r: { id: string }) => r.id);
    expect(listed).toHaveLength(25);
    expect(listed).not.toContain('ecr-005');
    expect(again.code).toBe(5);
    expect(readdirSync(dataDir)).toContain('agctl.db');
  });
});
