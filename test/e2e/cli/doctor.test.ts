// agctl doctor against a healthy embedded server, a config directory others
// can write (or not this user's), an unreachable base URL (a closed loopback
// port), and tenants whose Date header is off or hostile.
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { cliFor, spawnCliProcess, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { testPki } from '../../helpers/tls.js';

const work = tempDir('agctl-doctor-');
let n = 0;
const configDir = () => join(work, `cfg${n++}`);

interface Check {
  name: string;
  status: string;
  detail: string;
  hint: string | null;
}
const check = (checks: Check[], name: string) => checks.find((c) => c.name === name);

/** A TCP server answering every request with `head` (raw bytes: a hostile Date header too), then closing. */
async function rawTenant(head: () => string): Promise<string> {
  const server = createServer((sock) => {
    sock.once('data', () => sock.end(`HTTP/1.1 404 Not Found\r\n${head()}Content-Length: 0\r\nConnection: close\r\n\r\n`, 'latin1'));
    sock.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  afterAll(() => void server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('agctl doctor', () => {
  it('a healthy setup against the embedded server: every check passes, exit 0, nothing secret printed', async () => {
    const s = await startTestServer();
    const cli = cliFor(configDir(), {
      AGCTL_BASE_URL: s.baseUrl,
      AGCTL_CLIENT_ID: s.plainClient.clientId,
      AGCTL_CLIENT_SECRET: s.plainClient.clientSecret,
    });
    expect((await cli(['rules', 'list', s.demo.rules.appId as string])).code).toBe(0); // caches a token
    const r = await cli(['doctor', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<{ ok: boolean; checks: Check[] }>();
    expect(out.ok).toBe(true);
    expect(out.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(check(out.checks, 'store')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/SQLite \d/) });
    expect(check(out.checks, 'keyring')).toMatchObject({ status: 'skip' }); // CI=1
    expect(check(out.checks, 'config dir')).toMatchObject({ status: 'ok', detail: expect.stringContaining('mode 0700') });
    expect(check(out.checks, 'proxy')).toMatchObject({ status: 'ok', detail: expect.stringContaining('none') });
    expect(check(out.checks, 'TCP')).toMatchObject({ status: 'ok' });
    expect(check(out.checks, 'TLS')).toMatchObject({ status: 'skip', detail: 'plain http' });
    expect(check(out.checks, 'clock')).toMatchObject({ status: 'ok' });
    expect(check(out.checks, 'token')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^valid until /) });
    const token = await s.token();
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain(s.plainClient.clientSecret);
      expect(text).not.toContain(token.slice(-20));
    }
    // The text form: one line a check, marks first.
    const text = await cli(['doctor']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^✓ Node\.js +\d+\.\d+\.\d+/);
    expect(text.stdout).toMatch(/\n✓ clock +/);
  });

  it('a config directory others can write fails with exit 2 and the chmod that fixes it; one others can only read warns', async () => {
    const dir = configDir();
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const cli = cliFor(dir);
    const r = await cli(['doctor', '-o', 'json']);
    expect(r.code, r.stderr).toBe(2);
    const out = r.json<{ ok: boolean; checks: Check[] }>();
    expect(out.ok).toBe(false);
    expect(check(out.checks, 'config dir')).toEqual({
      name: 'config dir',
      status: 'fail',
      // The words every command refuses it with (src/lib/private-fs.ts).
      detail: `the config directory ${dir} is not safe to use: it is writable by group and others (mode 0777)`,
      hint: `chmod 700 ${dir}`,
    });
    chmodSync(dir, 0o755);
    const loose = await cli(['doctor', '-o', 'json']);
    expect(loose.code, loose.stderr).toBe(0);
    expect(check(loose.json<{ checks: Check[] }>().checks, 'config dir')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('others can read it (mode 0755)'),
    });
  });

  it("a locked-down config directory (another user's, or not writable) fails with exit 2", async () => {
    const dir = configDir();
    mkdirSync(dir, { mode: 0o700 });
    const root = userInfo().uid === 0;
    // root can write anywhere: a directory of another user's is what it must not use.
    if (root) chownSync(dir, 4242, 4242);
    else chmodSync(dir, 0o500);
    try {
      const r = await cliFor(dir)(['doctor', '-o', 'json']);
      expect(r.code, r.stderr).toBe(2);
      const c = check(r.json<{ checks: Check[] }>().checks, 'config dir');
      expect(c?.status).toBe('fail');
      expect(c?.detail).toContain(root ? 'owned by uid 4242, not by root who runs agctl' : 'agctl cannot write it');
    } finally {
      if (root) chownSync(dir, 0, 0);
      else chmodSync(dir, 0o700);
    }
  });

  it('an unreachable base URL (a closed port on this machine): TCP fails, exit 9, within a few seconds', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const r = await cliFor(configDir(), { AGCTL_BASE_URL: `http://127.0.0.1:${port}`, AGCTL_CLIENT_ID: 'ci-bot' })([
      'doctor',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(9);
    const out = r.json<{ ok: boolean; checks: Check[] }>();
    expect(out.ok).toBe(false);
    expect(check(out.checks, 'DNS')).toMatchObject({ status: 'skip' });
    expect(check(out.checks, 'TCP')).toMatchObject({ status: 'fail', detail: `127.0.0.1:${port}: connection refused` });
    // Nothing past the connection is tried; the token is still described.
    expect(check(out.checks, 'clock')).toBeUndefined();
    expect(check(out.checks, 'token')).toMatchObject({ status: 'ok', detail: expect.stringContaining('none cached') });
    expect(r.stderr).toBe('');
  });

  it('a tenant whose clock is 10 minutes behind fails the clock check (exit 2); a hostile Date header is shown escaped', async () => {
    const behind = await rawTenant(() => `Date: ${new Date(Date.now() - 600_000).toUTCString()}\r\n`);
    const r = await cliFor(configDir(), { AGCTL_BASE_URL: behind })(['doctor', '-o', 'json']);
    expect(r.code, r.stderr).toBe(2);
    const clock = check(r.json<{ checks: Check[] }>().checks, 'clock');
    expect(clock?.status).toBe('fail');
    expect(clock?.detail).toMatch(/^(599|600|601) s ahead of the tenant$/);

    // A C1 control (CSI, a byte HTTP lets through in a header) and a long value: shown escaped and cut.
    const hostile = await rawTenant(() => `Date: soon\x9b2J${'x'.repeat(5000)}\r\n`);
    const h = await cliFor(configDir(), { AGCTL_BASE_URL: hostile })(['doctor']);
    expect(h.code, h.stderr).toBe(0);
    expect(h.stdout).toMatch(/! clock +the tenant's Date header is not a date: soon\\x9b2Jxxx/);
    expect(h.stdout).not.toContain('\x9b');
    expect(h.stdout.split('\n').every((l) => l.length < 400)).toBe(true);
  });

  it('a profile named but not saved fails with exit 2; --embedded checks the embedded server', async () => {
    const r = await cliFor(configDir())(['doctor', '--profile', 'nosuch', '-o', 'json']);
    expect(r.code, r.stderr).toBe(2);
    expect(check(r.json<{ checks: Check[] }>().checks, 'profile')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('unknown profile "nosuch"'),
    });
    const e = await cliFor(configDir(), { AGCTL_DATA_DIR: join(work, 'data') })(['--embedded', 'doctor', '-o', 'json']);
    expect(e.code, e.stderr).toBe(0);
    const checks = e.json<{ checks: Check[] }>().checks;
    expect(check(checks, 'base URL')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/) });
    expect(check(checks, 'clock')).toMatchObject({ status: 'ok' });
    expect(check(checks, 'token')).toMatchObject({ status: 'skip' });
  });

  it('TLS: a certificate no authority vouches for fails (exit 9); trusted through NODE_EXTRA_CA_CERTS, its names and expiry are shown', async () => {
    // A certificate authority made for this test: its key never leaves the run.
    const pki = testPki('localhost');
    const caFile = join(work, 'doctor-ca.pem');
    writeFileSync(caFile, pki.caCert);
    const server = createHttpsServer({ key: pki.key, cert: pki.cert }, (_, res) => res.writeHead(404).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const env = { AGCTL_BASE_URL: `https://localhost:${(server.address() as AddressInfo).port}` };
      const r = await cliFor(configDir(), env)(['doctor', '-o', 'json']);
      expect(r.code, r.stderr).toBe(9);
      expect(check(r.json<{ checks: Check[] }>().checks, 'TLS')).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/certificate/),
        hint: expect.stringContaining('NODE_EXTRA_CA_CERTS'),
      });
      // A new process reads NODE_EXTRA_CA_CERTS at its start.
      const trusted = await spawnCliProcess(['doctor', '-o', 'json'], {
        configDir: configDir(),
        env: { ...env, NODE_EXTRA_CA_CERTS: caFile },
      });
      expect(trusted.code, trusted.stdout + trusted.stderr).toBe(0);
      const checks = trusted.json<{ checks: Check[] }>().checks;
      // The test authority's certificate is valid for a day: a warning that it expires soon, not a failure.
      expect(check(checks, 'TLS')).toMatchObject({
        status: 'warn',
        detail: expect.stringMatching(
          /^TLSv1\.[23], certificate for localhost from agctl test authority [0-9a-f]+, valid until \d{4}-.*\(in \d+ days?\)$/,
        ),
      });
      expect(check(checks, 'clock')).toMatchObject({ status: 'ok' });
    } finally {
      server.close();
    }
  });

  it('names the proxy that applies, without its credentials, and NO_PROXY', async () => {
    const cli = cliFor(configDir(), {
      AGCTL_BASE_URL: 'https://tenant.invalid',
      HTTPS_PROXY: 'http://user:s3cret@127.0.0.1:9',
      NO_PROXY: 'example.com',
    });
    const r = await cli(['doctor', '-o', 'json']);
    const checks = r.json<{ checks: Check[] }>().checks;
    expect(check(checks, 'proxy')).toMatchObject({ status: 'ok', detail: 'HTTPS_PROXY: http://127.0.0.1:9 (with credentials, not shown)' });
    // The connection goes to the proxy (closed here): named as such.
    expect(check(checks, 'TCP')).toMatchObject({ status: 'fail', detail: '127.0.0.1:9 (the proxy): connection refused' });
    expect(r.code).toBe(9);
    expect(r.stdout + r.stderr).not.toContain('s3cret');
    const direct = await cliFor(configDir(), {
      AGCTL_BASE_URL: 'https://a.example.com',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '.example.com',
    })(['doctor', '-o', 'json']);
    expect(check(direct.json<{ checks: Check[] }>().checks, 'proxy')).toMatchObject({ detail: 'none: a direct connection' });
  });
});
