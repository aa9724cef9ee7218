// `agctl serve` as a real process: the ready file, logins in both secret forms
// against it, and a graceful SIGTERM that finishes an in-flight request.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, baseEnv, cliFor, startCli, tempDir } from '../../helpers/cli.js';

const hasJq = spawnSync('jq', ['--version']).status === 0;
const work = tempDir('agctl-serve-e2e-');
const dataDir = join(work, 'data');
// The ready file goes to a directory of the user's: its mode must stay as it is.
// Its name has a space: the log-in command serve prints must still run as printed.
const userDir = join(work, 'my project');
mkdirSync(userDir, { mode: 0o755 });
chmodSync(userDir, 0o755);
const readyFile = join(userDir, 'ready.json');

let stderr = '';
let child: ChildProcess;
let exited: Promise<number | null>;
// Started in a hook (not at the top level) so that afterAll still stops it when start-up fails.
beforeAll(() => {
  child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--ready-file', readyFile], {
    cwd: ROOT,
    env: baseEnv(join(work, 'serve-config')),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d));
  exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
});
afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function waitFor<T>(what: string, fn: () => T | undefined, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; serve said:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Ready {
  baseUrl: string;
  clients: { clientId: string; clientSecret: string; form: 'key' | 'plain' }[];
  demo: Record<string, any>;
}

/** Spawns `agctl serve ARGS` writing `readyFile` (which must not exist yet); `ready` resolves with it. */
function startServe(args: string[], readyFile: string, configDir: string) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: baseEnv(configDir), stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (d) => (log += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Generous: a busy machine starts two servers slowly.
  const until = Date.now() + 40_000;
  const ready = waitFor(
    `the ready file ${readyFile}`,
    () => {
      if (child.exitCode !== null || Date.now() > until)
        throw new Error(`agctl serve ${child.exitCode === null ? 'did not start' : `exited with ${child.exitCode}`}:\n${log}`);
      try {
        return JSON.parse(readFileSync(readyFile, 'utf8')) as Ready;
      } catch {
        return undefined; // not there yet, or being written
      }
    },
    45_000,
  );
  return { child, ready, exited, log: () => log };
}

let ready: Ready;
let plain: Ready['clients'][number];
let key: Ready['clients'][number];
beforeAll(async () => {
  ready = await waitFor<Ready>('the ready file', () => {
    if (child.exitCode !== null) throw new Error(`agctl serve exited with ${child.exitCode}:\n${stderr}`);
    if (!existsSync(readyFile)) return undefined;
    try {
      return JSON.parse(readFileSync(readyFile, 'utf8')) as Ready;
    } catch {
      return undefined; // being written
    }
  });
  plain = ready.clients.find((c) => c.form === 'plain')!;
  key = ready.clients.find((c) => c.form === 'key')!;
  // The start-up lines follow the ready file; the log-in command is the last of them.
  await waitFor('the start-up lines', () => (/log in: .*\n/.test(stderr) ? true : undefined));
});

describe('agctl serve', () => {
  it('writes a 0600 ready file with the base URL, both kinds of clients and the demo data', () => {
    expect(statSync(readyFile).mode & 0o777).toBe(0o600);
    expect(statSync(userDir).mode & 0o777).toBe(0o755);
    expect(ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.clients.filter((c) => c.form === 'key').length).toBeGreaterThanOrEqual(1);
    expect(ready.clients.filter((c) => c.form === 'plain').length).toBeGreaterThanOrEqual(1);
    for (const c of ready.clients) expect(Object.keys(c).sort()).toEqual(['clientId', 'clientSecret', 'form']);
    expect(key.clientSecret).toMatch(/^secret-token:conductorone\.com:v1:[A-Za-z0-9_-]+$/);
    expect(ready.demo.rules).toMatchObject({ appId: 'crm-app', count: 26 });
    expect(statSync(join(dataDir, 'seal.key')).mode & 0o777).toBe(0o600);
    expect(stderr).toContain(`agctl embedded server listening on ${ready.baseUrl}`);
    expect(stderr).not.toContain(plain.clientSecret);
    expect(stderr).not.toContain(key.clientSecret);
    expect(stderr).not.toContain(ready.demo.webhooks.hmac.secret);
  });

  it('prints a log-in command whose ready file path is quoted for the shell', () => {
    const line = stderr.split('\n').find((l) => l.includes('log in: '));
    expect(line).toContain(
      `.clientSecret' '${readyFile}' | agctl login --base-url ${ready.baseUrl} --client-id ${plain.clientId} --client-secret-stdin`,
    );
  });

  it.skipIf(!hasJq)('prints commands that run as printed: the log-in and a signed send to the demo listener', () => {
    const lines = stderr.split('\n');
    const cmd = (label: string) => lines.find((l) => l.includes(`${label}: `))!.split(`${label}: `)[1]!;
    // `agctl` on PATH, as after `npm link`.
    const bin = join(work, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'agctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
    chmodSync(join(bin, 'agctl'), 0o755);
    const r = spawnSync('bash', ['-c', `set -e\n${cmd('log in')}\n${cmd('send it an event')}`], {
      cwd: work,
      env: { ...baseEnv(join(work, 'cfg-printed')), PATH: `${bin}:${process.env.PATH}` },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Logged in to ${ready.baseUrl}`);
    expect(r.stdout).toMatch(/^Status: +200 OK\nReason: +accepted; automation run started$/m);
  });

  it('accepts logins in both forms from the real CLI, and serves rules to them', async () => {
    const secretFile = join(work, 'key.txt');
    writeFileSync(secretFile, key.clientSecret, { mode: 0o600 });
    const a = cliFor(join(work, 'cfg-plain'));
    const b = cliFor(join(work, 'cfg-key'));
    const logins = await Promise.all([
      a(['login', '--base-url', ready.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], { input: plain.clientSecret }),
      b(['login', '--base-url', ready.baseUrl, '--client-id', key.clientId, '--client-secret-file', secretFile]),
    ]);
    for (const r of logins) expect(r.code, r.stderr).toBe(0);
    const lists = await Promise.all([
      a(['rules', 'list', 'crm-app', '-o', 'json', '--page-size', '10']),
      b(['rules', 'list', 'crm-app', '-o', 'json']),
    ]);
    for (const r of lists) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toHaveLength(26);
    }
  });

  it('on SIGTERM finishes the request in flight, closes the database and exits 0', async () => {
    const { hostname, port } = new URL(ready.baseUrl);
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: plain.clientId,
      client_secret: plain.clientSecret,
    }).toString();
    const sock = connect(Number(port), hostname);
    let response = '';
    sock.setEncoding('utf8').on('data', (d) => (response += d));
    await new Promise<void>((r) => sock.once('connect', () => r()));
    // Headers and half the body: the server is now handling the request.
    sock.write(
      `POST /auth/v1/token HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGTERM');
    await waitFor('the shutdown message', () => (stderr.includes('SIGTERM: finishing in-flight requests') ? true : undefined));
    await new Promise((r) => setTimeout(r, 150));
    expect(child.exitCode).toBeNull(); // still waiting for our request

    sock.write(body.slice(10));
    const code = await exited;
    await waitFor('the response', () => (response.includes('"token_type":"Bearer"') ? true : undefined), 5000);
    sock.destroy();
    expect(response).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(code).toBe(0);
    // New connections are refused now.
    await expect(fetch(`${ready.baseUrl}/auth/v1/token`, { method: 'POST' })).rejects.toThrow();
    // The database is closed cleanly and never held a client secret in plain text.
    for (const f of readdirSync(dataDir)) {
      const bytes = readFileSync(join(dataDir, f));
      expect(bytes.includes(plain.clientSecret), f).toBe(false);
      expect(bytes.includes(key.clientSecret.split(':v1:')[1]!), f).toBe(false);
    }
    expect(readdirSync(dataDir).filter((f) => f.endsWith('-wal') && statSync(join(dataDir, f)).size > 0)).toEqual([]);
  });
});

describe('two `agctl serve` processes on one data directory', () => {
  const shared = tempDir('agctl-serve-shared-');
  const data = join(shared, 'data');
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  /** Starts a server on the shared data directory. */
  function start(n: number) {
    const file = join(shared, `ready-${n}.json`);
    const r = startServe(['--quiet', '--data-dir', data, '--ready-file', file], file, join(shared, `cfg-${n}`));
    children.push(r.child);
    return { ...r, file };
  }

  it('started together: one serves, the other refuses (exit 2, "in use by PID n") and writes no ready file', {
    timeout: 90_000,
  }, async () => {
    const [a, b] = [start(1), start(2)];
    // 'ready', or the exit code of one that stopped
    const outcome = (r: typeof a) =>
      r.ready.then(
        () => 'ready' as const,
        () => r.exited,
      );
    const [oa, ob] = await Promise.all([outcome(a), outcome(b)]);
    expect([oa, ob].sort()).toEqual([2, 'ready']);
    const [winner, loser] = oa === 'ready' ? [a, b] : [b, a];
    expect(loser.log()).toBe(
      `agctl: data directory ${data} is in use by PID ${winner.child.pid} (another agctl serve)\n` +
        `hint: stop that server first, or choose another data directory with --data-dir; if PID ${winner.child.pid} is not an agctl serve, remove ${join(data, 'serve.pid')}\n`,
    );
    expect(existsSync(loser.file)).toBe(false);
    expect(JSON.parse(readFileSync(join(data, 'serve.pid'), 'utf8')).pid).toBe(winner.child.pid);
    // The one that runs is the one the kept port names.
    const ready = await winner.ready;
    expect(ready.baseUrl).toBe(`http://127.0.0.1:${readFileSync(join(data, 'serve-port'), 'utf8').trim()}`);

    // --embedded still shares the data directory with it: 16 concurrent credential updates,
    // alternating between serve and a server in this process (as --embedded starts one), without a 5xx.
    const { startEmbeddedServer } = await import('../../../src/server/app.js');
    const embedded = await startEmbeddedServer({ dataDir: data, env: {} });
    try {
      const servers = [ready.baseUrl, embedded.baseUrl];
      const client = ready.clients.find((c) => c.form === 'plain')!;
      const tokenRes = await fetch(`${ready.baseUrl}/auth/v1/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
      });
      const token = ((await tokenRes.json()) as { access_token: string }).access_token;
      const mcp = ready.demo.mcp;
      const results = await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const res = await fetch(`${servers[i % 2]}/api/v1/apps/${mcp.appId}/mcp_servers/${mcp.external}/credentials`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ externalConfig: { url: `https://wiki.example.com/mcp/${i}` }, updateMask: 'url' }),
          });
          return `${res.status} ${res.status === 200 ? '' : await res.text()}`;
        }),
      );
      expect(results).toEqual(results.map(() => '200 '));
    } finally {
      await embedded.close();
    }

    // Killed outright, it leaves its lock file: the next serve finds its PID gone and takes the directory over.
    winner.child.kill('SIGKILL');
    await winner.exited;
    expect(JSON.parse(readFileSync(join(data, 'serve.pid'), 'utf8')).pid).toBe(winner.child.pid);
    const next = start(3);
    await next.ready;
    expect(JSON.parse(readFileSync(join(data, 'serve.pid'), 'utf8')).pid).toBe(next.child.pid);
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
    // A serve that stops removes its lock file.
    expect(existsSync(join(data, 'serve.pid'))).toBe(false);
  });
});

