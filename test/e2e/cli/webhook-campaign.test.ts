// agctl webhook send campaigns: a corpus replayed from NDJSON (--events), timed
// runs (--duration), a run that stops when the listener is down, and the
// latency histogram; against the in-process embedded server and small
// loopback servers of the test's own.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { existsSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, cliFor, startCli, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { hmacSignature } from '../../../src/webhook/sign.js';

const s = await startTestServer();
const work = tempDir('agctl-campaign-e2e-');
const SECRET = 'campaign-test-secret';
let n = 0;
const cli = (env: Record<string, string> = {}) =>
  cliFor(join(work, `cfg${n++}`), { AGCTL_BASE_URL: s.baseUrl, AGCTL_WEBHOOK_SECRET: SECRET, ...env });
const newListener = async () =>
  (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener as {
    id: string;
    url: string;
    secret: string;
  };
const runsOf = async (id: string) =>
  (await s.api(`/_embedded/v1/webhook_listeners/${id}/runs?limit=1000`)).body as { runs: any[]; total: number };
const file = (name: string, content: string | Buffer) => {
  const p = join(work, name);
  writeFileSync(p, content);
  return p;
};

interface Seen {
  body: Buffer;
  headers: IncomingMessage['headers'];
}

/** A loopback server recording each request (in arrival order) and answering 200, after `delayMs` when given. */
async function recorder(delayMs = 0): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ body: Buffer.concat(chunks), headers: req.headers });
      const answer = () => res.end('{"status":200}');
      if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/webhooks/incoming/L1`, seen };
}

/** The signature the request carries is the HMAC of its own body's exact bytes. */
const signedAsSent = (x: Seen) =>
  x.headers['webhook-signature'] ===
  hmacSignature(SECRET, x.headers['webhook-timestamp'] as string, x.headers['webhook-event-id'] as string, x.body);

// Lines written as a capture would hold them: spacing kept, a CRLF ending, blank lines between.
const CORPUS_LINES = ['{"seq":1, "ticket":"INC-1"}', '{ "seq" : 2 }', '{"seq":3,"nested":{"a":[1,2,3]},"text":"é ☃"}', '[4]', '{"seq":5}'];
const CORPUS = `${CORPUS_LINES[0]}\n\n${CORPUS_LINES[1]}\r\n   \n${CORPUS_LINES[2]}\n${CORPUS_LINES[3]}\n\t\n${CORPUS_LINES[4]}`;

describe.concurrent('webhook send --events', () => {
  it('replays every line once, in order, each its exact bytes signed under a fresh event ID; blank lines skipped', async () => {
    const rec = await recorder();
    const corpus = file('corpus.ndjson', CORPUS);
    const r = await cli()(['webhook', 'send', rec.url, '--events', corpus]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^5 of 5 delivered: sent 5 events \\(lines of ${corpus.replace(/[.\\/]/g, '\\$&')}\\)`, 'm'));
    expect(rec.seen.map((x) => x.body.toString('utf8'))).toEqual(CORPUS_LINES);
    expect(rec.seen.every(signedAsSent)).toBe(true);
    expect(new Set(rec.seen.map((x) => x.headers['webhook-event-id'])).size).toBe(5);

    // The listener's own check: every signature holds, and each event carries its line.
    const l = await newListener();
    const json = await cli({ AGCTL_WEBHOOK_SECRET: l.secret })(['webhook', 'send', l.url, '--events', corpus, '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json()).toMatchObject({
      count: 5,
      sent: 5,
      delivered: 5,
      concurrency: 1,
      bodyBytes: null,
      events: { file: corpus, lines: 5 },
      statuses: { '200': 5 },
    });
    const runs = await runsOf(l.id);
    expect(runs.runs.map((x) => x.context.trigger).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      CORPUS_LINES.map((x) => JSON.parse(x)).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  });

  it('signs each line in its own JWT (htb_s256 of its bytes) with --jwt-key', async () => {
    const keyFile = file('demo.private.jwk.json', JSON.stringify(s.demo.webhooks.jwt.privateJwk));
    const r = await cli()([
      'webhook',
      'send',
      s.demo.webhooks.jwt.listenerId,
      '--events',
      file('jwt.ndjson', CORPUS),
      '--jwt-key',
      keyFile,
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ sent: 5, delivered: 5, statuses: { '200': 5 } });
  });

  it('--count N cycles through the lines; more concurrency sends them all', async () => {
    const rec = await recorder();
    const corpus = file('three.ndjson', '{"n":1}\n{"n":2}\n{"n":3}\n');
    const r = await cli()(['webhook', 'send', rec.url, '--events', corpus, '--count', '7', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ count: 7, sent: 7, delivered: 7 });
    expect(rec.seen.map((x) => x.body.toString())).toEqual(['{"n":1}', '{"n":2}', '{"n":3}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":1}']);
    expect(rec.seen.every(signedAsSent)).toBe(true);

    const wide = await recorder();
    const w = await cli()(['webhook', 'send', wide.url, '--events', corpus, '--count', '30', '--concurrency', '4', '-o', 'json']);
    expect(w.code, w.stderr).toBe(0);
    expect(w.json()).toMatchObject({ sent: 30, concurrency: 4 });
    expect(wide.seen.map((x) => x.body.toString()).sort()).toEqual([
      ...Array(10).fill('{"n":1}'),
      ...Array(10).fill('{"n":2}'),
      ...Array(10).fill('{"n":3}'),
    ]);
  });

  it.each([
    ['a line that is not JSON', '{"ok":1}\n\n{"ok":2}\n{oops\n{"ok":3}\n', /^agctl: --events \S+, line 4: the event is not valid JSON/m],
    [
      "a line over the listener's 64 KiB",
      `{"ok":1}\n{"pad":"${'x'.repeat(65_530)}"}\n`,
      /^agctl: --events \S+, line 2: more than 65536 bytes, the listener's limit/m,
    ],
    [
      'a line that is not UTF-8',
      Buffer.concat([Buffer.from('{"ok":1}\n{"e":"'), Buffer.from([0xff]), Buffer.from('"}\n')]),
      /^agctl: --events \S+, line 2: the event is not valid UTF-8/m,
    ],
    ['a file of blank lines', '\n  \n\n', /^agctl: --events \S+: no events \(it is empty, or every line is blank\)$/m],
    ['an empty file', '', /^agctl: --events \S+: no events \(it is empty, or every line is blank\)$/m],
    [
      'a byte order mark, as the listener refuses it',
      '\ufeff{"ok":1}\n',
      /^agctl: --events \S+, line 1: the event starts with a UTF-8 byte order mark/m,
    ],
    [
      'a line with control characters, escaped in the message',
      '{"ok":1}\nx\u001b[2J\u0007\n',
      /^agctl: --events \S+, line 2: the event is not valid JSON: .*\\x1b\[2J\\x07/m,
    ],
  ])('refuses %s with exit 2 before sending anything', async (_name, content, message) => {
    const rec = await recorder();
    const r = await cli()(['webhook', 'send', rec.url, '--events', file(`bad-${n}.ndjson`, content), '--count', '50']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]|\n +at /);
    expect(rec.seen).toHaveLength(0);
  });

  it('refuses a missing file or a directory with exit 2 and a plain message', async () => {
    const rec = await recorder();
    const missing = await cli()(['webhook', 'send', rec.url, '--events', join(work, 'nowhere.ndjson')]);
    expect([missing.code, missing.stderr]).toEqual([2, `agctl: --events ${join(work, 'nowhere.ndjson')}: cannot read it: no such file\n`]);
    const dir = await cli()(['webhook', 'send', rec.url, '--events', work]);
    expect([dir.code, dir.stderr]).toEqual([2, `agctl: --events ${work}: cannot read it: it is a directory\n`]);
    expect(rec.seen).toHaveLength(0);
  });

  it('events on standard input and no secret: the hint names the ways that leave standard input to the events', async () => {
    const rec = await recorder();
    const r = await cliFor(join(work, `cfg${n++}`), { AGCTL_BASE_URL: s.baseUrl })(['webhook', 'send', rec.url, '--events', '-'], {
      input: '{"n":1}\n',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'agctl: missing webhook signing secret: provide it with --secret-file, AGCTL_WEBHOOK_SECRET\nhint: standard input carries the events\n',
    );
    // The same when standard input carries the body of one event.
    const body = await cliFor(join(work, `cfg${n++}`), { AGCTL_BASE_URL: s.baseUrl })(['webhook', 'send', rec.url], { input: '{"n":1}' });
    expect([body.code, body.stderr]).toEqual([
      2,
      'agctl: missing webhook signing secret: provide it with --secret-file, AGCTL_WEBHOOK_SECRET\nhint: standard input carries the body\n',
    ]);
    expect(rec.seen).toHaveLength(0);
  });

  it('a line of exactly 64 KiB is sent', async () => {
    const rec = await recorder();
    const line = `{"pad":"${'x'.repeat(65_536 - 10)}"}`;
    expect(Buffer.byteLength(line)).toBe(65_536);
    const r = await cli()(['webhook', 'send', rec.url, '--events', file('edge.ndjson', `${line}\r\n`), '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(rec.seen[0]!.body.toString()).toBe(line);
  });

  it.each([['table'], ['json']])('a file emptied after its check ends the run there, saying so (exit 2; -o %s)', async (format) => {
    // One connection, answers after 200 ms: the file is read again for the third event, long after it is emptied.
    const slow = await recorder(200);
    const corpus = file(`emptied-${format}.ndjson`, '{"n":1}\n{"n":2}\n');
    const run = startCli(['webhook', 'send', slow.url, '--events', corpus, '--count', '10', '-o', format], {
      ...baseEnv(join(work, `cfg${n++}`)),
      AGCTL_WEBHOOK_SECRET: SECRET,
    });
    for (const end = Date.now() + 10_000; slow.seen.length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 5));
    writeFileSync(corpus, '');
    const r = await run.done;
    expect(r.code).toBe(2);
    const message = `--events ${corpus}: it holds no event any more: it changed after the check; the run ended there`;
    if (format === 'json') {
      // Errors on stderr are JSON, as the runner prints them; the summary alone on stdout.
      expect(r.json()).toMatchObject({ sent: 2, delivered: 2 });
      expect(r.stderr).toBe(
        `${JSON.stringify({ error: { code: 'usage', message, hint: null, exitCode: 2, status: null, details: [] } })}\n`,
      );
    } else {
      expect(r.stdout).toMatch(/^2 of 2 delivered: sent 2 events/m);
      expect(r.stderr).toBe(`✗ ${message}\n`);
    }
    expect(slow.seen).toHaveLength(2);
  });

  it('reads the events from standard input with "-", copied aside so --count can cycle', async () => {
    const rec = await recorder();
    const r = await cli()(['webhook', 'send', rec.url, '--events', '-', '--count', '4', '-o', 'json'], { input: '{"in":1}\n\n{"in":2}\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ sent: 4, events: { file: '-', lines: 2 } });
    expect(rec.seen.map((x) => x.body.toString())).toEqual(['{"in":1}', '{"in":2}', '{"in":1}', '{"in":2}']);
    const bad = await cli()(['webhook', 'send', rec.url, '--events', '-'], { input: '{"in":1}\nnope\n' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--events -, line 2: the event is not valid JSON/);
    const both = await cli()(['webhook', 'send', rec.url, '--events', '-', '--secret-stdin'], { input: SECRET });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/standard input cannot carry both the events and the secret/);
    const withData = await cli()(['webhook', 'send', rec.url, '--events', '-', '-d', '{}'], { input: '{}' });
    expect(withData.code).toBe(2);
    expect(rec.seen).toHaveLength(4);
  });

  it.skipIf(process.platform === 'win32')(
    'reads a named pipe once, copied aside like standard input (--events <(zcat corpus.gz))',
    async () => {
      const rec = await recorder();
      const fifo = join(tempDir('agctl-fifo-'), 'events');
      execFileSync('mkfifo', [fifo]);
      const writing = writeFile(fifo, '{"p":1}\n{"p":2}\n');
      const r = await cli()(['webhook', 'send', rec.url, '--events', fifo, '--count', '3', '-o', 'json']);
      await writing;
      expect(r.code, r.stderr).toBe(0);
      expect(rec.seen.map((x) => x.body.toString())).toEqual(['{"p":1}', '{"p":2}', '{"p":1}']);
      const noTmp = await cli({ TMPDIR: join(work, 'no-such-dir') })(['webhook', 'send', rec.url, '--events', '-'], { input: '{}\n' });
      expect(noTmp.code).toBe(2);
      expect(noTmp.stderr).toMatch(/^agctl: --events -: cannot make a temporary copy of it in \S+no-such-dir: no such file or directory$/m);
      const fileTmp = await cli({ TMPDIR: file('tmp-is-a-file', 'x') })(['webhook', 'send', rec.url, '--events', '-'], { input: '{}\n' });
      expect([fileTmp.code, fileTmp.stderr]).toEqual([
        2,
        `agctl: --events -: cannot make a temporary copy of it in ${join(work, 'tmp-is-a-file')}: it is a file, not a directory\nhint: set TMPDIR to a writable directory\n`,
      ]);
      expect(rec.seen).toHaveLength(3);
    },
  );

  it.skipIf(!existsSync('/proc/self/fd'))(
    'copies standard input to a 0600 file in TMPDIR that has no name from the start and is closed at every end',
    async () => {
      const tmp = tempDir('agctl-spool-');
      /** The files this process holds open under `tmp`, as /proc shows them (a removed one ends in " (deleted)"), with their modes. */
      const spools = () =>
        readdirSync('/proc/self/fd').flatMap((fd) => {
          try {
            const target = readlinkSync(`/proc/self/fd/${fd}`);
            return target.startsWith(tmp) ? [{ target, mode: statSync(`/proc/self/fd/${fd}`).mode & 0o777 }] : [];
          } catch {
            return [];
          }
        });
      const slow = await recorder(150);
      const seen: { target: string; mode: number }[] = [];
      let inTmp = 0;
      let finished = false;
      const running = cli({ TMPDIR: tmp })(['webhook', 'send', slow.url, '--events', '-', '-o', 'json'], {
        input: '{"n":1}\n{"n":2}\n{"n":3}\n',
      }).finally(() => (finished = true));
      while (slow.seen.length < 2 && !finished) {
        seen.push(...spools());
        inTmp = Math.max(inTmp, readdirSync(tmp).length);
        await new Promise((r) => setTimeout(r, 10));
      }
      const r = await running;
      expect(r.code, r.stderr).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      for (const s of seen) {
        expect(s.target).toMatch(/\/agctl-events-[^/]+\/events\.ndjson \(deleted\)$/);
        expect(s.mode).toBe(0o600);
      }
      expect(inTmp).toBe(0);
      expect(spools()).toEqual([]);
      const bad = await cli({ TMPDIR: tmp })(['webhook', 'send', slow.url, '--events', '-'], { input: '{"n":1}\nnope\n' });
      expect(bad.code).toBe(2);
      expect(spools()).toEqual([]);
      const down = await cli({ TMPDIR: tmp })(['--timeout', '5', 'webhook', 'send', 'http://127.0.0.1:1/x', '--events', '-'], {
        input: '{"n":1}\n'.repeat(40),
      });
      expect(down.code).toBe(9);
      expect(spools()).toEqual([]);
      const env = { ...baseEnv(join(work, `cfg${n++}`)), AGCTL_WEBHOOK_SECRET: SECRET, TMPDIR: tmp };
      const before = slow.seen.length;
      const run = startCli(['webhook', 'send', slow.url, '--events', '-', '--count', '1000'], env, '{"n":1}\n');
      let ended = false;
      void run.done.finally(() => (ended = true));
      while (slow.seen.length === before && !ended) await new Promise((r) => setTimeout(r, 10));
      run.interrupt();
      const r2 = await run.done;
      expect(r2.code, r2.stderr).toBe(130);
      expect(spools()).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    },
  );
});

describe.concurrent('webhook send --duration', () => {
  it('sends until the time is up, lets the requests in flight finish, and says the run was timed', async () => {
    const l = await newListener();
    const r = await cli({ AGCTL_WEBHOOK_SECRET: l.secret })([
      'webhook',
      'send',
      l.url,
      '-d',
      '{"timed":1}',
      '--duration',
      '0.3',
      '--concurrency',
      '2',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const sum = r.json();
    expect(sum).toMatchObject({ count: null, durationLimitS: 0.3, timed: true, interrupted: false, stopped: null, errors: {} });
    expect(sum.sent).toBeGreaterThan(0);
    expect(sum.delivered).toBe(sum.sent);
    expect((await runsOf(l.id)).total).toBe(sum.sent);

    const text = await cli({ AGCTL_WEBHOOK_SECRET: l.secret })(['webhook', 'send', l.url, '-d', '{}', '--duration', '0.2', '--rate', '20']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Time up \(--duration 0\.2 s\) after sending (\d+) events \(2-byte body\) to \S+: \1 of \1 delivered$/m);
  });

  it('with --count, whichever ends first', async () => {
    const rec = await recorder();
    const byCount = await cli()(['webhook', 'send', rec.url, '-d', '{}', '--count', '5', '--duration', '60', '-o', 'json']);
    expect(byCount.code, byCount.stderr).toBe(0);
    expect(byCount.json()).toMatchObject({ count: 5, sent: 5, timed: false });
    // 50/s for 0.2 s: the requests due at 0, 20, ... 180 ms; none due after the time is up.
    const byTime = await cli()([
      'webhook',
      'send',
      rec.url,
      '-d',
      '{}',
      '--count',
      '100000',
      '--duration',
      '0.2',
      '--rate',
      '50',
      '-o',
      'json',
    ]);
    expect(byTime.code, byTime.stderr).toBe(0);
    const sum = byTime.json();
    expect(sum).toMatchObject({ count: 100000, timed: true });
    expect(sum.sent).toBeGreaterThan(0);
    expect(sum.sent).toBeLessThanOrEqual(10);
    const corpus = file('timed.ndjson', '{"a":1}\n{"a":2}\n');
    const events = await cli()(['webhook', 'send', rec.url, '--events', corpus, '--duration', '5', '-o', 'json']);
    expect(events.json()).toMatchObject({ count: 2, sent: 2, timed: false });
  });

  it.each([['0'], ['-1'], ['abc'], ['86401'], ['1e3']])('refuses --duration %s with exit 2', async (v) => {
    const r = await cli()(['webhook', 'send', 'http://127.0.0.1:1/x', '-d', '{}', '--duration', v]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--duration must be a number of seconds from 0\.001 to 86400/);
  });
});

/** A loopback port nothing listens on. */
describe.concurrent('webhook send: a listener that is down', () => {
  it('stops within seconds, says why in words, and exits 9', async () => {
    // Port 1: nothing listens there (a port freed by the test could be taken by another test's server meanwhile).
    const port = 1;
    const url = `http://127.0.0.1:${port}/api/v1/webhooks/incoming/L1`;
    const started = Date.now();
    const r = await cli()(['webhook', 'send', url, '-d', '{}', '--count', '1000000', '--concurrency', '8']);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.code).toBe(9);
    expect(r.stdout).toMatch(
      new RegExp(
        `^Stopped \\(no HTTP answer\\) after sending (\\d+) of 1000000 events \\(2-byte body\\) to ${url.replace(/[.\\/]/g, '\\$&')}: 0 of \\1 delivered$`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(/^error refused +\d+$/m);
    expect(r.stderr).toMatch(new RegExp(`^✗ connection refused by 127\\.0\\.0\\.1:${port}: is the listener running\\?$`, 'm'));
    for (const out of [r.stdout, r.stderr]) expect(out).not.toMatch(/ECONN|UND_ERR/);
    // Refused attempts got no answer: no latency measured, no histogram.
    expect(r.stdout).toMatch(/^latency: none measured \(no request answered\)$/m);
    expect(r.stdout).not.toMatch(/p50| ms +\d+/);

    const json = await cli()(['webhook', 'send', url, '-d', '{}', '--duration', '60', '-o', 'json']);
    expect(json.code).toBe(9);
    const sum = json.json();
    expect(sum).toMatchObject({
      delivered: 0,
      timed: false,
      stopped: `connection refused by 127.0.0.1:${port}: is the listener running?`,
      errors: { refused: sum.sent },
    });
    expect(sum.sent).toBeLessThanOrEqual(20 + 16);
    expect([sum.latencyMs, sum.latencyBuckets]).toEqual([null, []]);
    // Why, on stderr, as JSON as every error with -o json.
    expect(json.stderr).toBe(
      `${JSON.stringify({ error: { code: 'unavailable', message: sum.stopped, hint: null, exitCode: 9, status: null, details: [] } })}\n`,
    );
  });

  it('a port that answers something other than HTTP: counted and stopped in words, the answer never printed', async () => {
    const junk = createNetServer((c) => {
      c.on('error', () => {});
      c.once('data', () => c.end('HTTP/1.1 2\u001b[31m00 OK\r\nX: \u0007\r\n\r\n'));
    });
    await new Promise<void>((r) => junk.listen(0, '127.0.0.1', r));
    try {
      const host = `127.0.0.1:${(junk.address() as AddressInfo).port}`;
      const r = await cli()(['webhook', 'send', `http://${host}/x`, '-d', '{}', '--count', '1000']);
      expect(r.code).toBe(9);
      expect(r.stdout).toMatch(/^error not HTTP +\d+$/m);
      expect(r.stderr).toBe(`✗ ${host} answered, but not in HTTP: check the listener URL (its port and scheme)\n`);
      const json = await cli()(['webhook', 'send', `http://${host}/x`, '-d', '{}', '--count', '1000', '-o', 'json']);
      expect(json.code).toBe(9);
      expect(json.json()).toMatchObject({
        delivered: 0,
        statuses: {},
        stopped: `${host} answered, but not in HTTP: check the listener URL (its port and scheme)`,
      });
      expect(Object.keys(json.json().errors)).toEqual(['not HTTP']);
      const one = await cli()(['webhook', 'send', `http://${host}/x`, '-d', '{}']);
      expect(one.code).toBe(9);
      expect(one.stderr).toMatch(
        new RegExp(`^agctl: ${host.replace(/\./g, '\\.')} answered, but not in HTTP\nhint: check .*: its port and scheme\n$`),
      );
      for (const out of [r.stdout, r.stderr, json.stdout, one.stderr]) expect(out).not.toMatch(/\u001b|\u0007|HPE_|Parse Error/);
    } finally {
      await new Promise((r) => junk.close(r));
    }
  });

  it('a listener that goes down mid-run: the run stops within seconds of its last answer (exit 9)', async () => {
    let answers = 0;
    const dying = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.end('{}');
        if (++answers === 30) {
          dying.close();
          dying.closeAllConnections();
        }
      });
    });
    await new Promise<void>((r) => dying.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(dying.address() as AddressInfo).port}/api/v1/webhooks/incoming/L1`;
    const started = Date.now();
    const r = await cli()(['webhook', 'send', url, '-d', '{}', '--count', '1000000', '--concurrency', '4', '-o', 'json']);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.code).toBe(9);
    const sum = r.json();
    expect(sum.delivered).toBeGreaterThanOrEqual(30);
    expect(sum.stopped).toMatch(/is the listener running\?$/);
    // The 20 in a row that stop the run, and at most the requests then in flight, went unanswered.
    expect(sum.sent - sum.delivered).toBeLessThanOrEqual(20 + 4 + 4);
    // Only the answered requests are measured.
    expect(sum.latencyBuckets.reduce((k: number, b: { count: number }) => k + b.count, 0)).toBe(sum.delivered);
  });

  it('a listener that answers, even with errors, is not taken as down', async () => {
    const flaky = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.statusCode = 503;
        res.end('{}');
      });
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/api/v1/webhooks/incoming/L1`;
      const r = await cli()(['webhook', 'send', url, '-d', '{}', '--count', '60', '-o', 'json']);
      expect(r.code).toBe(9);
      expect(r.json()).toMatchObject({ sent: 60, stopped: null, statuses: { '503': 60 } });
      expect(JSON.parse(r.stderr)).toEqual({
        error: { code: 'unavailable', message: '0 of 60 delivered; 60 HTTP 503', hint: null, exitCode: 9, status: null, details: [] },
      });
    } finally {
      await new Promise((r) => flaky.close(r));
    }
  });
});

