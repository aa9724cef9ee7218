// Ordinary user and environment mistakes, through the real binary: each must
// end with one clear line and a fitting exit code, never "unexpected error"
// (exit 1, the bug path) and never a stack trace.
import { randomBytes } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateJwkPair } from '../../../src/lib/keypair.js';
import { cliFor, runCli, tempDir, type CliResult } from '../../helpers/cli.js';
import { ecKey, privatePem, rsa1024Key } from '../../helpers/keys.js';
import { startTestServer } from '../../helpers/server.js';

const work = tempDir('agctl-mistakes-e2e-');
let n = 0;
const cli = (env: Record<string, string | undefined> = {}) => cliFor(join(work, `cfg${n++}`), env);

/** One `agctl: …` line (and at most a hint), the expected exit code, no bug report, no stack. */
function expectClearError(r: CliResult, code: number, line: RegExp | string): void {
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(typeof line === 'string' ? new RegExp(`^agctl: ${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : line);
  expect(lines.length, r.stderr).toBeLessThanOrEqual(2);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
  expect(r.stderr).not.toMatch(/unexpected error|please report it|\n\s+at /);
}

describe('file inputs', () => {
  it('stops reading a file that never ends, and names directories and missing files', async () => {
    const run = cli({ AGCTL_BASE_URL: 'http://127.0.0.1:1', AGCTL_ACCESS_TOKEN: 't' });
    // /dev/zero never ends: only the size bound stops the read.
    expectClearError(
      await run(['mcp', 'set-credentials', 'ai-tools', 'wiki-mcp', '--from-file', '/dev/zero']),
      2,
      '--from-file /dev/zero: larger than 1048576 bytes (1 MiB)',
    );
    expectClearError(
      await run(['mcp', 'set-credentials', 'ai-tools', 'wiki-mcp', '--from-file', work]),
      2,
      `--from-file ${work}: is a directory`,
    );
    expectClearError(
      await run(['webhook', 'send', 'http://127.0.0.1:1/x', '--data-file', '/dev/zero'], { env: { AGCTL_WEBHOOK_SECRET: 's' } }),
      2,
      '--data-file /dev/zero: larger than 16777216 bytes (16 MiB)',
    );
    expectClearError(
      await run(['webhook', 'verify', '--request', join(work, 'none.http')], { env: { AGCTL_WEBHOOK_SECRET: 's' } }),
      2,
      `--request ${join(work, 'none.http')}: no such file or directory`,
    );
    expectClearError(
      await run(['webhook', 'send', 'http://127.0.0.1:1/x', '-d', '{}', '--secret-file', '/dev/zero']),
      2,
      '--secret-file /dev/zero: larger than 1048576 bytes (1 MiB)',
    );
  });
});

describe('serve and --embedded: addresses, data directories, seal keys', () => {
  const run = cli();
  const serve = (...args: string[]) => run(['serve', '--quiet', ...args], { timeoutMs: 15_000 });

  it('names an address in use, an address not on this machine and a host name that does not resolve', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as AddressInfo).port;
    try {
      expectClearError(
        await serve('--port', String(port), '--data-dir', join(work, 'd-port')),
        2,
        `cannot listen on 127.0.0.1:${port}: the address is already in use`,
      );
    } finally {
      taken.close();
    }
    expectClearError(
      await serve('--host', '192.0.2.1', '--data-dir', join(work, 'd-port')),
      2,
      'cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine',
    );
    expectClearError(
      await serve('--host', 'not a host', '--data-dir', join(work, 'd-port')),
      2,
      'cannot listen on "not a host": no such host name',
    );
  });

  it('names a data directory that is a file, or under one, from --data-dir, AGCTL_DATA_DIR and --embedded', async () => {
    const file = join(work, 'plain-file');
    writeFileSync(file, 'x');
    expectClearError(await serve('--data-dir', file), 2, `data directory ${file}: it is a file, not a directory`);
    expectClearError(
      await serve('--data-dir', join(file, 'sub')),
      2,
      `data directory ${join(file, 'sub')}: ${file} is a file, not a directory`,
    );
    const viaEnv = await run(['serve', '--quiet'], { env: { AGCTL_DATA_DIR: file } });
    expectClearError(viaEnv, 2, `data directory ${file}: it is a file, not a directory`);
    expect(viaEnv.stderr).toContain('with AGCTL_DATA_DIR');
    expectClearError(
      await run(['--embedded', 'rules', 'list', 'crm-app'], { env: { AGCTL_DATA_DIR: join(file, 'sub') } }),
      2,
      `--embedded: data directory ${join(file, 'sub')}: ${file} is a file, not a directory`,
    );
  });

  it('refuses --embedded together with --base-url rather than ignoring one', async () => {
    expectClearError(
      await run(['--embedded', '--base-url', 'https://acme.example.com', 'rules', 'list', 'crm-app']),
      2,
      '--embedded runs its own server; it cannot be combined with --base-url',
    );
  });

  it('names a damaged database and malformed seal keys', async () => {
    const corrupt = join(work, 'd-corrupt');
    mkdirSync(corrupt);
    writeFileSync(join(corrupt, 'agctl.db'), randomBytes(8192));
    expectClearError(
      await serve('--data-dir', corrupt),
      2,
      `the database ${join(corrupt, 'agctl.db')} is damaged or not an agctl database (SQLite: file is not a database)`,
    );
    expectClearError(
      await run(['serve', '--quiet', '--data-dir', join(work, 'd-garbage-key')], { env: { AGCTL_SEAL_KEY: 'garbage' } }),
      2,
      'AGCTL_SEAL_KEY is not a valid seal key: it must be 32 bytes, written as 64 hex digits or 43 base64url characters',
    );
    const shortKey = join(work, 'd-short-key');
    mkdirSync(shortKey);
    writeFileSync(join(shortKey, 'seal.key'), 'abc\n');
    expectClearError(
      await serve('--data-dir', shortKey),
      2,
      /^agctl: the seal key file .*d-short-key\/seal\.key is damaged: it must hold 32 bytes/,
    );
  });

  it('says when AGCTL_SEAL_KEY is not the key the data directory was sealed with', async () => {
    const dir = join(work, 'd-sealed');
    const first = await run(['--embedded', 'rules', 'list', 'crm-app', '--limit', '1'], {
      env: { AGCTL_DATA_DIR: dir, AGCTL_SEAL_KEY: randomBytes(32).toString('hex') },
    });
    expect(first.code, first.stderr).toBe(0);
    const other = { AGCTL_DATA_DIR: dir, AGCTL_SEAL_KEY: randomBytes(32).toString('hex') };
    const r = await run(['--embedded', 'rules', 'list', 'crm-app'], { env: other });
    expectClearError(r, 2, `--embedded: the data directory ${dir} holds secrets sealed with another key than AGCTL_SEAL_KEY`);
    expect(r.stderr).toMatch(/^hint: set AGCTL_SEAL_KEY to the key used before/m);
    expectClearError(
      await run(['serve', '--quiet', '--data-dir', dir], { env: other }),
      2,
      `the data directory ${dir} holds secrets sealed with another key than AGCTL_SEAL_KEY`,
    );
  });
});

describe('the config directory and its key', () => {
  it('names AGCTL_CONFIG_DIR when it is a regular file', async () => {
    const file = join(work, 'config-file');
    writeFileSync(file, 'x');
    const inFile = (args: string[], input?: string) => runCli(args, { configDir: file, input });
    expectClearError(await inFile(['auth', 'status']), 2, `AGCTL_CONFIG_DIR ${file}: it is a file, not a directory`);
    expectClearError(
      await inFile(['login', '--base-url', 'http://127.0.0.1:1', '--client-id', 'x', '--client-secret-stdin'], 'secret'),
      2,
      `AGCTL_CONFIG_DIR ${file}: it is a file, not a directory`,
    );
  });

  it('says a stored secret cannot be unsealed under another AGCTL_CONFIG_KEY, instead of "no credentials"', async () => {
    const s = await startTestServer();
    const dir = join(work, 'cfg-sealed');
    const login = await runCli(['login', '--base-url', s.baseUrl, '--client-id', s.plainClient.clientId, '--client-secret-stdin'], {
      configDir: dir,
      input: s.plainClient.clientSecret,
    });
    expect(login.code, login.stderr).toBe(0);
    const other = { AGCTL_CONFIG_KEY: randomBytes(32).toString('hex') };
    const status = await runCli(['auth', 'status'], { configDir: dir, env: other });
    expect(status.code, status.stderr).toBe(3);
    expect(status.stdout).toMatch(
      /^Credentials: +stored \(sealed\), but cannot be unsealed: it was sealed with another key than AGCTL_CONFIG_KEY, or its file was edited$/m,
    );
    expect(status.stderr).toMatch(/^hint: set AGCTL_CONFIG_KEY to the key used when it was stored/m);
    expectClearError(
      await runCli(['rules', 'list', 'crm-app'], { configDir: dir, env: other }),
      3,
      'the stored client secret of profile "default" cannot be unsealed: it was sealed with another key than AGCTL_CONFIG_KEY, or its file was edited',
    );
    // Logging out still works (nothing needs unsealing), and so does logging in again.
    expect((await runCli(['logout'], { configDir: dir, env: other })).code).toBe(0);
  });
});

describe('webhook send --jwt-key', () => {
  it('refuses keys that cannot sign with exit 2 and a plain reason', async () => {
    const run = cli({ AGCTL_BASE_URL: 'http://127.0.0.1:1' });
    const send = (key: string) =>
      run(['webhook', 'send', 'http://127.0.0.1:1/api/v1/webhooks/incoming/L1', '-d', '{}', '--jwt-key', key, '--dry-run']);
    const short = join(work, 'rsa1024.pem');
    writeFileSync(short, privatePem(rsa1024Key()));
    expectClearError(await send(short), 2, `--jwt-key ${short}: RSA keys must be at least 2048 bits; this one has 1024`);
    const ec = ecKey();
    const encrypted = join(work, 'encrypted.pem');
    writeFileSync(encrypted, privatePem(ec, { cipher: 'aes-256-cbc', passphrase: 'x' }));
    expectClearError(
      await send(encrypted),
      2,
      /^agctl: --jwt-key .*encrypted\.pem: encrypted PEM keys are not supported: decrypt it with openssl first/,
    );
    const badD = join(work, 'bad-d.jwk.json');
    const jwk = ec.export({ format: 'jwk' });
    writeFileSync(badD, JSON.stringify({ ...jwk, d: generateJwkPair({ type: 'ec', namedCurve: 'P-256' }).privateJwk.d }));
    const r = await run(['webhook', 'send', 'http://127.0.0.1:1/x', '-d', '{}', '--jwt-key', badD, '--dry-run', '--debug']);
    expectClearError(
      r,
      2,
      `--jwt-key ${badD}: the key is not a valid private key: its private part does not match its public part, or is malformed`,
    );
  });
});

describe('webhook keygen --out', () => {
  it('names a file where a directory should be, and creates missing directories 0700', async () => {
    const run = cli();
    const base = join(work, 'keys');
    mkdirSync(base);
    writeFileSync(join(base, 'tok'), 'x');
    expectClearError(
      await run(['webhook', 'keygen', '--out', join(base, 'tok', 'k')]),
      2,
      `--out ${join(base, 'tok', 'k')}: cannot write ${join(base, 'tok', 'k.private.jwk.json')}: ${join(base, 'tok')} is a file, not a directory`,
    );
    const ok = await run(['webhook', 'keygen', '--out', join(base, 'new', 'deeper', 'k')]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(statSync(join(base, 'new')).mode & 0o777).toBe(0o700);
    expect(statSync(join(base, 'new', 'deeper')).mode & 0o777).toBe(0o700);
    expect(statSync(join(base, 'new', 'deeper', 'k.private.jwk.json')).mode & 0o777).toBe(0o600);
  });
});

describe('network mistakes', () => {
  it('says an https base URL reached a plain-HTTP server (exit 9), and fits the hint to where the URL came from', async () => {
    const s = await startTestServer();
    const host = new URL(s.baseUrl).host;
    const r = await cli({ AGCTL_ACCESS_TOKEN: 't' })(['--base-url', `https://${host}`, 'rules', 'list', 'crm-app']);
    expectClearError(r, 9, `TLS handshake with ${host} failed: the server does not speak TLS on that port (is it http://?)`);
    expect(r.stderr).toMatch(/^hint: check --base-url: a server that speaks plain HTTP needs an http:\/\/ URL$/m);

    const free = createServer();
    await new Promise<void>((res) => free.listen(0, '127.0.0.1', () => res()));
    const port = (free.address() as AddressInfo).port;
    await new Promise((res) => free.close(res));
    const sent = await cli({ AGCTL_WEBHOOK_SECRET: 's' })([
      'webhook',
      'send',
      `http://127.0.0.1:${port}/api/v1/webhooks/incoming/L1`,
      '-d',
      '{}',
    ]);
    expectClearError(sent, 9, `cannot reach http://127.0.0.1:${port}: connection refused`);
    expect(sent.stderr).toMatch(/^hint: is the server running\? check the listener URL$/m);
  });
});
