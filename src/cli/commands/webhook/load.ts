// Load mode of `agctl webhook send`: events with fresh event IDs through one
// keep-alive undici pool, C in flight, optionally paced to R per second, until
// N were sent, the time given is up, or the listener gives no answer at all
// (it is not running); a progress bar on a terminal; a summary with status
// counts, throughput, latency percentiles and a histogram. Latency is the time
// to an HTTP answer (any status; requests that got none are not measured).
// Under a rate each latency is measured from when its request was due, not from
// when a free connection let it go (no coordinated omission); requests that fell
// due before the time was up but were never sent are counted. Ctrl-C stops sending, lets
// the requests in flight finish (aborting them after INTERRUPT_GRACE_MS or a
// second Ctrl-C) and summarizes what was sent, marked as interrupted.
import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { networkFailure, statusText } from '../../../client/http.js';
import { CliError, Exit, exitCodeForStatus, type ExitCode } from '../../../lib/exit.js';
import type { HttpProxy } from '../../../lib/proxy.js';
import { newEventId } from '../../../webhook/sign.js';
import type { CommandContext } from '../../context.js';
import { jsonErrorLine, renderError } from '../../errors.js';
import { CLEAR_LINE, fitLine, lineWidth, redraw } from '../../live-line.js';
import { DOWN_ATTEMPTS, DOWN_MS } from './flags.js';
import { LatencyHistogram, histogramLines, type LatencyBucket } from './latency.js';

/** Bodies one after another (the lines of --events); undefined when there are none left. */
export interface BodySource {
  next(): Buffer | undefined | Promise<Buffer | undefined>;
}

export interface LoadOptions {
  url: string;
  /** Events to send at most (Infinity: until the time is up). */
  count: number;
  /** Stop sending after this long (--duration). */
  durationMs?: number;
  concurrency: number;
  /** Requests per second at most. */
  rate?: number;
  /** The body of every event, or where each event's body comes from. */
  body: Buffer | BodySource;
  /** Where the bodies come from, for the summary (--events). */
  events?: { file: string; lines: number };
  headersFor: (eventId: string, body: Buffer) => Promise<Record<string, string>>;
  timeoutMs: number;
  /** A terminal to draw the progress bar on (fitted to its current `columns`). */
  progress?: Writable & { columns?: number };
  /** Subscribes to Ctrl-C for the run (io.onInterrupt); returns the unsubscribe. */
  onInterrupt?: (listener: () => void) => () => void;
  /** How long requests in flight at Ctrl-C may take before they are aborted (default INTERRUPT_GRACE_MS). */
  interruptGraceMs?: number;
  /** The proxy the events go through (proxyFor): https in a CONNECT tunnel per connection, TLS end to end. */
  proxy?: HttpProxy;
}

/** After Ctrl-C, how long the requests in flight may take to answer before they are aborted. */
export const INTERRUPT_GRACE_MS = 2000;
/** Bytes of an answer's body load mode reads at most (only its status counts); a longer body's connection is closed there. */
export const LOAD_MAX_BODY_BYTES = 128 * 1024;
/** The error counted for requests aborted after Ctrl-C. */
export const ABORTED = 'aborted';

