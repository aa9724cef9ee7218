// agctl webhook send | verify | keygen: the real binary against the in-process
// embedded server (and small loopback helpers: a JWKS host, a capture server).
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, cliFor, startCli, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { hmacSignature } from '../../../src/webhook/sign.js';

const s = await startTestServer({ allowInsecureJwks: true });
const w = s.demo.webhooks;
const work = tempDir('agctl-webhook-e2e-');
const hmacUrl = s.baseUrl + w.hmac.path;
const secret = w.hmac.secret as string;
let n = 0;
const cli = (env: Record<string, string | undefined> = {}) => cliFor(join(work, `cfg${n++}`), { AGCTL_BASE_URL: s.baseUrl, ...env });
const withSecret = () => cli({ AGCTL_WEBHOOK_SECRET: secret });
const runsOf = async (listenerId: string) =>
  (await s.api(`/_embedded/v1/webhook_listeners/${listenerId}/runs?limit=1000`)).body as { runs: any[]; total: number };
const mode = (p: string) => statSync(p).mode & 0o777;

function expectNoSecret(r: CliResult, ...extra: string[]) {
  for (const x of [secret, ...extra]) {
    expect(r.stdout).not.toContain(x);
    expect(r.stderr).not.toContain(x);
  }
}

/** A loopback server that records the raw request it receives and answers 200. */
function captureServer(): { start(): Promise<string>; last(): Buffer; stop(): Promise<void> } {
  let raw = Buffer.alloc(0);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const head = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) head.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      raw = Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n'), ...chunks]);
      res.setHeader('content-type', 'application/json');
      res.end('{"status":200,"reason":"captured","eventId":null}');
    });
  });
  return {
    start: () => new Promise((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    last: () => raw,
    stop: () => new Promise((r) => server.close(() => r())),
  };
}

describe('webhook send (HMAC)', () => {
  it('sends a signed event, prints the answer, and a replay exits 6 with the 409', async () => {
    const first = await withSecret()(['webhook', 'send', hmacUrl, '-d', '{"ticket":"INC-7"}']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Status: +200 OK$/m);
    expect(first.stdout).toMatch(/^Reason: +accepted; automation run started$/m);
    const id = /^Event ID: +(\S+)$/m.exec(first.stdout)![1]!;
    const runs = await runsOf(w.hmac.listenerId);
    expect(runs.runs.find((r) => r.eventId === id)?.context).toEqual({ trigger: { ticket: 'INC-7' } });
    const replay = await withSecret()(['webhook', 'send', hmacUrl, '-d', '{"ticket":"INC-7"}', '--event-id', id, '-o', 'json']);
    expect(replay.code).toBe(6);
    expect(replay.json()).toMatchObject({ status: 409, eventId: id, url: hmacUrl, response: { status: 409, eventId: id } });
    expectNoSecret(first);
    expectNoSecret(replay);
  });

  it('takes a listener ID, the body from stdin or a file, and the secret from a file or stdin', async () => {
    const secretFile = join(work, 'secret.txt');
    writeFileSync(secretFile, secret + '\n', { mode: 0o600 });
    const bodyFile = join(work, 'body.json');
    writeFileSync(bodyFile, '{"from":"file"}');
    const [stdinBody, fileSecret, stdinSecret] = await Promise.all([
      withSecret()(['webhook', 'send', w.hmac.listenerId, '-o', 'json'], { input: '{"from":"stdin"}' }),
      cli()(['webhook', 'send', w.hmac.listenerId, '--data-file', bodyFile, '--secret-file', secretFile, '-o', 'json']),
      cli()(['webhook', 'send', w.hmac.listenerId, '-d', '{"from":"flag"}', '--secret-stdin', '-o', 'json'], { input: secret }),
    ]);
    for (const r of [stdinBody, fileSecret, stdinSecret]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().status).toBe(200);
    }
    const runs = await runsOf(w.hmac.listenerId);
    for (const [r, from] of [
      [stdinBody, 'stdin'],
      [fileSecret, 'file'],
      [stdinSecret, 'flag'],
    ] as const) {
      expect(runs.runs.find((x) => x.eventId === r.json().eventId)?.context.trigger).toEqual({ from });
    }
  });

  it.each([
    [
      'a wrong secret',
      () => cli({ AGCTL_WEBHOOK_SECRET: 'not-the-secret' })(['webhook', 'send', hmacUrl, '-d', '{}']),
      3,
      /signature mismatch/,
    ],
    [
      'the restricted listener from loopback',
      () => withSecret()(['webhook', 'send', s.baseUrl + w.restricted.path, '-d', '{}']),
      4,
      /not in the listener's allowed ranges/,
    ],
    ['an unknown listener', () => withSecret()(['webhook', 'send', 'no-such-listener', '-d', '{}']), 5, /no webhook listener/],
    [
      'a stale --timestamp',
      () => withSecret()(['webhook', 'send', hmacUrl, '-d', '{}', '--timestamp', String(Math.floor(Date.now() / 1000) - 3600)]),
      7,
      /behind server time/,
    ],
    [
      'a body over 64 KiB',
      () => withSecret()(['webhook', 'send', hmacUrl, '-d', JSON.stringify({ pad: 'x'.repeat(70_000) })]),
      7,
      /larger than 65536 bytes/,
    ],
    ['a body that is not JSON', () => withSecret()(['webhook', 'send', hmacUrl, '-d', '{oops']), 7, /not valid JSON/],
  ])('exits from the status for %s', async (_name, run, code, reason) => {
    const r = await run();
    expect(r.code, r.stderr).toBe(code);
    expect(r.stdout).toMatch(reason);
  });

  it('refuses bad usage with exit 2 and names the way to give the secret', async () => {
    const noSecret = await cli()(['webhook', 'send', hmacUrl, '-d', '{}']);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/missing webhook signing secret: provide it with --secret-stdin, --secret-file, AGCTL_WEBHOOK_SECRET/);
    const both = await withSecret()([
      'webhook',
      'send',
      hmacUrl,
      '-d',
      '{}',
      '--count',
      '2',
      '--event-id',
      'a8098c1a-f86e-41da-bd1a-00112444be1e',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--event-id cannot be used with --count/);
    const noBody = await withSecret()(['webhook', 'send', hmacUrl, '--secret-stdin'], { input: secret });
    expect(noBody.code).toBe(2);
    expect(noBody.stderr).toMatch(/standard input already carries the secret/);
    const badUrl = await withSecret()(['webhook', 'send', 'ftp://example.com/x', '-d', '{}']);
    expect(badUrl.code).toBe(2);
  });

  it("to an unknown path shows the server's message, not its JSON body", async () => {
    const r = await withSecret()(['webhook', 'send', `${s.baseUrl}/api/v1/webhooks/elsewhere/L1`, '-d', '{}']);
    expect(r.code).toBe(5);
    expect(r.stdout).toMatch(/^Reason: +no route for POST \/api\/v1\/webhooks\/elsewhere\/L1$/m);
    expect(r.stdout).not.toContain('{');
  });

  it('--dry-run -o json prints the signed request as JSON (method, url, headers, body) that works when sent', async () => {
    const before = (await runsOf(w.hmac.listenerId)).total;
    const body = '{"dry":"json"}';
    const r = await withSecret()(['webhook', 'send', hmacUrl, '-d', body, '--dry-run', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const req = r.json();
    expect(req).toMatchObject({ method: 'POST', url: hmacUrl, body, headers: { 'Content-Type': 'application/json' } });
    const ts = req.headers['Webhook-Timestamp'];
    const id = req.headers['Webhook-Event-Id'];
    expect(req.headers['Webhook-Signature']).toBe(createHmac('sha256', secret).update(`${ts}.${id}.${body}`).digest('base64url'));
    expect((await runsOf(w.hmac.listenerId)).total).toBe(before);
    expectNoSecret(r);
    const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body });
    expect(res.status).toBe(200);
    expect((await runsOf(w.hmac.listenerId)).runs.find((x) => x.eventId === id)?.context.trigger).toEqual({ dry: 'json' });
  });

  it('--dry-run -o json gives a body that is not UTF-8 as base64', async () => {
    const file = join(work, 'latin1.bin');
    writeFileSync(file, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]));
    const r = await withSecret()(['webhook', 'send', hmacUrl, '--data-file', file, '--dry-run', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ body: Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]).toString('base64'), bodyEncoding: 'base64' });
  });

  it("warns before sending a body the listener refuses as not UTF-8 JSON, by the listener's own rule", async () => {
    const file = join(work, 'latin1-warn.bin');
    writeFileSync(file, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d])); // {"a":"é"} in Latin-1
    const r = await withSecret()(['webhook', 'send', hmacUrl, '--data-file', file, '--dry-run', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('the body is not valid JSON: the listener will answer 400');
    const good = await withSecret()(['webhook', 'send', hmacUrl, '-d', '{"a":"é"}', '--dry-run', '-o', 'json']);
    expect(good.stderr).not.toContain('not valid JSON');
  });

  it('--dry-run prints a runnable curl command with the exact signature, and sends nothing', async () => {
    const before = (await runsOf(w.hmac.listenerId)).total;
    const body = `{"it's":"quoted","n":1}`;
    const r = await withSecret()(['webhook', 'send', hmacUrl, '-d', body, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^curl -sS -X POST ${hmacUrl.replace(/[.?]/g, '\\$&')} \\\\$`, 'm'));
    const ts = /Webhook-Timestamp: (\d+)/.exec(r.stdout)![1]!;
    const id = /Webhook-Event-Id: ([0-9a-f-]{36})/.exec(r.stdout)![1]!;
    const sig = /Webhook-Signature: ([\w-]+)/.exec(r.stdout)![1]!;
    expect(sig).toBe(createHmac('sha256', secret).update(`${ts}.${id}.${body}`).digest('base64url'));
    expect(r.stdout).toContain(`--data-binary '{"it'\\''s":"quoted","n":1}'`);
    expect((await runsOf(w.hmac.listenerId)).total).toBe(before);
    let hasCurl = true;
    try {
      execFileSync('curl', ['--version'], { stdio: 'ignore' });
    } catch {
      hasCurl = false;
    }
    if (hasCurl) {
      // Asynchronously: the server answering it runs in this process.
      const { stdout: out } = await promisify(execFile)('sh', ['-c', r.stdout], { encoding: 'utf8', timeout: 10_000 });
      expect(JSON.parse(out)).toMatchObject({ status: 200, eventId: id });
      expect((await runsOf(w.hmac.listenerId)).runs.find((x) => x.eventId === id)?.context.trigger).toEqual(JSON.parse(body));
    }
  });
});

