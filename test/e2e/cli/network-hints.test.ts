// What agctl says when the base URL or the network is wrong: a base URL with
// a path, a server that never answers (attempts, total time, progress on a
// terminal). The CLI in-process against the embedded server and a silent socket.
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandContext } from '../../../src/cli/context.js';
import { run as rulesList } from '../../../src/cli/commands/rules/list/run.js';
import { cliFor, tempDir, testClock } from '../../helpers/cli.js';
import { fakeIO } from '../../helpers/io.js';
import { startTestServer } from '../../helpers/server.js';

const requests: string[] = [];
const s = await startTestServer({ log: (l) => requests.push(l) });
const work = tempDir('agctl-network-hints-');
let n = 0;
const configDir = () => join(work, `cfg${n++}`);
const app = s.demo.rules.appId as string;
const creds = { AGCTL_CLIENT_ID: s.plainClient.clientId, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret };

/** A server that accepts connections and never answers. */
const sockets = new Set<Socket>();
const silent = createServer((sock) => void sockets.add(sock));
await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
afterAll(() => {
  for (const sock of sockets) sock.destroy();
  silent.close();
});

describe('a base URL with a path', () => {
  const sent = () => requests.length;

  it('is refused before anything is sent (exit 2), with the origin to use instead', async () => {
    const before = sent();
    const [flag, env, json, other] = await Promise.all([
      cliFor(configDir(), creds)(['rules', 'list', app, '--base-url', `${s.baseUrl}/api/v1`]),
      cliFor(configDir(), { AGCTL_BASE_URL: `${s.baseUrl}/api/`, AGCTL_ACCESS_TOKEN: 'agt_x' })(['rules', 'list', app]),
      cliFor(configDir(), { ...creds, AGCTL_BASE_URL: `${s.baseUrl}/api` })(['rules', 'list', app, '-o', 'json']),
      cliFor(configDir(), creds)(['auth', 'token', '--base-url', `${s.baseUrl}/tenant/acme`]),
    ]);
    expect([flag, env, json, other].map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(flag.stderr).toBe(
      `agctl: --base-url: the base URL ${s.baseUrl}/api/v1 has a path (/api/v1): it must be the service's origin alone, ${s.baseUrl}\nhint: drop the path: --base-url ${s.baseUrl}\n`,
    );
    expect(env.stderr).toBe(
      `agctl: AGCTL_BASE_URL: the base URL ${s.baseUrl}/api/ has a path (/api): it must be the service's origin alone, ${s.baseUrl}\nhint: drop the path: AGCTL_BASE_URL=${s.baseUrl}\n`,
    );
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'usage', exitCode: 2, hint: `drop the path: AGCTL_BASE_URL=${s.baseUrl}` });
    expect(json.stdout).toBe('');
    expect(other.stderr).toContain('has a path (/tenant/acme)');
    expect(sent()).toBe(before);
  });

  it('login to a base URL with a path: exit 2, nothing sent, nothing saved', async () => {
    const dir = configDir();
    const before = sent();
    const r = await cliFor(dir)(
      ['login', '--base-url', `${s.baseUrl}/api`, '--client-id', creds.AGCTL_CLIENT_ID, '--client-secret-stdin'],
      { input: creds.AGCTL_CLIENT_SECRET },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`\nhint: drop the path: --base-url ${s.baseUrl}\n`);
    expect(sent()).toBe(before);
    const status = await cliFor(dir)(['auth', 'status']);
    expect(status.stdout + status.stderr).not.toContain('/api');
  });

  it('rules delete: one usage error, no rule tried', async () => {
    const c = cliFor(configDir(), { ...creds, AGCTL_BASE_URL: `${s.baseUrl}/api` });
    for (const args of [['--yes'], ['--dry-run']]) {
      const r = await c(['rules', 'delete', app, 'ecr-001', 'ecr-002', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(2);
      expect(r.stderr).not.toContain('rule ecr-00');
    }
  });

  it('a profile saved with a path (by hand): exit 2 naming the profile and how to log in again; other commands still work', async () => {
    const dir = configDir();
    const login = await cliFor(dir)(['login', '--base-url', s.baseUrl, '--client-id', creds.AGCTL_CLIENT_ID, '--client-secret-stdin'], {
      input: creds.AGCTL_CLIENT_SECRET,
    });
    expect(login.code, login.stderr).toBe(0);
    const path = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.profiles.default.baseUrl = `${s.baseUrl}/api`;
    writeFileSync(path, JSON.stringify(config));
    const before = sent();
    const r = await cliFor(dir)(['rules', 'list', app]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `agctl: profile "default": the base URL ${s.baseUrl}/api has a path (/api): it must be the service's origin alone, ${s.baseUrl}\nhint: log in again with the origin: agctl login --profile default --base-url ${s.baseUrl}\n`,
    );
    // Logging in again without a prompt would take the profile's base URL: refused too, with the way on
    const again = await cliFor(dir)(['login', '--no-input', '--client-secret-stdin'], { input: creds.AGCTL_CLIENT_SECRET });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`\nhint: pass --base-url ${s.baseUrl}\n`);
    expect(sent()).toBe(before);
    expect((await cliFor(dir)(['auth', 'list'])).code).toBe(0);
    const fixed = await cliFor(dir)(['login', '--no-input', '--base-url', s.baseUrl, '--client-secret-stdin'], {
      input: creds.AGCTL_CLIENT_SECRET,
    });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect((await cliFor(dir)(['rules', 'list', app, '--limit', '1'])).code).toBe(0);
  });

  it('an origin with a trailing slash is the origin', async () => {
    const r = await cliFor(configDir(), { ...creds, AGCTL_BASE_URL: `${s.baseUrl}/` })([
      'rules',
      'list',
      app,
      '--limit',
      '1',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toHaveLength(1);
  });

  it('a 404 with an origin as base URL has no hint about paths', async () => {
    const r = await cliFor(configDir(), { ...creds, AGCTL_BASE_URL: s.baseUrl })(['rules', 'list', 'no-such-app']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe('agctl: app no-such-app not found (HTTP 404, NotFound)\n');
  });
});

// The two wait out the same back-off schedule on their own config dirs: side by side.
describe.concurrent('a server that never answers', () => {
  const env = { AGCTL_BASE_URL: silentUrl, AGCTL_ACCESS_TOKEN: 'agt_x' };

  it('the error says how many attempts of how long, and the time in all; no progress lines off a terminal', async () => {
    const started = Date.now();
    const r = await cliFor(configDir(), env)(['rules', 'list', app, '--timeout', '0.2']);
    const took = (Date.now() - started) / 1000;
    expect(r.code).toBe(9);
    const m = new RegExp(`^agctl: cannot reach ${silentUrl}: timed out: 4 attempts of 0\\.2 s each, (\\d+(?:\\.\\d)?) s in all\\n`).exec(
      r.stderr,
    );
    expect(m, r.stderr).not.toBeNull();
    // All four attempts, not the last one alone (the waits between them are short in tests: testClock).
    expect(Number(m![1])).toBeGreaterThanOrEqual(0.8);
    expect(Number(m![1])).toBeLessThanOrEqual(took + 0.1);
    expect(r.stderr).not.toContain('retrying');
  });

  it('on a terminal, each retry is announced on stderr as it starts', async () => {
    const f = fakeIO({ tty: true });
    const ctx = new CommandContext({
      io: f.io,
      env: { AGCTL_CONFIG_DIR: configDir(), ...env },
      flags: { timeout: '0.2' },
      clock: testClock,
    });
    await expect(rulesList({ args: [app], opts: {} }, ctx)).rejects.toThrow(/timed out: 4 attempts of 0\.2 s each/);
    await ctx.close();
    expect(f.out()).toBe('');
    // Each from the start of its row, clearing a spinner's line were one there.
    expect(f.err().trimEnd().split('\n')).toEqual([2, 3, 4].map((i) => `\r\x1b[K${silentUrl}: timed out after 0.2 s; retrying (${i}/4)…`));
  });
});
