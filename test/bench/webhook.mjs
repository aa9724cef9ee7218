// Benchmark part 2: webhook ingest.
//  1. The embedded listener (`agctl serve`, HMAC, durable idempotency on disk)
//     against two servers driven by the same load generator in the same run:
//     a bare node:http server that reads the body and answers 200, and a
//     reference durable receiver (the bare server plus one SQLite insert per
//     request, each its own transaction). Throughput as a ratio of each (targets
//     >= 0.45 of bare, >= 1.5x the reference), p99 latency, server CPU, peak RSS.
//  2. The sender: `agctl webhook send --count N` (which signs every request)
//     against autocannon doing the same work (its setupRequest hook gives each
//     request a fresh event ID, timestamp and HMAC, signed as agctl signs) and
//     autocannon sending one unsigned request over and over, on the same bare
//     server, same body and concurrency, taking turns; events/s as a ratio of
//     each (target >= 1.0 of the signing autocannon). And a replay of N
//     distinct lines (`--events`) against the single-body run (target >= 0.9),
//     with the peak RSS of each agctl run.
// The listener and the reference run on each SQLite driver this Node can
// load (AGCTL_STORE_BACKEND): node:sqlite where Node has it (22.15 and later),
// better-sqlite3 where it is installed and built for this Node.
// `node test/bench/webhook.mjs sender` runs the sender part alone.
// Loopback only; bounded in requests and time. With taskset available and two
// or more CPUs, servers run on one CPU and the load on another, so the
// scheduler cannot put both on one core (applied the same way to both servers;
// BENCH_WEBHOOK_PIN=0 leaves placement to the scheduler).
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { BIN, median, percentile, printTable, startServeProcess } from './lib.mjs';

const SELF = fileURLToPath(import.meta.url);
/** A positive integer setting from the environment, within bounds (the run stays bounded). */
function setting(name, fallback, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    console.error(`bench: ${name} must be an integer from 1 to ${max} (got ${JSON.stringify(raw)})`);
    process.exit(2);
  }
  return n;
}
const REQUESTS = setting('BENCH_WEBHOOK_REQUESTS', 20_000, 200_000);
const CONCURRENCY = setting('BENCH_WEBHOOK_CONCURRENCY', 32, 256);
const ROUNDS = setting('BENCH_WEBHOOK_ROUNDS', 5, 20);
const SENDER_COUNT = setting('BENCH_SENDER_COUNT', 100_000, 1_000_000);
const SENDER_ROUNDS = setting('BENCH_SENDER_ROUNDS', 5, 20);
const WARMUP = 2_000;
const BODY_BYTES = 1024;
const PHASE_TIMEOUT_MS = 120_000;

const canPin =
  process.env.BENCH_WEBHOOK_PIN !== '0' && availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
/** Command prefix that runs a process on one CPU (server: 1, load: 0), when possible. */
const pinned = (cpu, cmd, args) => (canPin ? ['taskset', ['-c', String(cpu), cmd, ...args]] : [cmd, args]);

/** A JSON document of exactly `size` bytes. */
const bodyOf = (size) => Buffer.from(`{"pad":"${'x'.repeat(size - 10)}"}`);

// ---- the load generator (runs in its own process) ----

async function generate({ url, secret, requests, concurrency, warmup }) {
  const { Pool } = await import('undici');
  const target = new URL(url);
  const body = bodyOf(BODY_BYTES);
  // Signed ahead of time: the timed loop does nothing but send.
  const make = (n) =>
    Array.from({ length: n }, () => {
      const id = randomUUID();
      const ts = Math.floor(Date.now() / 1000);
      const sig = createHmac('sha256', secret).update(`${ts}.${id}.`).update(body).digest('base64url');
      return { 'content-type': 'application/json', 'webhook-timestamp': String(ts), 'webhook-event-id': id, 'webhook-signature': sig };
    });
  const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const drive = async (headers) => {
    const latencies = new Float64Array(headers.length);
    const statuses = {};
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      for (let i = next++; i < headers.length; i = next++) {
        const t0 = performance.now();
        const res = await pool.request({ path: target.pathname, method: 'POST', headers: headers[i], body });
        await res.body.dump();
        latencies[i] = performance.now() - t0;
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const ms = performance.now() - started;
    latencies.sort();
    return { throughput: (headers.length / ms) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99), statuses };
  };
  await drive(make(warmup));
  const result = await drive(make(requests));
  await pool.close();
  return result;
}