describe.concurrent('webhook send: latency', () => {
  it('draws a histogram in the table summary and gives its buckets in JSON', async () => {
    const rec = await recorder();
    const table = await cli()(['webhook', 'send', rec.url, '-d', '{}', '--count', '50', '--concurrency', '4']);
    expect(table.code, table.stderr).toBe(0);
    const bars = table.stdout.split('\n').filter((l) => /^ +[\d.]+ - [\d.]+ ms +\d+( +█+)?$/.test(l));
    expect(bars.length).toBeGreaterThanOrEqual(1);
    expect(bars.length).toBeLessThanOrEqual(10);
    expect(bars.reduce((k, l) => k + Number(/ms +(\d+)/.exec(l)![1]), 0)).toBe(50);
    expect(bars.some((l) => l.includes('█'))).toBe(true);

    const json = await cli()(['webhook', 'send', rec.url, '-d', '{}', '--count', '50', '--concurrency', '4', '-o', 'json']);
    const sum = json.json();
    expect(sum.latencyFrom).toBe('sent');
    expect(sum.latencyBuckets.reduce((k: number, b: { count: number }) => k + b.count, 0)).toBe(50);
    expect(Math.abs(sum.latencyBuckets[0].fromMs - sum.latencyMs.min)).toBeLessThanOrEqual(0.006);
    expect(Math.abs(sum.latencyBuckets.at(-1).toMs - sum.latencyMs.max)).toBeLessThanOrEqual(0.006);
    expect(sum.latencyMs.p50).toBeLessThanOrEqual(sum.latencyMs.p99);
  });

  it('under --rate, from when each request was due: a slow listener shows as slow (no coordinated omission)', async () => {
    // One connection, answers after 100 ms, 50 requests/s asked: the 8th is due at 140 ms but can only
    // leave after the 7 before it (700 ms): its latency counts that wait.
    const slow = await recorder(100);
    const r = await cli()(['webhook', 'send', slow.url, '-d', '{}', '--count', '8', '--concurrency', '1', '--rate', '50', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const sum = r.json();
    expect(sum.latencyFrom).toBe('due');
    expect(sum.latencyMs.min).toBeGreaterThanOrEqual(95);
    expect(sum.latencyMs.max).toBeGreaterThanOrEqual(600);
    expect(sum.latencyMs.p50).toBeGreaterThanOrEqual(250);
    const text = await cli()(['webhook', 'send', slow.url, '-d', '{}', '--count', '2', '--rate', '50']);
    expect(text.stdout).toMatch(/^latency ms: .* \(from when each request was due\)$/m);
  });

  it('under --rate, events that fell due but were never sent before the time was up are counted and explained', async () => {
    // One connection, answers after 200 ms, 50/s for 0.5 s: 25 fall due, about 3 can be sent.
    const slow = await recorder(200);
    const r = await cli()([
      'webhook',
      'send',
      slow.url,
      '-d',
      '{}',
      '--rate',
      '50',
      '--concurrency',
      '1',
      '--duration',
      '0.5',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const sum = r.json();
    expect(sum).toMatchObject({ timed: true, delivered: sum.sent });
    expect(sum.sent + sum.dueNotSent).toBe(25);
    expect(sum.dueNotSent).toBeGreaterThanOrEqual(15);
    const text = await cli()(['webhook', 'send', slow.url, '-d', '{}', '--rate', '50', '--concurrency', '1', '--duration', '0.5']);
    expect(text.code, text.stderr).toBe(0);
    const [, notSent] =
      /^(\d+) more events fell due but were not sent before the time was up: the listener answered too slowly for 50\/s over 1 connection \(raise --concurrency\)$/m.exec(
        text.stdout,
      ) ?? [];
    expect(Number(notSent)).toBeGreaterThanOrEqual(15);
    // Without --rate there is no schedule: nothing is due.
    const free = await cli()(['webhook', 'send', slow.url, '-d', '{}', '--count', '1', '-o', 'json']);
    expect(free.json().dueNotSent).toBeNull();
  });
});
