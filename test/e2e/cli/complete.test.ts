// `agctl __complete -- <words...>`, the hidden command the completion scripts
// call for values only the program knows: profile names, and IDs from the
// service's list routes asked with the profile's cached token only, within
// BUDGET_MS, silently (nothing on stderr, exit 0, whatever goes wrong).
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { complete } from '../../../src/cli/commands/__complete/run.js';
import { buildProgram } from '../../../src/cli/program.js';
import { systemClock } from '../../../src/lib/clock.js';
import { tokenUrlFor } from '../../../src/client/auth.js';
import { Vault } from '../../../src/config/vault.js';
import { bashCompleteAsync as bashComplete } from '../../helpers/bash-complete.js';
import { BIN, baseEnv, cliFor, spawnCliProcess, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { NOT_OFFERED, OFFERED } from '../../helpers/hostile-ids.js';
import { hostileTenant } from '../../helpers/hostile-tenant.js';
import { sendJson, tinyServer } from '../../unit/client/tiny-server.js';

const s = await startTestServer();
const app = s.demo.rules.appId as string;

/** The candidates of a completion (value, or value<TAB>description), after checking it is silent and ends with a directive. */
function offered(r: CliResult, directive = ':4'): string[] {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const lines = r.stdout.split('\n');
  expect(lines.pop()).toBe('');
  expect(lines.pop()).toBe(directive);
  return lines;
}
const values = (r: CliResult, directive?: string) => offered(r, directive).map((l) => l.split('\t')[0]);

/** A config dir with profiles written as `agctl login` saves them, and optionally a cached token planted for one. */
function configWith(profiles: Record<string, { baseUrl?: string; clientId?: string }>, current?: string): string {
  const dir = tempDir('agctl-complete-');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: current, profiles }), { mode: 0o600 });
  return dir;
}
function plantToken(
  dir: string,
  baseUrl: string,
  clientId: string,
  accessToken: string,
  expiresAt = Math.floor(Date.now() / 1000) + 3600,
): void {
  new Vault(dir, { AGCTL_CONFIG_DIR: dir }).saveToken(
    'default',
    tokenUrlFor(baseUrl),
    clientId,
    { accessToken, expiresAt },
    'planted-secret',
  );
}

/** A config dir logged in to the test server (a token is cached by the login). */
/** For tests of which IDs are offered, not of time: a budget a loaded machine cannot overrun (the budget has tests of its own below). */
const ROOMY = { AGCTL_COMPLETE_BUDGET_MS: '5000' };

