// Load mode of `agctl webhook send`: N events with fresh event IDs through one
// keep-alive undici pool, C in flight, optionally paced to R per second; a
// progress bar on a terminal; a summary with status counts, throughput and
// latency percentiles. Ctrl-C stops sending, lets the requests in flight
// finish (aborting them after INTERRUPT_GRACE_MS or a second Ctrl-C) and
// summarizes what was sent, marked as interrupted.
import type { Writable } from 'node:stream';
import { Exit, exitCodeForStatus, type ExitCode } from '../../../lib/exit.js';
import { newEventId } from '../../../webhook/sign.js';
import type { CommandContext } from '../../context.js';
import { CLEAR_LINE, fitLine, lineWidth, redraw } from '../../live-line.js';

export interface LoadOptions {
  url: string;
  count: number;
  concurrency: number;
  /** Requests per second at most. */
  rate?: number;
  body: Buffer;
  headersFor: (eventId: string) => Promise<Record<string, string>>;
  timeoutMs: number;
  /** A terminal to draw the progress bar on (fitted to its current `columns`). */
  progress?: Writable & { columns?: number };
  /** Subscribes to Ctrl-C for the run (io.onInterrupt); returns the unsubscribe. */
  onInterrupt?: (listener: () => void) => () => void;
  /** How long requests in flight at Ctrl-C may take before they are aborted (default INTERRUPT_GRACE_MS). */
  interruptGraceMs?: number;
}

/** After Ctrl-C, how long the requests in flight may take to answer before they are aborted. */
export const INTERRUPT_GRACE_MS = 2000;
/** Bytes of an answer's body load mode reads at most (only its status counts); a longer body's connection is closed there. */
export const LOAD_MAX_BODY_BYTES = 128 * 1024;
/** The error code counted for requests aborted after Ctrl-C. */
export const ABORTED = 'aborted';

export interface LoadSummary {
  url: string;
  /** Events asked for (--count). */
  count: number;
  /** Events sent: `count`, or fewer after Ctrl-C. */
  sent: number;
  /** Events the listener accepted (answered 2xx). */
  delivered: number;
  /** Stopped with Ctrl-C before every event was sent. */
  interrupted: boolean;
  concurrency: number;
  rate: number | null;
  bodyBytes: number;
  durationMs: number;
  /** Completed requests per second (answered or failed). */
  throughput: number;
  statuses: Record<string, number>;
  /** Requests that got no HTTP answer, by error code (`aborted`: still in flight when the run was interrupted). */
  errors: Record<string, number>;
  latencyMs: { p50: number; p95: number; p99: number; max: number; mean: number };
}

/** The nearest-rank percentile of sorted values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

function errorCode(err: unknown): string {
  let e = err as { code?: string; name?: string; cause?: unknown } | undefined;
  for (let i = 0; e && i < 4; i++) {
    if (typeof e.code === 'string') return e.code;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'ETIMEDOUT';
    e = e.cause as typeof e;
  }
  return (err as Error)?.name ?? 'error';
}

/**
 * The progress bar's text fitted to `max` columns: in full when it fits (as on
 * any terminal of usual width), else without the status counts, then with a
 * shorter bar, then the counts alone, cut with "…" as a last resort.
 */
export function progressLine(done: number, total: number, elapsedMs: number, statuses: Record<string, number>, errors: number, max: number): string {
  const bar = (width: number) => {
    const filled = total > 0 ? Math.round((done / total) * width) : width;
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  };
  const secs = elapsedMs / 1000;
  const rate = `${secs > 0 ? Math.round(done / secs) : 0}/s`;
  const counts = Object.entries(statuses).map(([s, n]) => `${s}:${n}`).join(' ');
  const errs = errors ? `  errors:${errors}` : '';
  return fitLine(
    [
      `${bar(30)} ${done}/${total}  ${rate}  ${counts}${errs}`,
      `${bar(30)} ${done}/${total}  ${rate}${errs}`,
      `${bar(10)} ${done}/${total}  ${rate}${errs}`,
      `${done}/${total}  ${rate}${errs}`,
      `${done}/${total}`,
    ],
    max,
  );
}