// The load-mode suites run side by side with the Ctrl-C one below: each sends to a listener or server of its own,
// but for --rate, whose demo listener's runs nothing else here counts.
describe.concurrent('webhook send (load mode)', () => {
  it('sends N events with fresh IDs and summarizes statuses and latency', async () => {
    const l = (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener;
    const r = await cli({ AGCTL_WEBHOOK_SECRET: l.secret })([
      'webhook',
      'send',
      l.url,
      '-d',
      '{"load":true}',
      '--count',
      '300',
      '--concurrency',
      '8',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const sum = r.json();
    expect(sum).toMatchObject({ count: 300, concurrency: 8, statuses: { '200': 300 }, errors: {} });
    expect(sum.throughput).toBeGreaterThan(0);
    expect(sum.latencyMs.p50).toBeLessThanOrEqual(sum.latencyMs.p95);
    expect(sum.latencyMs.p95).toBeLessThanOrEqual(sum.latencyMs.p99);
    expect(sum.latencyMs.p99).toBeLessThanOrEqual(sum.latencyMs.max);
    const runs = await runsOf(l.id);
    expect(runs.total).toBe(300);
    expect(new Set(runs.runs.map((x) => x.eventId)).size).toBe(300);
  });

  it('paces with --rate, prints a table summary, and exits with the most frequent failure', async () => {
    const paced = await withSecret()(['webhook', 'send', hmacUrl, '-d', '{}', '--count', '20', '--concurrency', '4', '--rate', '100']);
    expect(paced.code, paced.stderr).toBe(0);
    expect(paced.stdout).toMatch(/^20 of 20 delivered: sent 20 events \(2-byte body\)/m);
    expect(paced.stderr).not.toMatch(/delivered/);
    expect(paced.stdout).toMatch(/^200 +20$/m);
    expect(paced.stdout).toMatch(/latency ms: p50 [\d.]+ +p95 [\d.]+ +p99 [\d.]+/);
    const secs = Number(/in ([\d.]+) s/.exec(paced.stdout)![1]);
    expect(secs).toBeGreaterThanOrEqual(0.18);
    const bad = await cli({ AGCTL_WEBHOOK_SECRET: 'wrong' })(['webhook', 'send', hmacUrl, '-d', '{}', '--count', '10', '-o', 'json']);
    expect(bad.code).toBe(3);
    expect(bad.json().statuses).toEqual({ '401': 10 });
  });
});

describe.concurrent('webhook send (load mode): delivery', () => {
  it('all refused: "0 of 10 delivered" and exit 9 (network failure), the error named in a word', async () => {
    // 10 attempts, fewer than a down listener takes to stop the run (webhook-campaign.test.ts).
    const url = 'http://127.0.0.1:1/api/v1/webhooks/incoming/L1';
    const r = await withSecret()(['webhook', 'send', url, '-d', '{}', '--count', '10']);
    expect(r.code).toBe(9);
    expect(r.stdout).toMatch(/^0 of 10 delivered: sent 10 events \(2-byte body\) to http:\/\/127\.0\.0\.1:1\//m);
    expect(r.stdout).toMatch(/^error refused +10$/m);
    // The rate is of requests completed, not of events delivered.
    expect(r.stdout).toMatch(/^in [\d.]+ s: [\d.]+ requests\/s, concurrency 16$/m);
    expect(r.stderr).toMatch(/^✗ 0 of 10 delivered; 10 no answer \(refused\)$/m);
    const json = await withSecret()(['webhook', 'send', url, '-d', '{}', '--count', '10', '-o', 'json']);
    expect(json.code).toBe(9);
    expect(json.json()).toMatchObject({ count: 10, sent: 10, delivered: 0, errors: { refused: 10 } });
  });

  it('partly delivered: "N of M delivered" and the exit code of the failures', async () => {
    let i = 0;
    const flaky = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.statusCode = i++ % 4 === 0 ? 503 : 200;
        res.end('{}');
      });
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/api/v1/webhooks/incoming/L1`;
      const r = await withSecret()(['webhook', 'send', url, '-d', '{}', '--count', '20', '--concurrency', '1']);
      expect(r.code, r.stderr).toBe(9);
      expect(r.stdout).toMatch(/^15 of 20 delivered: sent 20 events/m);
      expect(r.stderr).toMatch(/^✗ 15 of 20 delivered; 5 HTTP 503$/m);
    } finally {
      await new Promise((r) => flaky.close(r));
    }
  });
});

// In-process (Ctrl-C as the command sees it), against servers and config dirs of their own: side by side (one waits out the 2 s grace).
describe.concurrent('webhook send (load mode), Ctrl-C', () => {
  const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 10_000) => {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (await ok()) return;
    throw new Error(`timed out waiting for ${what}`);
  };

  it('stops sending, lets the requests in flight finish, prints what was sent as interrupted and exits 130', async () => {
    const l = (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener;
    const env = { ...baseEnv(join(work, `cfg${n++}`)), AGCTL_WEBHOOK_SECRET: l.secret };
    const run = startCli(
      ['webhook', 'send', l.url, '-d', '{}', '--count', '100000', '--concurrency', '4', '--rate', '200', '-o', 'json'],
      env,
    );
    await until('the first events', async () => (await runsOf(l.id)).total >= 5);
    run.interrupt();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    const sum = r.json();
    expect(sum).toMatchObject({ count: 100000, interrupted: true, errors: {} });
    expect(sum.sent).toBeGreaterThanOrEqual(5);
    expect(sum.sent).toBeLessThan(100000);
    // Every event sent was answered: none was cut off, none is missing from the summary.
    expect(sum.statuses).toEqual({ '200': sum.sent });
    expect((await runsOf(l.id)).total).toBe(sum.sent);
  });

  it('aborts requests still unanswered 2 s after Ctrl-C', async () => {
    let received = 0;
    const hang = createServer((req) => {
      received++;
      req.resume();
    });
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/api/v1/webhooks/incoming/L1`;
      const env = { ...baseEnv(join(work, `cfg${n++}`)), AGCTL_WEBHOOK_SECRET: secret };
      const run = startCli(['webhook', 'send', url, '-d', '{}', '--count', '10', '--concurrency', '2'], env);
      await until('two requests in flight', () => received >= 2);
      const interrupted = Date.now();
      run.interrupt();
      const r = await run.done;
      expect(r.code, r.stderr).toBe(130);
      expect(Date.now() - interrupted).toBeGreaterThanOrEqual(1900);
      expect(Date.now() - interrupted).toBeLessThan(8000);
      expect(r.stdout).toMatch(
        /^Interrupted \(Ctrl-C\) after sending 2 of 10 events \(2-byte body\) to http:\/\/127\.0\.0\.1:\d+\/api\/v1\/webhooks\/incoming\/L1: 0 of 2 delivered$/m,
      );
      expect(r.stdout).toMatch(/^error aborted +2$/m);
      // No request was answered: no latency to show (not a latency of 0 ms).
      expect(r.stdout).toMatch(/^latency: none measured \(no request answered\)$/m);
      expect(r.stdout).not.toMatch(/p50/);
      expect(received).toBe(2);
    } finally {
      hang.closeAllConnections();
      await new Promise((r) => hang.close(r));
    }
  });
});

describe('webhook keygen and JWT sends', () => {
  const jwksHost = createServer((req, res) => {
    const file = join(work, req.url!.slice(1));
    if (!existsSync(file)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(readFileSync(file));
  });
  let jwksBase = '';
  beforeAll(async () => {
    await new Promise<void>((r) => jwksHost.listen(0, '127.0.0.1', r));
    jwksBase = `http://127.0.0.1:${(jwksHost.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => jwksHost.close(() => r())));

  it.each(['ES256', 'RS256', 'EdDSA'])('keygen --alg %s writes a 0600 private JWK and a JWKS a listener accepts', async (alg) => {
    const prefix = join(work, `key-${alg}`);
    const gen = await cli()(['webhook', 'keygen', '--alg', alg, '--out', prefix, '-o', 'json']);
    expect(gen.code, gen.stderr).toBe(0);
    const out = gen.json();
    expect(out).toMatchObject({ alg, privateKeyFile: `${prefix}.private.jwk.json`, jwksFile: `${prefix}.jwks.json` });
    expect(mode(out.privateKeyFile)).toBe(0o600);
    const priv = JSON.parse(readFileSync(out.privateKeyFile, 'utf8'));
    expect(priv).toMatchObject({ alg, kid: out.kid });
    expect(gen.stdout).not.toContain(priv.d);
    const jwks = JSON.parse(readFileSync(out.jwksFile, 'utf8'));
    expect(jwks.keys[0].d).toBeUndefined();

    const l = (
      await s.api('/_embedded/v1/webhook_listeners', {
        method: 'POST',
        json: { authMethod: 'JWT', jwksUrl: `${jwksBase}/key-${alg}.jwks.json` },
      })
    ).body.listener;
    const sent = await cli()(['webhook', 'send', l.url, '-d', `{"alg":"${alg}"}`, '--jwt-key', out.privateKeyFile, '-o', 'json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.json().response).toMatchObject({ status: 200, automationRan: true });
    const wrongTenant = await cli()([
      'webhook',
      'send',
      l.url,
      '-d',
      '{}',
      '--jwt-key',
      out.privateKeyFile,
      '--tenant',
      'https://other.example.com',
    ]);
    expect(wrongTenant.code).toBe(3);
    expect(wrongTenant.stdout).toMatch(/sub is not the tenant base URL/);
    const again = await cli()(['webhook', 'keygen', '--alg', alg, '--out', prefix]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
  });

  it('keygen never writes through a link planted at the JWKS name: refused as existing, and with --force replaced, its target untouched', async () => {
    const prefix = join(work, 'linked');
    const target = join(work, 'linked-target');
    symlinkSync(target, `${prefix}.jwks.json`);
    const refused = await cli()(['webhook', 'keygen', '--out', prefix]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/linked\.jwks\.json already exists/);
    const forced = await cli()(['webhook', 'keygen', '--out', prefix, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(`${prefix}.jwks.json`).isFile()).toBe(true);
    expect(statSync(`${prefix}.jwks.json`).mode & 0o777).toBe(0o644);
    expect(JSON.parse(readFileSync(`${prefix}.jwks.json`, 'utf8')).keys).toHaveLength(1);
  });

  it("signs the JWT sub as the origin of a full listener URL, not the profile's other host; --tenant overrides", async () => {
    const keyFile = join(work, 'demo-sub.private.jwk.json');
    writeFileSync(keyFile, JSON.stringify(w.jwt.privateJwk), { mode: 0o600 });
    const otherHost = cli({ AGCTL_BASE_URL: 'https://tenant.example.com' });
    const ok = await otherHost(['webhook', 'send', s.baseUrl + w.jwt.path, '-d', '{"sub":"origin"}', '--jwt-key', keyFile, '-o', 'json']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const dry = await otherHost(['webhook', 'send', s.baseUrl + w.jwt.path, '-d', '{}', '--jwt-key', keyFile, '--dry-run', '-o', 'json']);
    const claims = (h: string) => JSON.parse(Buffer.from(h.replace(/^Bearer /, '').split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims(dry.json().headers.Authorization)).toMatchObject({ sub: s.baseUrl, aud: s.baseUrl + w.jwt.path });
    const overridden = await otherHost([
      'webhook',
      'send',
      s.baseUrl + w.jwt.path,
      '-d',
      '{}',
      '--jwt-key',
      keyFile,
      '--tenant',
      'https://tenant.example.com/',
    ]);
    expect(overridden.code).toBe(3);
    expect(overridden.stdout).toMatch(/sub is not the tenant base URL/);
  });

  it('keygen and send take the algorithm in any case', async () => {
    const prefix = join(work, 'any-case');
    const gen = await cli()(['webhook', 'keygen', '--alg', 'es256', '--out', prefix, '-o', 'json']);
    expect(gen.code, gen.stderr).toBe(0);
    expect(gen.json()).toMatchObject({ alg: 'ES256', jwksFile: `${prefix}.jwks.json` });
    expect(JSON.parse(readFileSync(`${prefix}.private.jwk.json`, 'utf8')).alg).toBe('ES256');
    const dry = await cli()([
      'webhook',
      'send',
      hmacUrl,
      '-d',
      '{}',
      '--jwt-key',
      `${prefix}.private.jwk.json`,
      '--alg',
      'Es256',
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(
      JSON.parse(
        Buffer.from(
          dry
            .json()
            .headers.Authorization.split('.')[0]
            .replace(/^Bearer /, ''),
          'base64url',
        ).toString('utf8'),
      ),
    ).toMatchObject({ alg: 'ES256' });
    const bad = await cli()(['webhook', 'keygen', '--alg', 'hs256', '--out', prefix]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are ES256, RS256, EdDSA/);
  });

  it('signs with the demo key for the seeded JWT listener; a wrong kid exits 3', async () => {
    const keyFile = join(work, 'demo.private.jwk.json');
    writeFileSync(keyFile, JSON.stringify(w.jwt.privateJwk), { mode: 0o600 });
    const ok = await cli()(['webhook', 'send', w.jwt.listenerId, '-d', '{"demo":"jwt"}', '--jwt-key', keyFile]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/200 OK/);
    const badKid = await cli()(['webhook', 'send', w.jwt.listenerId, '-d', '{}', '--jwt-key', keyFile, '--kid', 'nope']);
    expect(badKid.code).toBe(3);
    expect(badKid.stdout).toMatch(/unknown kid "nope"/);
    const dry = await cli()(['webhook', 'send', w.jwt.listenerId, '-d', '{}', '--jwt-key', keyFile, '--dry-run']);
    expect(dry.stdout).toMatch(/-H 'Authorization: Bearer eyJ[\w-]+\.[\w-]+\.[\w-]+'/);
    expect(dry.stdout).not.toContain(w.jwt.privateJwk.d);
  });
});

describe('webhook verify', () => {
  const cap = captureServer();
  let capUrl = '';
  beforeAll(async () => {
    capUrl = await cap.start();
  });
  afterAll(() => cap.stop());

  /** Sends through the CLI to the capture server and saves the raw request. */
  async function capture(name: string, args: string[], env: Record<string, string> = { AGCTL_WEBHOOK_SECRET: secret }): Promise<string> {
    const r = await cli(env)(['webhook', 'send', `${capUrl}${w.hmac.path}`, ...args]);
    expect(r.code, r.stderr).toBe(0);
    const file = join(work, name);
    writeFileSync(file, cap.last());
    return file;
  }

  it('accepts a captured HMAC request offline and says the idempotency step was skipped', async () => {
    const file = await capture('ok.http', ['-d', '{"captured":true}']);
    const r = await withSecret()(['webhook', 'verify', '--request', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Status: +200 OK \(what the service would answer\)$/m);
    expect(r.stderr).toMatch(/step 4: idempotency .* skipped offline/);
    const json = (await withSecret()(['webhook', 'verify', '--request', file, '-o', 'json'])).json();
    expect(json).toMatchObject({ status: 200, step: 5, offline: true, authMethod: 'HMAC' });
    expectNoSecret(r);
  });

  it('names the failing rule and exits from the status it would get', async () => {
    const file = await capture('rules.http', ['-d', '{"n":812}']);
    const body = '{"n":812}';
    const raw = readFileSync(file, 'utf8');
    const ts = Number(/Webhook-Timestamp: (\d+)/i.exec(raw)![1]);
    const wrong = await cli({ AGCTL_WEBHOOK_SECRET: 'wrong-secret' })(['webhook', 'verify', '--request', file]);
    expect(wrong.code).toBe(3);
    expect(wrong.stdout).toMatch(new RegExp(`signature mismatch: computed over ${`${ts}.`.length + 37 + body.length} bytes`));
    const later = await withSecret()(['webhook', 'verify', '--request', file, '--now', String(ts + 301)]);
    expect(later.code).toBe(7);
    expect(later.stdout).toMatch(/301 s behind server time/);
    const edge = await withSecret()(['webhook', 'verify', '--request', file, '--now', String(ts + 300)]);
    expect(edge.code).toBe(0);
    const blocked = await withSecret()([
      'webhook',
      'verify',
      '--request',
      file,
      '--source-ip',
      '127.0.0.1',
      '--allowed-cidr',
      '10.0.0.0/8',
      '--allowed-cidr',
      '2001:db8::/32',
    ]);
    expect(blocked.code).toBe(4);
    expect(blocked.stdout).toMatch(/source address 127\.0\.0\.1 is not in/);
    const mapped = await withSecret()([
      'webhook',
      'verify',
      '--request',
      file,
      '--source-ip',
      '::ffff:10.1.2.3',
      '--allowed-cidr',
      '10.0.0.0/8',
    ]);
    expect(mapped.code).toBe(0);
    // Several ranges in one flag, comma-separated (as the listener's allowedCidrs list); a stray comma is named.
    const listed = await withSecret()([
      'webhook',
      'verify',
      '--request',
      file,
      '--source-ip',
      '11.2.3.4',
      '--allowed-cidr',
      '10.0.0.0/8, 11.0.0.0/8',
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    const notListed = await withSecret()([
      'webhook',
      'verify',
      '--request',
      file,
      '--source-ip',
      '12.0.0.1',
      '--allowed-cidr',
      '10.0.0.0/8,11.0.0.0/8',
    ]);
    expect(notListed.code).toBe(4);
    const stray = await withSecret()(['webhook', 'verify', '--request', file, '--source-ip', '12.0.0.1', '--allowed-cidr', '10.0.0.0/8,']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/^agctl: --allowed-cidr: an empty range \(a stray comma\?\)$/m);
    // A body changed after capture (one byte appended past Content-Length is ignored; one changed byte is not).
    writeFileSync(join(work, 'tampered.http'), raw.replace('{"n":812}', '{"n":813}'));
    const tampered = await withSecret()(['webhook', 'verify', '--request', join(work, 'tampered.http')]);
    expect(tampered.code).toBe(3);
  });

  it('agrees with the listener on what its HTTP layer decides: the size limit, repeated headers, ambiguous framing', async () => {
    const u = new URL(s.baseUrl);
    /** The status line's code the embedded server answers to these exact bytes. */
    const serverStatus = (raw: Buffer) =>
      new Promise<number>((resolve, reject) => {
        const sock = connect(Number(u.port), u.hostname, () => sock.write(raw));
        let text = '';
        sock.setEncoding('latin1').on('data', (d) => {
          text += d;
          const m = /^HTTP\/1\.1 (\d{3}) /.exec(text);
          if (m) {
            sock.destroy();
            resolve(Number(m[1]));
          }
        });
        sock.on('error', reject);
      });
    const signed = (body: Buffer, extra: string[], framing = [`Content-Length: ${body.length}`], payload = body) => {
      const id = randomUUID();
      const ts = Math.floor(s.clock.now() / 1000);
      const head = [
        `POST ${w.hmac.path} HTTP/1.1`,
        `Host: ${u.host}`,
        'Content-Type: application/json',
        ...extra,
        `Webhook-Timestamp: ${ts}`,
        `Webhook-Event-Id: ${id}`,
        `Webhook-Signature: ${hmacSignature(secret, ts, id, body)}`,
        ...framing,
      ];
      return Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n'), payload]);
    };
    const big = Buffer.from(`{"pad":"${'x'.repeat(65537 - 10)}"}`);
    const cases: [string, Buffer, number, RegExp][] = [
      ['oversized.http', signed(big, []), 413, /body is larger than 65536 bytes/],
      ['dup-type.http', signed(Buffer.from('{"dup":1}'), ['Content-Type: text/plain']), 200, /all checks passed/],
      [
        'cl-te.http',
        signed(Buffer.from('{}'), [], ['Content-Length: 2', 'Transfer-Encoding: chunked'], Buffer.from('2\r\n{}\r\n0\r\n\r\n')),
        400,
        /malformed HTTP request: the request has both Transfer-Encoding and Content-Length/,
      ],
      ['huge-header.http', signed(Buffer.from('{}'), [`X-Pad: ${'p'.repeat(17 * 1024)}`]), 431, /request header fields too large/],
    ];
    for (const [name, raw, status, reason] of cases) {
      const file = join(work, name);
      writeFileSync(file, raw);
      const offline = await withSecret()(['webhook', 'verify', '--request', file, '-o', 'json']);
      expect(offline.json(), name).toMatchObject({ status, reason: expect.stringMatching(reason) });
      expect(offline.code, name).toBe(status === 200 ? 0 : 7);
      expect(offline.json().step, name).toBe(status === 400 || status === 431 ? 0 : status === 413 ? 2 : 5);
      expect(await serverStatus(raw), name).toBe(status);
    }
  });

  it('checks headers and a body file given separately, and JWTs against a JWKS file', async () => {
    const keyPrefix = join(work, 'verify-key');
    expect((await cli()(['webhook', 'keygen', '--alg', 'EdDSA', '--out', keyPrefix])).code).toBe(0);
    const file = await capture(
      'jwt.http',
      ['-d', '{"jwt":1}', '--jwt-key', `${keyPrefix}.private.jwk.json`, '--tenant', 'https://acme.example.com'],
      {},
    );
    const parsed = readFileSync(file, 'utf8');
    const headers = ['webhook-timestamp', 'webhook-event-id', 'content-type', 'authorization'].map(
      (h) => `${h}: ${new RegExp(`^${h}: (.*)$`, 'im').exec(parsed)![1]}`,
    );
    writeFileSync(join(work, 'jwt-body.json'), '{"jwt":1}');
    const args = (url: string) => [
      'webhook',
      'verify',
      ...headers.flatMap((h) => ['-H', h]),
      '--body-file',
      join(work, 'jwt-body.json'),
      '--jwks',
      `${keyPrefix}.jwks.json`,
      '--url',
      url,
      '--tenant',
      'https://acme.example.com',
    ];
    const ok = await cli()(args(`${capUrl}${w.hmac.path}`));
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const wrongAud = await cli()(args(`${capUrl}/api/v1/webhooks/incoming/other`));
    expect(wrongAud.code).toBe(3);
    // Both values, as a signature mismatch shows its byte count.
    expect(wrongAud.stdout).toMatch(
      new RegExp(`^Reason: +JWT aud is "${capUrl}${w.hmac.path}", not the endpoint URL "${capUrl}/api/v1/webhooks/incoming/other"$`, 'm'),
    );
    const missing = await cli()(['webhook', 'verify', '--request', file]);
    expect(missing.code).toBe(2);
    // Sent without --tenant, the JWT sub is the capture server's origin; verify takes the same default from --url, whatever the profile's host.
    const plain = await capture('jwt-origin.http', ['-d', '{"jwt":1}', '--jwt-key', `${keyPrefix}.private.jwk.json`], {});
    const plainHeaders = ['webhook-timestamp', 'webhook-event-id', 'content-type', 'authorization'].map(
      (h) => `${h}: ${new RegExp(`^${h}: (.*)$`, 'im').exec(readFileSync(plain, 'utf8'))![1]}`,
    );
    const byOrigin = await cli({ AGCTL_BASE_URL: 'https://tenant.example.com' })([
      'webhook',
      'verify',
      ...plainHeaders.flatMap((h) => ['-H', h]),
      '--body-file',
      join(work, 'jwt-body.json'),
      '--jwks',
      `${keyPrefix}.jwks.json`,
      '--url',
      `${capUrl}${w.hmac.path}`,
    ]);
    expect(byOrigin.code, byOrigin.stdout + byOrigin.stderr).toBe(0);
  });
});