export interface LoadSummary {
  url: string;
  /** Events asked for (--count, or the lines of --events); null when only --duration bounds the run. */
  count: number | null;
  /** The time limit (--duration), in seconds; null without one. */
  durationLimitS: number | null;
  /** Events sent: `count`, or fewer when the time was up, the listener was down, or after Ctrl-C. */
  sent: number;
  /** Events the listener accepted (answered 2xx). */
  delivered: number;
  /** Ended because the time given (--duration) was up. */
  timed: boolean;
  /** Stopped with Ctrl-C before every event was sent. */
  interrupted: boolean;
  /** Why the run stopped early when the listener gave no HTTP answer (it is taken as down); else null. */
  stopped: string | null;
  concurrency: number;
  rate: number | null;
  /** Under --rate, events that fell due before the time (--duration) was up but were never sent (the listener answered too slowly for the rate at that concurrency); null without --rate. */
  dueNotSent: number | null;
  /** The size of the one body sent; null when the bodies are the lines of --events. */
  bodyBytes: number | null;
  /** The corpus sent (--events): its name and number of events; else null. */
  events: { file: string; lines: number } | null;
  durationMs: number;
  /** Completed requests per second (answered or failed; not those aborted after Ctrl-C). */
  throughput: number;
  statuses: Record<string, number>;
  /** Requests that got no HTTP answer, by what happened: refused, reset, timed out, unreachable, DNS, TLS (`aborted`: still in flight when the run was interrupted). */
  errors: Record<string, number>;
  /** Latency is the time to an HTTP answer (any status): from when each request was sent, or under a rate from when it was due. */
  latencyFrom: 'sent' | 'due';
  /** null when no request got an HTTP answer. */
  latencyMs: { p50: number; p95: number; p99: number; max: number; mean: number; min: number } | null;
  /** The latencies in ten buckets of equal width, from the fastest to the slowest (none when no request got an HTTP answer). */
  latencyBuckets: LatencyBucket[];
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/**
 * The progress bar's text fitted to `max` columns: in full when it fits (as on
 * any terminal of usual width), else without the status counts, then with a
 * shorter bar, then the counts alone, cut with "…" as a last resort. With a
 * time limit (`limitMs`) the bar fills with the time or the count, whichever
 * is further along; `total` is Infinity when only the time bounds the run.
 */
export function progressLine(
  done: number,
  total: number,
  elapsedMs: number,
  statuses: Record<string, number>,
  errors: number,
  max: number,
  limitMs?: number,
): string {
  const counted = Number.isFinite(total);
  const fraction = Math.min(1, Math.max(counted ? (total > 0 ? done / total : 1) : 0, limitMs ? elapsedMs / limitMs : 0));
  const bar = (width: number) => {
    const filled = Math.round(fraction * width);
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  };
  const secs = elapsedMs / 1000;
  const rate = `${secs > 0 ? Math.round(done / secs) : 0}/s`;
  const of = counted ? `${done}/${total}` : String(done);
  const time = limitMs ? `  ${Math.min(secs, limitMs / 1000).toFixed(1)}/${limitMs / 1000} s` : '';
  const listed = Object.entries(statuses)
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
  const counts = listed ? `  ${listed}` : '';
  const errs = errors ? `  errors:${errors}` : '';
  return fitLine(
    [
      `${bar(30)} ${of}  ${rate}${time}${counts}${errs}`,
      `${bar(30)} ${of}  ${rate}${time}${errs}`,
      `${bar(10)} ${of}  ${rate}${time}${errs}`,
      `${of}  ${rate}${errs}`,
      of,
    ],
    max,
  );
}

/** Why the run stopped when no attempt got an HTTP answer, in plain words. */
function downReason(err: unknown, url: string, proxy?: HttpProxy): string {
  const f = networkFailure(err);
  const { host, hostname } = new URL(url);
  if (proxy) {
    const via = `the proxy ${proxy.display} (${proxy.source})`;
    // undici's words for a CONNECT answered with another status than 200.
    const refused = /Proxy response \((\d+)\)/.exec((err as Error)?.message ?? '');
    if (refused) return `${via} refused to connect to ${host}: ${statusText(Number(refused[1]))}`;
    // The connection agctl opens goes to the proxy: one refused, reset or not found is the proxy's.
    if (f.kind === 'refused' || f.kind === 'reset' || f.kind === 'not-found' || f.kind === 'unreachable')
      return `cannot reach ${via}: ${f.detail}`;
  }
  switch (f.kind) {
    case 'refused':
    case 'reset':
      return `connection ${f.kind} by ${host}: is the listener running?`;
    case 'not-found':
      return `cannot find ${hostname}: ${f.detail}: check the listener URL`;
    case 'not-tls':
    case 'tls':
    case 'certificate':
      return `TLS handshake with ${host} failed: ${f.detail}`;
    case 'not-http':
      return `${host} answered, but not in HTTP: check the listener URL (its port and scheme)`;
    default:
      return `no answer from ${host}: ${f.detail}: is the listener running?`;
  }
}

export async function runLoad(o: LoadOptions): Promise<LoadSummary> {
  const { Pool, ProxyAgent } = await import('undici');
  const target = new URL(o.url);
  const path = target.pathname + target.search;
  const connectMs = Math.min(o.timeoutMs, 10_000);
  const options = {
    connections: o.concurrency,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
  };
  // Through a proxy: a pool of tunnels (CONNECT, then TLS to the listener inside each), as many as without.
  const pool: Dispatcher = o.proxy
    ? new ProxyAgent({
        ...options,
        uri: o.proxy.display,
        token: o.proxy.authorization,
        proxyTls: { timeout: connectMs },
        requestTls: { timeout: connectMs },
      })
    : new Pool(target.origin, { ...options, connect: { timeout: connectMs } });
  const latency = new LatencyHistogram();
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const errorCount = () => Object.values(errors).reduce((a, b) => a + b, 0);
  /** Requests in a row, since the last HTTP answer, that got none (not counting those aborted after Ctrl-C), and when the first of them was sent. */
  let noAnswer = 0;
  let noAnswerSince = 0;
  let next = 0;
  let sent = 0;
  let done = 0;
  const started = performance.now();
  const interval = o.rate ? 1000 / o.rate : 0;
  const deadline = o.durationMs !== undefined ? started + o.durationMs : Infinity;
  const single = Buffer.isBuffer(o.body) ? o.body : undefined;
  const source = o.body as BodySource;

  // Ctrl-C: no new event is sent; the requests in flight get a grace period, then the pool is destroyed.
  // Time up, or the listener down: no new event is sent; the requests in flight finish.
  let interrupted = false;
  let timeUp = false;
  let slotsPastTime = false;
  let down: string | undefined;
  const halted = () => interrupted || timeUp || down !== undefined;
  let destroyed: Promise<void> | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const wakers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of [...wakers]) wake();
  };
  const abandon = () => {
    clearTimeout(graceTimer);
    destroyed ??= pool.destroy().catch(() => {});
  };
  const unsubscribe = o.onInterrupt?.(() => {
    if (interrupted) return abandon();
    interrupted = true;
    if (timer) {
      clearInterval(timer);
      o.progress!.write(CLEAR_LINE);
    }
    wakeAll();
    graceTimer = setTimeout(abandon, o.interruptGraceMs ?? INTERRUPT_GRACE_MS);
  });
  const endTimer = o.durationMs !== undefined ? setTimeout(() => ((timeUp = true), wakeAll()), o.durationMs) : undefined;
  /** Waits for a --rate slot; Ctrl-C, the time limit or a down listener ends the wait. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(t);
        wakers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      wakers.add(wake);
    });

  const drawBar = (end = '') => {
    const p = o.progress!;
    p.write(redraw(progressLine(done, o.count, performance.now() - started, statuses, errorCount(), lineWidth(p), o.durationMs)) + end);
  };
  const timer = o.progress ? setInterval(drawBar, 100) : undefined;

  const worker = async () => {
    for (;;) {
      if (halted()) return;
      const i = next++;
      if (i >= o.count) return;
      let due = 0;
      if (interval) {
        due = started + i * interval;
        // Due after the time is up: not sent (the other workers may still have slots due before).
        if (due >= deadline) {
          slotsPastTime = true;
          return;
        }
        const wait = due - performance.now();
        if (wait > 0) await pause(wait);
        if (halted()) return;
      }
      let body = single ?? source.next();
      if (body instanceof Promise) body = await body;
      if (body === undefined) return;
      const headers = await o.headersFor(newEventId(), body);
      if (halted()) return;
      sent++;
      // Under a rate, from when the request was due: a request kept waiting for a free connection counts its wait
      // (one a timer let go a little early counts from when it left).
      const sentAt = performance.now();
      const t0 = interval ? Math.min(due, sentAt) : sentAt;
      try {
        const status = await post(pool, { origin: target.origin, path, method: 'POST', headers, body });
        noAnswer = 0;
        statuses[status] = (statuses[status] ?? 0) + 1;
        latency.record(performance.now() - t0);
      } catch (err) {
        if (destroyed) {
          errors[ABORTED] = (errors[ABORTED] ?? 0) + 1;
          done++;
          continue;
        }
        const word = networkFailure(err).word;
        errors[word] = (errors[word] ?? 0) + 1;
        if (noAnswer++ === 0) noAnswerSince = sentAt;
        if (down === undefined && (noAnswer >= DOWN_ATTEMPTS || performance.now() - noAnswerSince >= DOWN_MS)) {
          down = downReason(err, o.url, o.proxy);
          wakeAll();
        }
      }
      done++;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(o.concurrency, o.count) }, worker));
  } finally {
    unsubscribe?.();
    clearTimeout(graceTimer);
    clearTimeout(endTimer);
    if (timer && !interrupted) {
      clearInterval(timer);
      drawBar('\n');
    }
    if (destroyed) await destroyed;
    else await pool.close();
  }
  const durationMs = performance.now() - started;
  const timed = (timeUp || slotsPastTime) && !interrupted && down === undefined && sent < o.count;
  let delivered = 0;
  for (const [st, n] of Object.entries(statuses)) if (Number(st) >= 200 && Number(st) < 300) delivered += n;
  return {
    url: o.url,
    count: Number.isFinite(o.count) ? o.count : null,
    durationLimitS: o.durationMs !== undefined ? o.durationMs / 1000 : null,
    sent,
    delivered,
    timed,
    interrupted,
    stopped: down ?? null,
    concurrency: o.concurrency,
    rate: o.rate ?? null,
    // The slots of the schedule before the time limit (i * interval < durationMs), as many as there were events to send.
    dueNotSent: interval ? (timed ? Math.max(0, Math.min(o.count, Math.ceil(o.durationMs! / interval)) - sent) : 0) : null,
    bodyBytes: single ? single.length : null,
    events: o.events ?? null,
    durationMs: round(durationMs, 1),
    throughput: round(((done - (errors[ABORTED] ?? 0)) / durationMs) * 1000, 1),
    statuses,
    errors,
    latencyFrom: interval ? 'due' : 'sent',
    latencyMs:
      latency.count === 0
        ? null
        : {
            p50: round(latency.percentile(50)),
            p95: round(latency.percentile(95)),
            p99: round(latency.percentile(99)),
            max: round(latency.max),
            mean: round(latency.mean),
            min: round(latency.min),
          },
    latencyBuckets: latency.buckets(),
  };
}

/**
 * A failure of the run, on stderr: a `✗` line, or with -o json the error
 * object (`{"error":{...}}`) as the runner prints errors, with the run's exit code.
 */