/**
 * The headers of one event as `agctl webhook send` signs it (src/webhook/sign.ts):
 * a fresh UUID v4, the time in Unix seconds, base64url HMAC-SHA256 of
 * `<timestamp>.<event_id>.<body>` keyed with the secret string.
 */
function signedHeaders(secret, body) {
  const id = randomUUID();
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = createHmac('sha256', secret).update(`${ts}.${id}.`, 'utf8').update(body).digest('base64url');
  return { 'content-type': 'application/json', 'webhook-timestamp': ts, 'webhook-event-id': id, 'webhook-signature': sig };
}

/**
 * autocannon's requests/s for `requests` POSTs of the body, `concurrency`
 * connections, no pipelining; with `secret`, each request signed afresh in
 * its setupRequest hook (the work agctl does per event).
 */
async function autocannon({ url, requests, concurrency, secret }) {
  const { default: run } = await import('autocannon');
  const body = bodyOf(BODY_BYTES);
  const result = await run({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    // The hook goes on a request of `requests` (autocannon ignores it at the top level) and runs before each send.
    ...(secret ? { requests: [{ setupRequest: (req) => ({ ...req, headers: signedHeaders(secret, body) }) }] } : {}),
    connections: concurrency,
    pipelining: 1,
    amount: requests,
    // The result is taken at the first sample after the last answer: sample
    // often, so the idle wait adds at most 20 ms to the duration.
    sampleInt: 20,
  });
  return {
    throughput: result.requests.total / result.duration,
    statuses: { 200: result['2xx'], other: result.non2xx },
    errors: result.errors,
  };
}

if (process.argv[2] === '--autocannon') {
  process.stdout.write(JSON.stringify(await autocannon(JSON.parse(process.env.AGCTL_BENCH_LOAD ?? '{}'))) + '\n');
  process.exit(0);
}

if (process.argv[2] === '--generate') {
  // The settings (with the listener's secret) come in the environment, not on the command line, which any local user can read.
  const result = await generate(JSON.parse(process.env.AGCTL_BENCH_LOAD ?? '{}'));
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}

// ---- the benchmark ----

/** Runs a process to its end; `peakRssMiB`: its peak resident set, read from /proc every 50 ms while it runs (Linux; else null). */
function runChild(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    let err = '';
    let peak = null;
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak ?? 0, Number(m[1]) / 1024);
      } catch {
        // gone, or not Linux
      }
    };
    const sampler = setInterval(sample, 50);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), PHASE_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(sampler);
      if (code !== 0 && !opts.allowFailure) reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err}`));
      else resolve({ code, out, err, peakRssMiB: peak });
    });
  });
}

/**
 * Writes dirty pages back before a round: a server that just committed
 * thousands of events leaves writeback for the kernel, which would otherwise
 * slow whichever server is measured next.
 */
function settle() {
  spawnSync('sync');
}

async function load(url, secret) {
  settle();
  const cfg = JSON.stringify({ url, secret, requests: REQUESTS, concurrency: CONCURRENCY, warmup: WARMUP });
  const [cmd, args] = pinned(0, process.execPath, [SELF, '--generate']);
  const r = await runChild(cmd, args, { env: { ...process.env, AGCTL_BENCH_LOAD: cfg } });
  return JSON.parse(r.out);
}

/** CPU time (user + system, all threads) a process has used, in microseconds; null where /proc is not there. */
function cpuMicros(pid) {
  try {
    // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * One load round against a server, with the server's CPU time per request
 * (warm-up included): less sensitive than throughput to how busy the machine is.
 */
async function measured(server, url, secret) {
  const before = cpuMicros(server.child.pid);
  const res = await load(url, secret);
  const after = cpuMicros(server.child.pid);
  res.cpuUs = before === null || after === null ? null : (after - before) / (REQUESTS + WARMUP);
  return res;
}

/** Peak resident set of a process in MiB (Linux /proc; elsewhere the current RSS from ps). */
function peakRssMiB(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch {
    // not Linux
  }
  const ps = spawnSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' });
  return Number(ps.stdout.trim()) / 1024;
}

const BARE_SERVER = `
const { createServer } = require('node:http');
const s = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const b = Buffer.from('{"status":200}');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': b.length });
    res.end(b);
  });
});
s.listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