describe('`agctl serve` in this process', () => {
  it('hears SIGTERM through its io, never through process-wide handlers, and stops cleanly', async () => {
    const dir = tempDir('agctl-serve-term-');
    const before = process.listenerCount('SIGTERM');
    const r = startCli(
      ['serve', '--quiet', '--port', '0', '--data-dir', join(dir, 'data'), '--ready-file', join(dir, 'ready.json')],
      baseEnv(join(dir, 'cfg')),
    );
    await r.waitForStderr(/press Ctrl-C to stop/);
    expect(process.listenerCount('SIGTERM')).toBe(before);
    r.terminate();
    const result = await r.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('SIGTERM: finishing in-flight requests and closing the database');
    expect(existsSync(join(dir, 'data', 'serve.pid'))).toBe(false);
  });
});

// Run in this process (Ctrl-C as the command sees it): what is checked here is
// the port kept in the data directory, not the process.
describe('`agctl serve` stopped and started again on one data directory', () => {
  const dir = tempDir('agctl-serve-port-');
  const data = join(dir, 'data');
  const running = new Set<ReturnType<typeof startCli>>();
  afterAll(async () => {
    for (const r of running) {
      r.interrupt();
      await r.done;
    }
  });
  let runs = 0;
  /** Runs serve on the data directory with `args` until stop() (Ctrl-C), which resolves with its output. */
  async function serve(...args: string[]) {
    const file = join(dir, `ready-${runs++}.json`);
    const r = startCli(['serve', '--quiet', '--data-dir', data, '--ready-file', file, ...args], baseEnv(join(dir, 'serve-cfg')));
    running.add(r);
    // The ready file is written before the start-up lines; Ctrl-C is heard from before them.
    await r.waitForStderr(/press Ctrl-C to stop/);
    const ready = JSON.parse(readFileSync(file, 'utf8')) as Ready;
    return {
      ready,
      port: Number(new URL(ready.baseUrl).port),
      stop: async () => {
        r.interrupt();
        const result = await r.done;
        running.delete(r);
        expect(result.code, result.stderr).toBe(0);
        return result;
      },
    };
  }
  const freePort = async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as AddressInfo;
    await new Promise((r) => srv.close(r));
    return port;
  };

  it('listens on the same port again, so a logged-in profile keeps working', { timeout: 60_000 }, async () => {
    const first = await serve();
    expect(readFileSync(join(data, 'serve-port'), 'utf8')).toBe(`${first.port}\n`);
    const plainClient = first.ready.clients.find((c) => c.form === 'plain')!;
    const cli = cliFor(join(dir, 'cfg'));
    const login = await cli(['login', '--base-url', first.ready.baseUrl, '--client-id', plainClient.clientId, '--client-secret-stdin'], {
      input: plainClient.clientSecret,
    });
    expect(login.code, login.stderr).toBe(0);
    await first.stop();

    const again = await serve();
    expect(again.ready.baseUrl).toBe(first.ready.baseUrl);
    const list = await cli(['rules', 'list', 'crm-app', '-o', 'json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json()).toHaveLength(26);
    expect((await again.stop()).stderr).not.toContain('in use');
  });

  it('takes a free port, and says so, when another process holds it; --port still wins', { timeout: 60_000 }, async () => {
    const kept = Number(readFileSync(join(data, 'serve-port'), 'utf8'));
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(kept, '127.0.0.1', r));
    try {
      const moved = await serve();
      expect(moved.port).not.toBe(kept);
      expect((await moved.stop()).stderr).toContain(
        `! port ${kept}, this data directory's, is in use by another process: listening on ${moved.port} for this run`,
      );
    } finally {
      await new Promise((r) => holder.close(r));
    }
    // The kept port stays the data directory's.
    expect(readFileSync(join(data, 'serve-port'), 'utf8')).toBe(`${kept}\n`);

    const chosen = await freePort();
    const flagged = await serve('--port', String(chosen));
    expect(flagged.port).toBe(chosen);
    await flagged.stop();
  });
});