export function reportFailure(ctx: CommandContext, message: string, exitCode: ExitCode): void {
  if (ctx.out.json) ctx.io.stderr.write(jsonErrorLine(renderError(new CliError(message, exitCode)).json));
  else ctx.out.failure(message);
}

/** The summary on stdout; on stderr, why the listener was taken as down, or why not every event was delivered. */
export async function printSummary(s: LoadSummary, ctx: CommandContext): Promise<void> {
  if (ctx.out.json) ctx.out.printJson(s);
  else await printTable(s, ctx);
  if (s.stopped) reportFailure(ctx, s.stopped, loadExitCode(s));
  else if (!s.interrupted && s.delivered < s.sent) reportFailure(ctx, undelivered(s), loadExitCode(s));
}

async function printTable(s: LoadSummary, ctx: CommandContext): Promise<void> {
  const what = s.events ? `lines of ${s.events.file === '-' ? 'standard input' : s.events.file}` : `${s.bodyBytes}-byte body`;
  const of = s.count === null ? `${s.sent}` : `${s.sent} of ${s.count}`;
  const why = s.interrupted
    ? 'Interrupted (Ctrl-C)'
    : s.stopped
      ? 'Stopped (no HTTP answer)'
      : s.timed
        ? `Time up (--duration ${s.durationLimitS} s)`
        : undefined;
  ctx.out.print(
    why
      ? `${why} after sending ${of} events (${what}) to ${s.url}: ${s.delivered} of ${s.sent} delivered`
      : `${s.delivered} of ${s.sent} delivered: sent ${s.sent} events (${what}) to ${s.url}`,
  );
  ctx.out.print(
    `in ${(s.durationMs / 1000).toFixed(2)} s: ${s.throughput} requests/s, concurrency ${s.concurrency}${s.rate ? `, rate limit ${s.rate}/s` : ''}`,
  );
  const rows: (string | number)[][] = Object.entries(s.statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([st, n]) => [st, n]);
  for (const [what, n] of Object.entries(s.errors)) rows.push([`error ${what}`, n]);
  await ctx.out.table(['STATUS', 'COUNT'], rows);
  const l = s.latencyMs;
  if (s.dueNotSent) ctx.out.print(notSent(s));
  if (l === null) ctx.out.print('latency: none measured (no request answered)');
  else
    ctx.out.print(
      `latency ms: p50 ${l.p50}  p95 ${l.p95}  p99 ${l.p99}  max ${l.max}  mean ${l.mean}${s.latencyFrom === 'due' ? '  (from when each request was due)' : ''}`,
    );
  const columns = (ctx.io.stdout as { columns?: number }).columns;
  for (const line of histogramLines(s.latencyBuckets, typeof columns === 'number' && columns > 0 ? columns : 80)) ctx.out.print(line);
}