// The reference: the same bare server recording each event durably the plain way (one SQLite insert per request on a unique event ID,
// each its own WAL commit, same pragmas as the listener's store), as a
// straightforward durable webhook receiver in Node would.
const DURABLE_SERVER = `
const { createServer } = require('node:http');
const db = process.env.BENCH_SQLITE === 'node:sqlite'
  ? new (process.getBuiltinModule('node:sqlite').DatabaseSync)(process.env.BENCH_DB)
  : new (require(process.env.BENCH_SQLITE))(process.env.BENCH_DB);
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, body BLOB NOT NULL, received_at INTEGER NOT NULL)');
const ins = db.prepare('INSERT OR IGNORE INTO events (id, body, received_at) VALUES (?, ?, ?)');
const s = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const fresh = ins.run(String(req.headers['webhook-event-id']), Buffer.concat(chunks), Date.now()).changes === 1;
    const b = Buffer.from(fresh ? '{"status":200}' : '{"status":409}');
    res.writeHead(fresh ? 200 : 409, { 'content-type': 'application/json', 'content-length': b.length });
    res.end(b);
  });
});
s.listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'));
process.on('SIGTERM', () => { db.close(); process.exit(0); });
`;

export function startBare(code = BARE_SERVER, env = process.env) {
  const [cmd, args] = pinned(1, process.execPath, ['-e', code]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (d) => {
      resolve({
        child,
        url: `http://127.0.0.1:${String(d).trim()}/api/v1/webhooks/incoming/bare`,
        stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))),
      });
    });
  });
}

/**
 * The SQLite drivers this Node can run, as AGCTL_STORE_BACKEND names them, with
 * what the reference server loads for each (as the store decides: node:sqlite
 * with unknown named parameters allowed, better-sqlite3 when it opens a database).
 */
function storeBackends() {
  const out = [];
  const sqlite = process.getBuiltinModule?.('node:sqlite');
  if (typeof sqlite?.StatementSync?.prototype?.setAllowUnknownNamedParameters === 'function')
    out.push({ name: 'node:sqlite', module: 'node:sqlite' });
  try {
    const path = createRequire(SELF).resolve('better-sqlite3');
    new (createRequire(SELF)(path))(':memory:').close();
    out.push({ name: 'better-sqlite3', module: path });
  } catch {}
  return out;
}

