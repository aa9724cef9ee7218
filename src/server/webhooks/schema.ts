// The webhook tables, the shapes of their rows, and how runs are keyed.
import type { Statement } from '../store/sqlite.js';
import type { DB } from '../store/db.js';
import type { AuthMethod } from '../../webhook/verify.js';
import { INCOMING_PATH } from '../../api/webhook-listeners.js';
import { jsonColumnOf, nullable } from '../store/json.js';

/** A listener's endpoint path (relative to the server's base URL). */
export const listenerPath = (id: string) => INCOMING_PATH + encodeURIComponent(id);

/** Where a listener's sealed HMAC secret lives (the additional data of its seal). */
export const secretPlace = (id: string) => ['webhook_listeners', id, 'secret'] as const;

/**
 * Runs are numbered per listener (1, 2, 3, ...; never deleted, so the last
 * number is the count) and stored under the key `seq` = listener number ×
 * RUNS_PER_LISTENER + run number: each listener's runs are one range of the
 * table's own key, listed newest first with no index to write on every event.
 */
export const RUNS_PER_LISTENER = 2 ** 32;
/** The largest listener number whose run range stays within exact JavaScript integers (2^53). */
export const MAX_LISTENER_NUM = 2 ** 21 - 1;

export interface ListenerRow {
  id: string;
  /** A small number for the listener, unique in this database: the compact key of its events and runs. */
  num: number;
  automation_id: string;
  auth_method: AuthMethod;
  secret_sealed: string | null;
  jwks_url: string | null;
  /** ALLOWED_CIDRS */
  allowed_cidrs: string | null;
  created_at: number;
}

/**
 * webhook_listeners.allowed_cidrs: the ranges events may come from, NULL for
 * any address. A text that is not a JSON list of strings reads as one range,
 * the text itself: a damaged list shows as stored and still restricts (a range
 * that does not parse admits nothing; see AllowList).
 */
export const ALLOWED_CIDRS = nullable(
  jsonColumnOf((raw, text): string[] => (Array.isArray(raw) && raw.every((r) => typeof r === 'string') ? raw : [text])),
);

export interface AutomationRow {
  id: string;
  published: number;
  trigger_enabled: number;
}

export interface RunRow {
  seq: number;
  id: string;
  listener_id: string;
  automation_id: string;
  event_id: string;
  /** The body as a BLOB (a Uint8Array; a Buffer under better-sqlite3), or as text. */
  context: Uint8Array | string;
  created_at: number;
}

/**
 * The webhook tables. `webhook_events` is the idempotency record: one row per
 * (listener number, event ID's 16 bytes) accepted in the last 7 days, the
 * unique key that tells a new event from a duplicate.
 */
export function createWebhookTables(db: DB): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS webhook_automations (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      published INTEGER NOT NULL,
      trigger_enabled INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS webhook_listeners (
      id TEXT PRIMARY KEY,
      num INTEGER NOT NULL UNIQUE,
      automation_id TEXT NOT NULL REFERENCES webhook_automations(id),
      auth_method TEXT NOT NULL CHECK (auth_method IN ('HMAC', 'JWT')),
      secret_sealed TEXT,
      jwks_url TEXT,
      allowed_cidrs TEXT,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS webhook_events (
      listener INTEGER NOT NULL,
      event BLOB NOT NULL,
      received_at INTEGER NOT NULL,
      PRIMARY KEY (listener, event)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS webhook_events_received ON webhook_events (received_at);
    CREATE TABLE IF NOT EXISTS webhook_runs (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      listener_id TEXT NOT NULL,
      automation_id TEXT NOT NULL,
      event_id TEXT NOT NULL,
      context BLOB NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS webhook_demo_keys (
      kid TEXT PRIMARY KEY,
      alg TEXT NOT NULL,
      private_sealed TEXT NOT NULL,
      public_jwk TEXT NOT NULL
    );
  `);
}

/** The key of a listener's last run, or the start of its range (`num` × RUNS_PER_LISTENER) when it has none. */
export function lastRunKey(db: DB, num: number): number {
  const lo = num * RUNS_PER_LISTENER;
  let st = lastRunStatements.get(db);
  if (!st) lastRunStatements.set(db, (st = db.prepare('SELECT MAX(seq) FROM webhook_runs WHERE seq > ? AND seq < ?').pluck()));
  return (st.get(lo, lo + RUNS_PER_LISTENER) as number | null) ?? lo;
}

/** The statement of lastRunKey, prepared once per database (it runs in every group commit). */
const lastRunStatements = new WeakMap<DB, Statement>();