async function loggedIn(): Promise<{ dir: string; cli: ReturnType<typeof cliFor> }> {
  const dir = tempDir('agctl-complete-');
  const cli = cliFor(dir, ROOMY);
  const r = await cli(['login', '--base-url', s.baseUrl, '--client-id', s.plainClient.clientId, '--client-secret-stdin'], {
    input: s.plainClient.clientSecret,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(existsSync(join(dir, 'tokens'))).toBe(true);
  return { dir, cli };
}

describe('__complete: commands, flags and fixed values from the tree', () => {
  const cli = cliFor(tempDir('agctl-complete-'));
  it('answers subcommands, flags after a dash, choices, and says where file names complete', async () => {
    // commands first, as gh: where there are subcommands, flags only after a dash
    expect(values(await cli(['__complete', '--', '']))).toEqual([
      'login',
      'logout',
      'auth',
      'rules',
      'mcp',
      'task',
      'webhook',
      'api',
      'serve',
      'doctor',
      'help',
      'completion',
      'version',
    ]);
    expect(values(await cli(['__complete', '--', '--profile', 'p', 'rules', '']))).toEqual(['list', 'get', 'delete']);
    expect(values(await cli(['__complete', '--', '-'])).every((w) => w.startsWith('-'))).toBe(true);
    expect(offered(await cli(['__complete', '--', 'rules', 'l']))).toEqual([
      'list\tList the rules of an app in evaluation order (priority, then ID)',
    ]);
    expect(values(await cli(['__complete', '--', 'rules', 'list', 'app', '--li']))).toEqual(['--limit']);
    expect(values(await cli(['__complete', '--', '-o', '']))).toEqual(['table', 'wide', 'json', 'yaml']);
    expect(values(await cli(['__complete', '--', '--output=j']))).toEqual(['json']);
    expect(values(await cli(['__complete', '--', 'webhook', 'send', 'x', '--data-file', '']), ':0')).toEqual([]);
    expect(values(await cli(['__complete', '--', 'serve', '--data-dir', '']), ':16')).toEqual([]);
    // a positional argument that cannot be completed offers nothing (not the flags)
    expect(values(await cli(['__complete', '--', 'rules', 'list', '']))).toEqual([]);
    // words that look like help or version flags are completed, not obeyed
    expect(values(await cli(['__complete', '--', 'rules', '-h', 'l']))).toEqual(['list']);
    expect(values(await cli(['__complete', '--', '--version', 'rules', '--help', 'list', 'app', '--page']))).toEqual(['--page-size']);
  });

  it('is hidden from help and from its own answers', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('completion');
    expect(help.stdout).not.toContain('__complete');
    expect(values(await cli(['__complete', '--', '__']))).toEqual([]);
    expect(values(await cli(['__complete', '--', '']))).not.toContain('__complete');
  });
});

describe('__complete: profile names', () => {
  const dir = configWith(
    { default: { baseUrl: 'https://acme.example.com', clientId: 'a' }, ci: { baseUrl: 'http://127.0.0.1:1' }, staging: {} },
    'ci',
  );
  const cli = cliFor(dir);
  it('lists the saved profiles for --profile, with their base URL and the current one marked', async () => {
    expect(offered(await cli(['__complete', '--', '--profile', '']))).toEqual([
      'ci\thttp://127.0.0.1:1 (current)',
      'default\thttps://acme.example.com',
      'staging',
    ]);
    expect(values(await cli(['__complete', '--', 'rules', 'list', 'x', '--profile', 's']))).toEqual(['staging']);
    expect(values(await cli(['__complete', '--', '--profile=d']))).toEqual(['default']);
    expect(values(await cli(['__complete', '--', 'auth', 'switch', '']))).toEqual(['ci', 'default', 'staging']);
    // one profile only: then the flags
    expect(values(await cli(['__complete', '--', 'auth', 'switch', 'ci', ''])).filter((v) => !v.startsWith('-'))).toEqual([]);
  });

  it('offers nothing, silently, without profiles or with a config it cannot read', async () => {
    expect(values(await cliFor(tempDir('agctl-complete-'))(['__complete', '--', '--profile', '']))).toEqual([]);
    const broken = tempDir('agctl-complete-');
    writeFileSync(join(broken, 'config.json'), '{not json');
    expect(values(await cliFor(broken)(['__complete', '--', '--profile', '']))).toEqual([]);
    // settings that make every other command fail (exit 2, a message) do not make a completion talk
    expect(values(await cli(['__complete', '--', '--profile', '']), ':4')).toHaveLength(3);
    const bad = await cli(['__complete', '--', 'rules', 'delete', app, ''], {
      env: { AGCTL_OUTPUT: 'xml', AGCTL_BASE_URL: 'not a url', AGCTL_PROFILE: '../x' },
    });
    expect(values(bad)).toEqual([]);
  });
});

describe('__complete: IDs from the service, with a cached token only', () => {
  it('completes rule IDs after the app ID, from the profile logged in to the server', async () => {
    const { cli } = await loggedIn();
    const listed = await cli(['rules', 'list', app, '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    const ids = (listed.json() as { id: string }[]).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(1);
    expect(values(await cli(['__complete', '--', 'rules', 'delete', app, '']))).toEqual(ids);
    // the argument is variadic: every later one is a rule ID too
    expect(values(await cli(['__complete', '--', 'rules', 'delete', app, ids[0]!, ids[1]!.slice(0, -1)]))).toEqual(
      ids.filter((id) => id.startsWith(ids[1]!.slice(0, -1))),
    );
    // the app ID itself is not completed, and an unknown app offers nothing
    expect(values(await cli(['__complete', '--', 'rules', 'delete', '']))).toEqual([]);
    expect(values(await cli(['__complete', '--', 'rules', 'delete', 'no-such-app', '']))).toEqual([]);
  });

  it('through the bash script: rule IDs after the app ID, with --profile=name split at "=" as bash splits it', async () => {
    const { dir, cli } = await loggedIn();
    const ids = ((await cli(['rules', 'list', app, '-o', 'json'])).json() as { id: string }[]).map((r) => r.id);
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(BIN, join(bin, 'agctl'));
    // A process has BUDGET_MS from its start, most of it the start itself on a loaded machine: this test is about bash, not time.
    const env = { ...baseEnv(dir), PATH: `${bin}:${process.env.PATH}`, AGCTL_COMPLETE_BUDGET_MS: '5000' };
    expect(await bashComplete(`agctl rules delete ${app} `, { cwd: dir, env })).toEqual(ids);
    expect(await bashComplete(`agctl --profile=default rules delete ${app} ${ids[0]} `, { cwd: dir, env })).toEqual(ids);
    expect(await bashComplete(`agctl --profile=nosuch rules delete ${app} `, { cwd: dir, env })).toEqual([]);
  });

  it("completes the embedded server's webhook listener IDs for webhook runs and webhook send", async () => {
    const { dir, cli } = await loggedIn();
    const created = await cli([
      'webhook',
      'listeners',
      'create',
      '--name',
      'nightly-sync',
      '--secret-out',
      join(dir, 'hook.secret'),
      '-o',
      'json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const id = (created.json() as { id: string }).id;
    expect(offered(await cli(['__complete', '--', 'webhook', 'runs', '']))).toContain(`${id}\tnightly-sync`);
    expect(values(await cli(['__complete', '--', 'webhook', 'send', id.slice(0, -1)]))).toEqual([id]);
  });

  it('offers nothing without a cached token, and neither logs in nor unseals the stored secret', async () => {
    const { dir, cli } = await loggedIn();
    rmSync(join(dir, 'tokens'), { recursive: true });
    expect(values(await cli(['__complete', '--', 'rules', 'delete', app, '']))).toEqual([]);
    expect(existsSync(join(dir, 'tokens'))).toBe(false); // no token was fetched
    // nor from secrets in the environment
    const r = await cli(['__complete', '--', 'rules', 'delete', app, ''], {
      env: { AGCTL_CLIENT_ID: s.plainClient.clientId, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret },
    });
    expect(values(r)).toEqual([]);
    expect(existsSync(join(dir, 'tokens'))).toBe(false);
  });

  it('sends the cached token only to the base URL the profile was logged in to', async () => {
    const { dir, cli } = await loggedIn();
    const other = await tinyServer();
    other.reset((_r, res) => sendJson(res, 200, { list: [{ id: 'stolen' }] }));
    // even with a token cached for the other URL (an earlier call with secrets in the environment)
    plantToken(dir, other.url, s.plainClient.clientId, 'other-token');
    for (const args of [['--base-url', other.url], []]) {
      const env = args.length ? {} : { AGCTL_BASE_URL: other.url };
      expect(values(await cli(['__complete', '--', ...args, 'rules', 'delete', app, ''], { env }))).toEqual([]);
    }
    expect(other.seen).toEqual([]);
    // --embedded would start a server: nothing
    expect(values(await cli(['__complete', '--', '--embedded', 'rules', 'delete', app, '']))).toEqual([]);
  });

  it('offers nothing when the server refuses the token (401), silently', async () => {
    const { dir, cli } = await loggedIn();
    plantToken(dir, s.baseUrl, s.plainClient.clientId, 'not-a-token');
    expect(values(await cli(['__complete', '--', 'rules', 'delete', app, '']))).toEqual([]);
  });

  it('asks the MCP server list for connector IDs and the task search for task IDs', async () => {
    const t = await tinyServer();
    const dir = configWith({ default: { baseUrl: t.url, clientId: 'bot' } }, 'default');
    plantToken(dir, t.url, 'bot', 'cached-token');
    const cli = cliFor(dir, ROOMY);
    t.reset((req, res) => {
      if (req.path.startsWith('/api/v1/apps/crm%20app/mcp_servers')) {
        const second = req.path.includes('page_token=p2');
        return sendJson(
          res,
          200,
          second
            ? { list: [{ connectorId: 'c3' }] }
            : { list: [{ connectorId: 'c1', displayName: 'GitHub' }, { connectorId: 'c2' }], nextPageToken: 'p2' },
        );
      }
      if (req.method === 'POST' && req.path === '/api/v1/search/tasks')
        return sendJson(res, 200, { list: [{ task: { id: 't-1', displayName: 'Access to prod' } }, { task: { id: 't-2' } }] });
      sendJson(res, 404, {});
    });
    expect(offered(await cli(['__complete', '--', 'mcp', 'get', 'crm app', '']))).toEqual(['c1\tGitHub', 'c2', 'c3']);
    expect(values(await cli(['__complete', '--', 'mcp', 'set-credentials', 'crm app', 'c']))).toEqual(['c1', 'c2', 'c3']);
    expect(t.seen.map((r) => r.path)).toContain('/api/v1/apps/crm%20app/mcp_servers?page_token=p2');
    t.seen.length = 0;
    expect(offered(await cli(['__complete', '--', 'task', 'approve-step-up', '']))).toEqual(['t-1\tAccess to prod', 't-2']);
    expect(JSON.parse(t.seen[0]!.body)).toEqual({ taskStates: ['TASK_STATE_OPEN'] });
    expect(t.seen.every((r) => r.headers.authorization === 'Bearer cached-token')).toBe(true);
    // an expired cached token is not sent
    plantToken(dir, t.url, 'bot', 'old-token', Math.floor(Date.now() / 1000) + 30);
    t.seen.length = 0;
    expect(values(await cli(['__complete', '--', 'task', 'approve-step-up', '']))).toEqual([]);
    expect(t.seen).toEqual([]);
  });
});

describe('__complete: the time budget', () => {
  /** A server that reads requests and never answers; counts connections and hang-ups. */
  async function hangingServer() {
    const sockets: Socket[] = [];
    const state = { closed: 0 };
    const hang = createServer((sock) => {
      sockets.push(sock);
      sock.on('data', () => {}); // read the request, answer nothing
      sock.on('close', () => state.closed++);
    });
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    const dir = configWith({ default: { baseUrl: url, clientId: 'bot' } }, 'default');
    plantToken(dir, url, 'bot', 'cached-token');
    const close = async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => hang.close(() => r()));
    };
    return { sockets, state, dir, close };
  }

  it('offers nothing from a server that never answers, and aborts the request, in this process and in a real one', async () => {
    const h = await hangingServer();
    try {
      // how long it waits is the budget's own test below: none here depends on the machine's speed
      const r = await cliFor(h.dir)(['__complete', '--', 'rules', 'delete', 'app', '']);
      expect(values(r)).toEqual([]);
      expect(h.sockets.length).toBe(1); // it did ask
      await expect.poll(() => h.state.closed, { timeout: 10_000 }).toBe(1); // and hung up
      // a real process (whose budget counts from its start) exits as soon as it answers, silently
      const p = await spawnCliProcess(['__complete', '--', 'rules', 'delete', 'app', ''], { configDir: h.dir, timeoutMs: 20_000 });
      expect(values(p)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('gives up on the service at the deadline it is given, measured by the stopwatch it is given', async () => {
    const h = await hangingServer();
    try {
      const words = ['rules', 'delete', 'app', ''];
      const program = await buildProgram(['__complete', '--', ...words]);
      const env = { AGCTL_CONFIG_DIR: h.dir };
      const stopwatch = manualStopwatch(1_000);
      const ctx = { env, clock: systemClock, stopwatch };
      // Time already spent: no request at all.
      expect(await complete(program, words, { ...ctx, deadline: 999 })).toEqual({ candidates: [], directive: 4 });
      expect(h.sockets.length).toBe(0);
      // A minute left (the request's own timeout, which only backs the budget up, is as long in real time):
      // the request is made, still waited for a millisecond before the deadline, given up on at it.
      let settled = false;
      const answer = complete(program, words, { ...ctx, deadline: 61_000 }).finally(() => (settled = true));
      await expect.poll(() => h.sockets.length, { timeout: 10_000 }).toBe(1);
      await expect.poll(() => stopwatch.waiting(), { timeout: 10_000 }).toBe(1);
      stopwatch.advance(59_999);
      for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
      expect(settled).toBe(false);
      expect(h.state.closed).toBe(0);
      stopwatch.advance(1);
      expect(await answer).toEqual({ candidates: [], directive: 4 });
      await expect.poll(() => h.state.closed, { timeout: 10_000 }).toBe(1); // the request aborted
    } finally {
      await h.close();
    }
  });
});

/** A stopwatch moved by hand: its sleeps end when advance() reaches them (or their signal aborts). */
function manualStopwatch(start: number) {
  let now = start;
  const sleeps = new Set<{ at: number; end: () => void }>();
  return {
    now: () => now,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        const s = { at: now + ms, end: () => (sleeps.delete(s), resolve()) };
        sleeps.add(s);
        signal?.addEventListener('abort', s.end, { once: true });
      }),
    advance(ms: number) {
      now += ms;
      for (const s of [...sleeps]) if (s.at <= now) s.end();
    },
    /** Sleeps not yet ended. */
    waiting: () => sleeps.size,
  };
}

describe('__complete: values from a hostile tenant are data', () => {
  it('offers an ID holding shell syntax as it is, never one with a control, bidi or zero-width character, nor one read as an option', async () => {
    const t = await hostileTenant({ kind: 'ids', ids: [...OFFERED, ...NOT_OFFERED], displayName: 'name\u202e\u001b[2J\u200bend' });
    const dir = configWith({ default: { baseUrl: t.url, clientId: 'bot' } }, 'default');
    plantToken(dir, t.url, 'bot', 'cached-token');
    const cli = cliFor(dir, ROOMY);
    for (const words of [
      ['rules', 'get', 'app1', ''],
      ['mcp', 'get', 'app1', ''],
      ['task', 'get', ''],
      ['rules', 'delete', 'app1', 'x', ''],
    ]) {
      const lines = offered(await cli(['__complete', '--', ...words]));
      expect(
        lines.map((l) => l.split('\t')[0]),
        words.join(' '),
      ).toEqual(OFFERED);
      // the description is shown (zsh, fish): what would drive the terminal or hide text is a space
      expect(new Set(lines.map((l) => l.split('\t').slice(1).join('\t')))).toEqual(new Set(['name  [2J end']));
    }
    // the word at the cursor is matched as it is: shell syntax in it is not read either
    expect(values(await cli(['__complete', '--', 'rules', 'get', 'app1', 'a$(']))).toEqual([OFFERED[0]]);
    expect(values(await cli(['__complete', '--', 'rules', 'get', 'app1', '-']))).not.toContain('-rf');
  });
});