async function startEmbedded(dir, backend) {
  const env = { ...process.env, NO_COLOR: '1', AGCTL_STORE_BACKEND: backend };
  // startServeProcess runs `node bin/agctl.js serve`; pin it like the bare server.
  if (!canPin) {
    // startServeProcess passes this process's environment on.
    process.env.AGCTL_STORE_BACKEND = backend;
    try {
      return await startServeProcess(dir);
    } finally {
      delete process.env.AGCTL_STORE_BACKEND;
    }
  }
  const ready = join(dir, 'ready.json');
  const child = spawn(
    'taskset',
    ['-c', '1', process.execPath, BIN, 'serve', '--quiet', '--data-dir', join(dir, 'data'), '--ready-file', ready],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env,
    },
  );
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const info = JSON.parse(readFileSync(ready, 'utf8'));
      return {
        child,
        info,
        stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))),
      };
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`agctl serve did not start: ${log}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/**
 * agctl's load mode and autocannon, taking turns on the bare server (each in
 * its own process, pinned like the load generator): SENDER_ROUNDS rounds of
 * SENDER_COUNT events each, by agctl with one body, agctl replaying
 * SENDER_COUNT distinct lines of the same size (--events), autocannon signing
 * each request and autocannon unsigned. The bare server answers 200 without
 * checking the signatures; agctl and the signing autocannon compute them all
 * the same.
 */
export async function senderRounds(dir, url) {
  const bodyFile = join(dir, 'body.json');
  writeFileSync(bodyFile, bodyOf(BODY_BYTES));
  const eventsFile = join(dir, 'events.ndjson');
  const lines = [];
  for (let i = 0; i < SENDER_COUNT; i++) {
    const head = `{"seq":${i},"pad":"`;
    lines.push(`${head}${'x'.repeat(BODY_BYTES - head.length - 2)}"}`);
  }
  writeFileSync(eventsFile, lines.join('\n') + '\n');
  const secret = 'bench-secret-not-checked-by-the-bare-server';
  const env = { ...process.env, AGCTL_WEBHOOK_SECRET: secret, AGCTL_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
  const common = ['--concurrency', String(CONCURRENCY), '-o', 'json'];
  const single = [BIN, 'webhook', 'send', url, '--data-file', bodyFile, '--count', String(SENDER_COUNT), ...common];
  const replay = [BIN, 'webhook', 'send', url, '--events', eventsFile, ...common];
  const cannonEnv = (signed) => ({
    ...process.env,
    AGCTL_BENCH_LOAD: JSON.stringify({ url, requests: SENDER_COUNT, concurrency: CONCURRENCY, ...(signed ? { secret } : {}) }),
  });
  const agctlRun = async (args) => {
    settle();
    const r = await runChild(...pinned(0, process.execPath, args), { env });
    const sum = JSON.parse(r.out);
    if (sum.statuses['200'] !== SENDER_COUNT)
      throw new Error(`webhook send: not every event was answered 200: ${JSON.stringify(sum.statuses)} ${JSON.stringify(sum.errors)}`);
    return { throughput: sum.throughput, p99: sum.latencyMs.p99, rss: r.peakRssMiB };
  };
  const cannonRun = async (signed) => {
    settle();
    const cannon = JSON.parse((await runChild(...pinned(0, process.execPath, [SELF, '--autocannon']), { env: cannonEnv(signed) })).out);
    if (cannon.statuses['200'] !== SENDER_COUNT)
      throw new Error(`autocannon: not every request was answered 200: ${JSON.stringify(cannon)}`);
    return cannon.throughput;
  };
  const rounds = [];
  for (let r = 0; r < SENDER_ROUNDS; r++) {
    const agctl = await agctlRun(single);
    const signed = await cannonRun(true);
    const events = await agctlRun(replay);
    const unsigned = await cannonRun(false);
    rounds.push({ agctl, events, signed, unsigned });
  }
  const ratios = (f) => rounds.map(f);
  const rss = (xs) => (xs.some((x) => x === null) ? null : Math.max(...xs));
  return {
    agctl: median(rounds.map((x) => x.agctl.throughput)),
    events: median(rounds.map((x) => x.events.throughput)),
    signed: median(rounds.map((x) => x.signed)),
    unsigned: median(rounds.map((x) => x.unsigned)),
    p99: median(rounds.map((x) => x.agctl.p99)),
    eventsP99: median(rounds.map((x) => x.events.p99)),
    rss: rss(rounds.map((x) => x.agctl.rss)),
    eventsRss: rss(rounds.map((x) => x.events.rss)),
    signedRatios: ratios((x) => x.agctl.throughput / x.signed),
    unsignedRatios: ratios((x) => x.agctl.throughput / x.unsigned),
    eventsRatios: ratios((x) => x.events.throughput / x.agctl.throughput),
  };
}

