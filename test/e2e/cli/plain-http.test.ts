// A plain client secret goes only over https or to this machine: plain http to
// another host is refused before any connection, unless --insecure-http (or
// AGCTL_INSECURE_HTTP, or a profile logged in with it) allows it, with a warning
// on every use. "Another host" is agctl-test.invalid, which this file's lookup
// resolves to the loopback test server: nothing ever leaves the machine, and
// every lookup of it (the first step of any connection) is recorded.
import dns from 'node:dns';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliFor, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

const s = await startTestServer();
const LAB = 'agctl-test.invalid';
const labUrl = `http://${LAB}:${new URL(s.baseUrl).port}`;
const app = s.demo.rules.appId as string;
const work = tempDir('agctl-plain-http-');
let n = 0;
const cli = (env: Record<string, string> = {}) => cliFor(join(work, `cfg${n++}`), env);
const plain = s.plainClient;

let lookups = 0;
const realLookup = dns.lookup;
beforeAll(() => {
  dns.lookup = ((host: string, opts: unknown, cb?: unknown) => {
    const [o, done] = (typeof opts === 'function' ? [{}, opts] : [opts ?? {}, cb]) as [dns.LookupOptions, (...a: unknown[]) => void];
    if (host !== LAB) return realLookup(host, o, done as never);
    lookups++;
    if (o.all) done(null, [{ address: '127.0.0.1', family: 4 }]);
    else done(null, '127.0.0.1', 4);
  }) as typeof dns.lookup;
});
afterAll(() => {
  dns.lookup = realLookup;
});
beforeEach(() => {
  lookups = 0;
});

const refusal = `agctl: refusing to send the client secret in clear to ${labUrl}: plain http to a host other than this machine`;
const hint = `use https://${LAB}:${new URL(s.baseUrl).port}; for a lab server without TLS, pass --insecure-http (login keeps it in the profile) or set AGCTL_INSECURE_HTTP=1`;
const warning = (by: string) =>
  `! ${labUrl} uses plain http: the client secret and the tokens cross the network unencrypted (allowed by ${by})`;

function expectRefused(r: CliResult) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(refusal);
  expect(r.stderr).toContain(hint);
  expect(r.stderr + r.stdout).not.toContain(plain.clientSecret);
  expect(lookups).toBe(0);
}

describe('a plain client secret and plain http to another machine', () => {
  it('login refuses it (exit 2) before any connection, and saves nothing', async () => {
    const run = cli();
    expectRefused(
      await run(['login', '--base-url', labUrl, '--client-id', plain.clientId, '--client-secret-stdin'], {
        input: `${plain.clientSecret}\n`,
      }),
    );
    expect((await run(['auth', 'list', '-o', 'json'])).json()).toEqual([]);
  });

  it('a command with the secret in the environment refuses it (exit 2) before any connection', async () => {
    expectRefused(
      await cli({ AGCTL_BASE_URL: labUrl, AGCTL_CLIENT_ID: plain.clientId, AGCTL_CLIENT_SECRET: plain.clientSecret })([
        'rules',
        'list',
        app,
      ]),
    );
  });

  it('--insecure-http lets it through with a warning on every use; login keeps the choice in the profile', async () => {
    const run = cli();
    const login = await run(
      ['login', '--insecure-http', '--profile', 'lab', '--base-url', labUrl, '--client-id', plain.clientId, '--client-secret-stdin'],
      { input: plain.clientSecret },
    );
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr.split('\n')).toContain(warning('--insecure-http'));
    expect(lookups).toBeGreaterThan(0);

    // Later commands of the profile need no flag, and warn each time.
    for (let i = 0; i < 2; i++) {
      const list = await run(['rules', 'list', app, '--profile', 'lab', '-o', 'json']);
      expect(list.code, list.stderr).toBe(0);
      expect(list.json()).toHaveLength(26);
      expect(list.stderr.split('\n').filter((l) => l.startsWith('! '))).toEqual([warning('profile "lab"')]);
    }
    // Completion, which cannot warn, does not send the cached token there (it offers nothing).
    lookups = 0;
    const completed = await run(['__complete', '--', '--profile', 'lab', 'rules', 'delete', app, ''], {
      env: { AGCTL_COMPLETE_BUDGET_MS: '5000' },
    });
    expect([completed.code, completed.stderr, completed.stdout]).toEqual([0, '', ':4\n']);
    expect(lookups).toBe(0);
    // A new secret for the same client and URL: the profile's choice holds.
    const again = await run(['login', '--profile', 'lab', '--no-input', '--client-secret-stdin'], { input: plain.clientSecret });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(warning('profile "lab"'));

    // Logged in again over loopback, the profile drops it: plain http to the lab is refused again.
    expect(
      (
        await run(
          ['login', '--profile', 'lab', '--base-url', s.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin', '--force'],
          { input: plain.clientSecret },
        )
      ).code,
    ).toBe(0);
    lookups = 0;
    expectRefused(
      await run(['login', '--profile', 'lab', '--base-url', labUrl, '--client-id', plain.clientId, '--client-secret-stdin', '--force'], {
        input: plain.clientSecret,
      }),
    );
  });

  it('AGCTL_INSECURE_HTTP allows it too (not when 0, false or empty)', async () => {
    const env = { AGCTL_BASE_URL: labUrl, AGCTL_CLIENT_ID: plain.clientId, AGCTL_CLIENT_SECRET: plain.clientSecret };
    for (const off of ['0', 'false', '']) expectRefused(await cli({ ...env, AGCTL_INSECURE_HTTP: off })(['rules', 'list', app]));
    const r = await cli({ ...env, AGCTL_INSECURE_HTTP: '1' })(['rules', 'list', app, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(warning('AGCTL_INSECURE_HTTP'));
  });

  it('the loopback server itself needs no flag and gets no warning', async () => {
    const r = await cli({ AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_ID: plain.clientId, AGCTL_CLIENT_SECRET: plain.clientSecret })([
      'rules',
      'list',
      app,
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('other credentials over plain http to another machine', () => {
  it('a bearer token (AGCTL_ACCESS_TOKEN) is sent, with a warning', async () => {
    const r = await cli({ AGCTL_BASE_URL: labUrl, AGCTL_ACCESS_TOKEN: await s.token() })(['rules', 'list', app, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `! ${labUrl} uses plain http: the access token crosses the network unencrypted (use https unless this is a test server)`,
    );
  });

  it('a key-form secret is not refused (only a signed assertion is sent), with a warning', async () => {
    const r = await cli({ AGCTL_BASE_URL: labUrl, AGCTL_CLIENT_ID: s.keyClient.clientId, AGCTL_CLIENT_SECRET: s.keyClient.clientSecret })([
      'rules',
      'list',
      app,
    ]);
    expect(r.stderr).toContain(
      `! ${labUrl} uses plain http: the client assertion and the tokens cross the network unencrypted (use https unless this is a test server)`,
    );
    // The test server knows itself as 127.0.0.1, not by the lab's name: it refuses the assertion's
    // audience, which shows the assertion was sent.
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/^agctl: authentication failed: client assertion rejected: unexpected .*aud.* claim value/m);
    expect(lookups).toBeGreaterThan(0);
    expect(r.stderr + r.stdout).not.toContain(s.keyClient.clientSecret);
  });
});