export async function runLoad(o: LoadOptions): Promise<LoadSummary> {
  const { Pool } = await import('undici');
  const target = new URL(o.url);
  const path = target.pathname + target.search;
  const pool = new Pool(target.origin, {
    connections: o.concurrency,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
    connect: { timeout: Math.min(o.timeoutMs, 10_000) },
  });
  /** Latencies of the requests that completed (answered or failed), in completion order. */
  const latencies = new Float64Array(o.count);
  let completed = 0;
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  let errorCount = 0;
  let next = 0;
  let sent = 0;
  let done = 0;
  const started = performance.now();
  const interval = o.rate ? 1000 / o.rate : 0;

  // Ctrl-C: no new event is sent; the requests in flight get a grace period, then the pool is destroyed.
  let interrupted = false;
  let destroyed: Promise<void> | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const wakers = new Set<() => void>();
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
    for (const wake of [...wakers]) wake();
    graceTimer = setTimeout(abandon, o.interruptGraceMs ?? INTERRUPT_GRACE_MS);
  });
  /** Waits for a --rate slot; Ctrl-C ends the wait. */
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
    p.write(redraw(progressLine(done, o.count, performance.now() - started, statuses, errorCount, lineWidth(p))) + end);
  };
  const timer = o.progress ? setInterval(drawBar, 100) : undefined;

  const worker = async () => {
    for (;;) {
      if (interrupted) return;
      const i = next++;
      if (i >= o.count) return;
      if (interval) {
        const wait = started + i * interval - performance.now();
        if (wait > 0) await pause(wait);
      }
      const headers = await o.headersFor(newEventId());
      if (interrupted) return;
      sent++;
      const t0 = performance.now();
      try {
        const res = await pool.request({ path, method: 'POST', headers, body: o.body });
        await res.body.dump({ limit: LOAD_MAX_BODY_BYTES });
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      } catch (err) {
        const code = destroyed ? ABORTED : errorCode(err);
        errors[code] = (errors[code] ?? 0) + 1;
        errorCount++;
        if (destroyed) {
          done++;
          continue;
        }
      }
      latencies[completed++] = performance.now() - t0;
      done++;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(o.concurrency, o.count) }, worker));
  } finally {
    unsubscribe?.();
    clearTimeout(graceTimer);
    if (timer && !interrupted) {
      clearInterval(timer);
      drawBar('\n');
    }
    if (destroyed) await destroyed;
    else await pool.close();
  }
  const durationMs = performance.now() - started;
  const sorted = latencies.subarray(0, completed).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  let delivered = 0;
  for (const [st, n] of Object.entries(statuses)) if (Number(st) >= 200 && Number(st) < 300) delivered += n;
  return {
    url: o.url,
    count: o.count,
    sent,
    delivered,
    interrupted,
    concurrency: o.concurrency,
    rate: o.rate ?? null,
    bodyBytes: o.body.length,
    durationMs: round(durationMs, 1),
    throughput: round((completed / durationMs) * 1000, 1),
    statuses,
    errors,
    latencyMs: {
      p50: round(percentile(sorted, 50)),
      p95: round(percentile(sorted, 95)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted[sorted.length - 1] ?? 0),
      mean: round(sorted.length ? sum / sorted.length : 0),
    },
  };
}

export async function printSummary(s: LoadSummary, ctx: CommandContext): Promise<void> {
  if (ctx.out.json) {
    ctx.out.printJson(s);
    return;
  }
  ctx.out.print(
    s.interrupted
      ? `Interrupted (Ctrl-C) after sending ${s.sent} of ${s.count} events (${s.bodyBytes}-byte body) to ${s.url}: ${s.delivered} of ${s.sent} delivered`
      : `${s.delivered} of ${s.count} delivered: sent ${s.count} events (${s.bodyBytes}-byte body) to ${s.url}`,
  );
  ctx.out.print(`in ${(s.durationMs / 1000).toFixed(2)} s: ${s.throughput} requests/s, concurrency ${s.concurrency}${s.rate ? `, rate limit ${s.rate}/s` : ''}`);
  const rows: (string | number)[][] = Object.entries(s.statuses).sort(([a], [b]) => Number(a) - Number(b)).map(([st, n]) => [st, n]);
  for (const [code, n] of Object.entries(s.errors)) rows.push([`error ${code}`, n]);
  await ctx.out.table(['STATUS', 'COUNT'], rows);
  const l = s.latencyMs;
  ctx.out.print(`latency ms: p50 ${l.p50}  p95 ${l.p95}  p99 ${l.p99}  max ${l.max}  mean ${l.mean}`);
  if (!s.interrupted && s.delivered < s.count) ctx.out.failure(undelivered(s));
}

/** Why not every event was delivered, in one line: the failures, most frequent first. */
export function undelivered(s: LoadSummary): string {
  const failures: [string, number][] = [
    ...Object.entries(s.statuses).filter(([st]) => Number(st) < 200 || Number(st) >= 300).map(([st, n]): [string, number] => [`HTTP ${st}`, n]),
    ...Object.entries(s.errors).map(([code, n]): [string, number] => [`no answer (${code})`, n]),
  ].sort((a, b) => b[1] - a[1]);
  return `${s.delivered} of ${s.count} delivered; ${failures.map(([what, n]) => `${n} ${what}`).join(', ')}`;
}

/** 0 when every event was answered 2xx; otherwise the exit code of the most frequent failure. */
export function loadExitCode(s: LoadSummary): ExitCode {
  let worst: [number, ExitCode] = [0, Exit.OK];
  for (const [st, n] of Object.entries(s.statuses)) {
    const code = exitCodeForStatus(Number(st));
    if (code !== Exit.OK && n > worst[0]) worst = [n, code];
  }
  for (const n of Object.values(s.errors)) if (n > worst[0]) worst = [n, Exit.Server];
  return worst[1];
}