export function printSender(s) {
  const mib = (x) => (x === null ? '-' : `${x.toFixed(0)} MiB`);
  console.log(
    `\nWebhook sender: ${SENDER_COUNT} POSTs x ${SENDER_ROUNDS} rounds each, ${BODY_BYTES}-byte bodies, ${CONCURRENCY} connections, to the bare node:http server` +
      `${canPin ? ' (pinned to CPU 1; senders to CPU 0)' : ''}, taking turns (ratios: median of each round's ratio; peak RSS: the largest of the rounds)\n`,
  );
  printTable(
    ['sender', 'req/s', 'p99 ms', 'peak RSS'],
    [
      ['autocannon, unsigned (one request over and over)', s.unsigned.toFixed(0), '-', '-'],
      ['autocannon, each request signed in setupRequest (same work)', s.signed.toFixed(0), '-', '-'],
      [`agctl webhook send --count ${SENDER_COUNT} (HMAC-signed, one body)`, s.agctl.toFixed(0), String(s.p99), mib(s.rss)],
      [`agctl webhook send --events (${SENDER_COUNT} distinct lines)`, s.events.toFixed(0), String(s.eventsP99), mib(s.eventsRss)],
    ],
  );
  console.log('');
  const median_ = (xs) => median(xs).toFixed(2);
  const row = (name, xs, target, met) => [
    name,
    median_(xs),
    xs.map((x) => x.toFixed(2)).join(' '),
    target,
    met === undefined ? '-' : met ? 'met' : 'MISSED',
  ];
  printTable(
    ['measure', 'value', 'rounds', 'target', ''],
    [
      row('throughput ratio (agctl / signing autocannon)', s.signedRatios, '>= 1.00', median(s.signedRatios) >= 1),
      row('throughput ratio (agctl / unsigned autocannon)', s.unsignedRatios, '-'),
      row('throughput ratio (--events replay / one body)', s.eventsRatios, '>= 0.90', median(s.eventsRatios) >= 0.9),
    ],
  );
}