/** Events the schedule of --rate held before the time was up that were never sent, and why, in one line. */
export function notSent(s: LoadSummary): string {
  const conns = s.concurrency === 1 ? '1 connection' : `${s.concurrency} connections`;
  return `${s.dueNotSent} more events fell due but were not sent before the time was up: the listener answered too slowly for ${s.rate}/s over ${conns} (raise --concurrency)`;
}

/** Why not every event was delivered, in one line: the failures, most frequent first. */
export function undelivered(s: LoadSummary): string {
  const failures: [string, number][] = [
    ...Object.entries(s.statuses)
      .filter(([st]) => Number(st) < 200 || Number(st) >= 300)
      .map(([st, n]): [string, number] => [`HTTP ${st}`, n]),
    ...Object.entries(s.errors).map(([what, n]): [string, number] => [`no answer (${what})`, n]),
  ].sort((a, b) => b[1] - a[1]);
  return `${s.delivered} of ${s.sent} delivered; ${failures.map(([what, n]) => `${n} ${what}`).join(', ')}`;
}

/** 0 when every event was answered 2xx; otherwise the exit code of the most frequent failure (9 when the listener was down). */
export function loadExitCode(s: LoadSummary): ExitCode {
  if (s.stopped) return Exit.Server;
  let worst: [number, ExitCode] = [0, Exit.OK];
  for (const [st, n] of Object.entries(s.statuses)) {
    const code = exitCodeForStatus(Number(st));
    if (code !== Exit.OK && n > worst[0]) worst = [n, code];
  }
  for (const n of Object.values(s.errors)) if (n > worst[0]) worst = [n, Exit.Server];
  return worst[1];
}

/**
 * One POST through the pool: the status of its answer, once the answer has
 * been read (its body dropped; past LOAD_MAX_BODY_BYTES the connection is
 * closed instead). Through `dispatch`, without the body stream `request`
 * makes for each answer: about a tenth of the sender's CPU less.
 */
function post(pool: Dispatcher, opts: Dispatcher.DispatchOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let read = 0;
    pool.dispatch(opts, {
      // Present so undici takes this handler as one of its current (controller) kind.
      onRequestStart() {},
      onResponseStart(_controller, statusCode) {
        status = statusCode;
      },
      onResponseData(controller, chunk) {
        read += chunk.length;
        if (read <= LOAD_MAX_BODY_BYTES) return;
        resolve(status);
        controller.abort(new Error('answer over the load-mode limit'));
      },
      onResponseEnd: () => resolve(status),
      onResponseError: (_controller, err) => reject(err),
    });
  });
}
