// GET /_embedded/v1/webhook_listeners/:id/runs: a listener's automation runs,
// newest first, with the body of each event as its context data.
import { invalidArgument, notFound } from '../../api/errors.js';
import { RUN, type ListRunsResponse } from '../../api/webhook-listeners.js';
import { viewOf } from '../../api/shape.js';
import type { RequestContext } from '../router.js';
import { RUNS_PER_LISTENER, lastRunKey, type RunRow } from './schema.js';

const RUNS_LIMIT_DEFAULT = 50;
const RUNS_LIMIT_MAX = 1000;

export function listRuns(ctx: RequestContext): { body: ListRunsResponse } {
  const id = ctx.params.id!;
  const db = ctx.store.db;
  const num = db.prepare('SELECT num FROM webhook_listeners WHERE id = ?').pluck().get(id) as number | undefined;
  if (num === undefined) throw notFound(`webhook listener ${id} not found`);
  const rawLimit = ctx.query.get('limit');
  if (rawLimit !== null && !/^\d+$/.test(rawLimit)) throw invalidArgument('limit must be a non-negative integer');
  const limit = Math.min(Number(rawLimit) || RUNS_LIMIT_DEFAULT, RUNS_LIMIT_MAX);
  const eventId = ctx.query.get('event_id');
  // The listener's runs are the keys between lo and hi (see RUNS_PER_LISTENER).
  const lo = num * RUNS_PER_LISTENER;
  const hi = lo + RUNS_PER_LISTENER;
  const where = eventId ? 'seq > ? AND seq < ? AND event_id = ?' : 'seq > ? AND seq < ?';
  const args = eventId ? [lo, hi, eventId.toLowerCase()] : [lo, hi];
  const rows = db.prepare(`SELECT * FROM webhook_runs WHERE ${where} ORDER BY seq DESC LIMIT ?`).all(...args, limit) as RunRow[];
  // Without a filter the count is the last run number (runs are numbered from 1 and never deleted).
  const total = eventId
    ? (db
        .prepare(`SELECT COUNT(*) FROM webhook_runs WHERE ${where}`)
        .pluck()
        .get(...args) as number)
    : lastRunKey(db, num) - lo;
  return {
    body: {
      runs: rows.map((r) =>
        viewOf(RUN, {
          id: r.id,
          number: r.seq - lo,
          listenerId: r.listener_id,
          automationId: r.automation_id,
          eventId: r.event_id,
          context: { trigger: contextData(r.context) },
          createdAt: new Date(r.created_at).toISOString(),
        }),
      ),
      total,
    },
  };
}

/**
 * Deepest nesting of a stored body shown as JSON. Step 2 accepts any valid
 * JSON, but a document nested thousands deep (well within 64 KiB) cannot be
 * serialized again: JSON.stringify runs out of stack.
 */
const MAX_CONTEXT_DEPTH = 1000;

/** True when the arrays and objects of a JSON text nest deeper than `max`. */
function nestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * A run's context data as stored (the exact body bytes, checked as JSON when
 * accepted). A leading byte order mark, which earlier versions let through, is
 * skipped; a record that still does not parse, or nests deeper than
 * MAX_CONTEXT_DEPTH, is shown as its text rather than failing the whole listing.
 */
function contextData(stored: Uint8Array | string): unknown {
  let text = typeof stored === 'string' ? stored : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (nestsDeeper(text, MAX_CONTEXT_DEPTH)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