/** The sender part alone, against a bare server of its own. */
async function runSender() {
  const dir = mkdtempSync(join(tmpdir(), 'agctl-bench-sender-'));
  const bare = await startBare();
  try {
    const sender = await senderRounds(dir, bare.url);
    printSender(sender);
    return sender;
  } finally {
    await bare.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run() {
  const backends = storeBackends();
  if (backends.length === 0) throw new Error('no SQLite driver loads in this Node: neither node:sqlite nor better-sqlite3');
  const results = {};
  let sender;
  for (const b of backends) {
    results[b.name] = await runListener(b, !sender);
    sender ??= results[b.name].sender;
  }
  printSender(sender);
  return { listener: results, sender };
}

/** The listener on one SQLite driver against the bare server and the reference on the same driver (and the sender part when `withSender`). */
async function runListener(backend, withSender) {
  const dir = mkdtempSync(join(tmpdir(), 'agctl-bench-webhook-'));
  const bare = await startBare();
  const durable = await startBare(DURABLE_SERVER, { ...process.env, BENCH_SQLITE: backend.module, BENCH_DB: join(dir, 'durable.db') });
  const embedded = await startEmbedded(dir, backend.name);
  try {
    const w = embedded.info.demo.webhooks;
    const url = embedded.info.baseUrl + w.hmac.path;
    const rounds = { bare: [], durable: [], embedded: [] };
    for (let r = 0; r < ROUNDS; r++) {
      rounds.bare.push(await measured(bare, bare.url, 'unused'));
      rounds.embedded.push(await measured(embedded, url, w.hmac.secret));
    }
    // The reference runs after the measured pair, so its many small commits
    // never precede a measured round (each round also starts after a sync).
    for (let r = 0; r < ROUNDS; r++) rounds.durable.push(await measured(durable, durable.url, 'unused'));
    for (const res of rounds.durable) {
      if (res.statuses['200'] !== REQUESTS)
        throw new Error(`the durable reference server did not accept every event: ${JSON.stringify(res.statuses)}`);
    }
    for (const res of rounds.embedded) {
      if (res.statuses['200'] !== REQUESTS)
        throw new Error(`the embedded listener did not accept every event: ${JSON.stringify(res.statuses)}`);
    }
    const rss = { bare: peakRssMiB(bare.child.pid), durable: peakRssMiB(durable.child.pid), embedded: peakRssMiB(embedded.child.pid) };

    const sender = withSender ? await senderRounds(dir, bare.url) : undefined;
    const m = (k, f) => median(rounds[k].map(f));
    const all = (f) => ({ bare: m('bare', f), durable: m('durable', f), embedded: m('embedded', f) });
    const tput = all((x) => x.throughput);
    const p99 = all((x) => x.p99);
    const p50 = all((x) => x.p50);
    const cpu = rounds.bare[0].cpuUs === null ? null : all((x) => x.cpuUs);
    const us = (k) => (cpu ? cpu[k].toFixed(1) : '-');
    // Listener/bare ratios are taken per round (the two run one after the
    // other, seconds apart), then their median: the machine's speed drifts
    // over a run, and pairing keeps that drift out of the ratios.
    const paired = (f) => median(rounds.embedded.map((x, r) => f(x) / f(rounds.bare[r])));
    const ratio = paired((x) => x.throughput);
    const p99Ratio = paired((x) => x.p99);
    const cpuRatio = cpu ? paired((x) => x.cpuUs) : null;
    // The reference runs in rounds of its own (see above): the ratio of the medians.
    const refRatio = tput.embedded / tput.durable;
    console.log(
      `\nWebhook ingest on ${backend.name}: ${REQUESTS} requests x ${ROUNDS} rounds per server, ${BODY_BYTES}-byte bodies, ${CONCURRENCY} connections, loopback` +
        `${canPin ? ', servers pinned to CPU 1 and load to CPU 0' : ''} (median of rounds; listener/bare ratios: median of each round's ratio)\n`,
    );
    printTable(
      ['server', 'req/s', 'p50 ms', 'p99 ms', 'server CPU us/req', 'peak RSS MiB'],
      [
        ['bare node:http (baseline)', tput.bare.toFixed(0), p50.bare.toFixed(2), p99.bare.toFixed(2), us('bare'), rss.bare.toFixed(0)],
        [
          `bare node:http + one SQLite insert per request (reference, ${backend.name})`,
          tput.durable.toFixed(0),
          p50.durable.toFixed(2),
          p99.durable.toFixed(2),
          us('durable'),
          rss.durable.toFixed(0),
        ],
        [
          `agctl serve listener (HMAC + durable idempotency, ${backend.name})`,
          tput.embedded.toFixed(0),
          p50.embedded.toFixed(2),
          p99.embedded.toFixed(2),
          us('embedded'),
          rss.embedded.toFixed(0),
        ],
      ],
    );
    console.log('');
    printTable(
      ['measure', 'value', 'target', ''],
      [
        ['throughput ratio (listener / bare)', ratio.toFixed(2), '>= 0.45', ratio >= 0.45 ? 'met' : 'MISSED'],
        ['throughput ratio (listener / one-insert reference)', refRatio.toFixed(2), '>= 1.50', refRatio >= 1.5 ? 'met' : 'MISSED'],
        ['p99 latency ratio (listener / bare)', p99Ratio.toFixed(2), '-', '-'],
        ['server CPU per request ratio (listener / bare)', cpuRatio ? cpuRatio.toFixed(2) : '-', '-', '-'],
        ['listener peak RSS', `${rss.embedded.toFixed(0)} MiB`, '<= 200 MiB', rss.embedded <= 200 ? 'met' : 'MISSED'],
      ],
    );
    return { backend: backend.name, requests: REQUESTS, throughput: tput, p50, p99, cpuUsPerRequest: cpu, ratio, refRatio, rss, sender };
  } finally {
    await embedded.stop();
    await durable.stop();
    await bare.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === SELF) await (process.argv[2] === 'sender' ? runSender() : run());
