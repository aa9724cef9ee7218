// Inbound webhooks (service-api.md §2.5, §3, §4.5, §5.2, §6): listeners linked
// to automations, the incoming endpoint running the shared verification
// pipeline (src/webhook/verify.ts), durable idempotency (an append-only event
// log on disk, checked through a key set kept in memory; see EventIndex
// below), automation runs with the body as context data, and the
// embedded-only management routes under /_embedded/v1/ (not part of the
// service API).
import { randomUUID } from 'node:crypto';
import { invalidArgument, notFound, ApiError, Code } from '../../api/errors.js';
import { isUuidV4, ksuid, uuidBytes } from '../../lib/ids.js';
import { AllowList, cidrListError } from '../../webhook/cidr.js';
import { JwksError, jwksUrlProblem, localJwks, remoteJwks, type KeyResolver } from '../../webhook/jwks.js';
import { generateListenerKey } from '../../webhook/keys.js';
import { newHmacSecret } from '../../webhook/sign.js';
import {
  EVENT_RETENTION_MS,
  MAX_BODY_BYTES,
  acceptedResult,
  bodyTooLarge,
  checkSource,
  checkWebhook,
  headerValue,
  type AcceptOutcome,
  type AuthMethod,
  type ListenerConfig,
  type PassedChecks,
  type VerifyInput,
  type VerifyResult,
} from '../../webhook/verify.js';
import type { ServerModule } from '../module.js';
import type { JsonResult, RequestContext } from '../router.js';
import type { Store } from '../store/db.js';
import { startCheckpointer } from '../store/checkpointer.js';
import { EventKeySet } from '../store/event-keys.js';
import type { Statement } from 'better-sqlite3';

export const INCOMING_PREFIX = '/api/v1/webhooks/incoming/';
/** The key set of the demo JWT key, served by the embedded server itself. */
export const DEMO_JWKS_PATH = '/_embedded/v1/demo/jwks.json';
/** Demo allowlist that excludes loopback (TEST-NET-3 and the IPv6 documentation range). */
export const DEMO_RESTRICTED_CIDRS = ['203.0.113.0/24', '2001:db8::/32'];
const PRUNE_INTERVAL_MS = 3600_000;
const PRUNE_BATCH = 5000;
/** Slots of the in-memory key set one pruning batch looks at (well under a millisecond). */
const SWEEP_SLOTS = 65_536;
const RUNS_LIMIT_DEFAULT = 50;
const RUNS_LIMIT_MAX = 1000;
const MAX_CIDRS = 100;
/**
 * Runs are numbered per listener (1, 2, 3, ...; never deleted, so the last
 * number is the count) and stored under the key `seq` = listener number ×
 * RUNS_PER_LISTENER + run number: each listener's runs are one range of the
 * table's own key, listed newest first with no index to write on every event.
 */
const RUNS_PER_LISTENER = 2 ** 32;
/** The largest listener number whose run range stays within exact JavaScript integers (2^53). */
const MAX_LISTENER_NUM = 2 ** 21 - 1;

interface ListenerRow {
  id: string;
  /** A small number for the listener, unique in this database: the compact key of its event records. */
  num: number;
  automation_id: string;
  auth_method: AuthMethod;
  secret_sealed: string | null;
  jwks_url: string | null;
  allowed_cidrs: string | null;
  created_at: number;
}

interface AutomationRow {
  id: string;
  published: number;
  trigger_enabled: number;
}

interface RunRow {
  seq: number;
  id: string;
  listener_id: string;
  automation_id: string;
  event_id: string;
  context: Buffer | string;
  created_at: number;
}

/** A listener as the incoming route needs it, with its secret opened once. */
interface CachedListener {
  id: string;
  num: number;
  automationId: string;
  authMethod: AuthMethod;
  secret?: string;
  jwksUrl: string | null;
  allowList: AllowList | null;
  /**
   * Why the linked automation does not run (unpublished, trigger disabled), or
   * undefined when it runs. Read once with the listener: the embedded server
   * has no route that changes an automation after it is created.
   */
  notRunReason?: string;
  /** Pipeline configurations by (insecure-JWKS flag, base URL). */
  configs: Map<string, ListenerConfig>;
}

const listenerPath = (id: string) => INCOMING_PREFIX + encodeURIComponent(id);
const place = (id: string) => ['webhook_listeners', id, 'secret'] as const;

interface PendingEvent {
  listener: CachedListener;
  eventKey: string;
  /** The raw body: stored as the run's context data. */
  body: Uint8Array;
  now: number;
  /** Called once the event's transaction has committed (or failed). */
  done: (err: unknown, outcome?: AcceptOutcome) => void;
}

/** Most events committed in one transaction. */
const GROUP_COMMIT_MAX = 256;

/**
 * Per-store state: prepared statements, opened listeners, the demo key set,
 * and the group commit of accepted events.
 *
 * Group commit: events that pass steps 1 to 3 in the same turn of the event
 * loop are recorded in one transaction (each still by its own atomic
 * check-and-record statement, in arrival order), and every answer is sent only
 * after that transaction has committed. A commit is the expensive part of a
 * write; sharing it keeps ingest fast under load without weakening durability.
 */
class WebhookState {
  readonly #store: Store;
  readonly #listeners = new Map<string, CachedListener>();
  #demoResolver?: KeyResolver;
  #demoJwks?: { keys: unknown[] };
  readonly #getListener: Statement;
  readonly #events: EventIndex;
  readonly #insRun: Statement;
  readonly #lastRun: Statement;
  /** The next run number of each listener written to in the open transaction (filled on first use). */
  readonly #nextRuns = new Map<number, number>();
  readonly #commit: (batch: PendingEvent[]) => AcceptOutcome[];
  #queue: PendingEvent[] = [];
  #flushScheduled = false;

  constructor(store: Store) {
    this.#store = store;
    const db = store.db;
    this.#getListener = db.prepare(
      `SELECT l.*, a.published, a.trigger_enabled FROM webhook_listeners l
       LEFT JOIN webhook_automations a ON a.id = l.automation_id WHERE l.id = ?`,
    );
    this.#events = new EventIndex(db);
    this.#insRun = db.prepare('INSERT INTO webhook_runs (seq, id, listener_id, automation_id, event_id, context, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.#lastRun = db.prepare('SELECT MAX(seq) FROM webhook_runs WHERE seq > ? AND seq < ?').pluck();
    const record = (p: PendingEvent): AcceptOutcome => {
      const { listener: l, eventKey, now } = p;
      if (!this.#events.claim(l.num, uuidBytes(eventKey), now)) return { duplicate: true };
      // Step 5: the run is recorded only when the automation is published and its trigger enabled.
      if (l.notRunReason) return { duplicate: false, ran: false, notRunReason: l.notRunReason };
      const runId = randomUUID();
      this.#insRun.run(this.#nextRun(l.num), runId, l.id, l.automationId, eventKey, p.body, now);
      return { duplicate: false, ran: true, runId };
    };
    // Run numbers are read afresh in each transaction: another server on the same data directory may have added runs.
    this.#commit = this.#events.transaction((batch: PendingEvent[]) => {
      this.#nextRuns.clear();
      return batch.map(record);
    });
  }

  /** The key of a listener's last run, or the start of its range (`num` × RUNS_PER_LISTENER) when it has none. */
  lastRun(num: number): number {
    const lo = num * RUNS_PER_LISTENER;
    return (this.#lastRun.get(lo, lo + RUNS_PER_LISTENER) as number | null) ?? lo;
  }

  /** The key of a listener's next run (inside a write transaction, which keeps other writers out). */
  #nextRun(num: number): number {
    const lo = num * RUNS_PER_LISTENER;
    let next = this.#nextRuns.get(num);
    if (next === undefined) next = this.lastRun(num) + 1;
    if (next >= lo + RUNS_PER_LISTENER) throw new Error(`webhook listener number ${num} has used up its run numbers`);
    this.#nextRuns.set(num, next + 1);
    return next;
  }

  /** Steps 4 and 5 for one event; `done` is called once its transaction has committed. */
  accept(listener: CachedListener, eventKey: string, body: Uint8Array, now: number, done: PendingEvent['done']): void {
    this.#queue.push({ listener, eventKey, body, now, done });
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(this.#flush);
    }
  }

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    for (let i = 0; i < queue.length; i += GROUP_COMMIT_MAX) {
      const batch = queue.slice(i, i + GROUP_COMMIT_MAX);
      let outcomes: AcceptOutcome[];
      try {
        outcomes = this.#commit(batch);
      } catch {
        // One event's failure must not fail the others: commit each on its own.
        for (const p of batch) {
          let outcome: AcceptOutcome;
          try {
            outcome = this.#commit([p])[0]!;
          } catch (err) {
            p.done(err);
            continue;
          }
          p.done(null, outcome);
        }
        continue;
      }
      for (let j = 0; j < batch.length; j++) batch[j]!.done(null, outcomes[j]!);
    }
  };

  listener(id: string): CachedListener | null {
    const hit = this.#listeners.get(id);
    if (hit) return hit;
    const row = this.#getListener.get(id) as (ListenerRow & { published: number | null; trigger_enabled: number | null }) | undefined;
    if (!row) return null;
    const l: CachedListener = {
      id: row.id,
      num: row.num,
      automationId: row.automation_id,
      authMethod: row.auth_method,
      secret: row.secret_sealed ? this.#store.open(row.secret_sealed, ...place(row.id)) : undefined,
      jwksUrl: row.jwks_url,
      allowList: row.allowed_cidrs ? new AllowList(JSON.parse(row.allowed_cidrs) as string[], { skipInvalid: true }) : null,
      notRunReason:
        row.published === null ? 'the automation no longer exists' : !row.published ? 'the automation is not published' : !row.trigger_enabled ? 'the automation trigger is disabled' : undefined,
      configs: new Map(),
    };
    this.#listeners.set(id, l);
    return l;
  }

  /** The pipeline's view of a listener as reached at `base` (cached: it only depends on these). */
  config(l: CachedListener, base: string, allowInsecureJwks: boolean): ListenerConfig {
    const key = `${allowInsecureJwks ? 1 : 0}${base}`;
    let c = l.configs.get(key);
    if (!c) {
      if (l.configs.size >= 16) l.configs.clear();
      c = {
        authMethod: l.authMethod,
        secret: l.secret,
        allowedCidrs: l.allowList,
        endpointUrl: base + listenerPath(l.id),
        tenantBaseUrl: base,
        jwks: l.authMethod === 'JWT' ? this.#jwksFor(l, allowInsecureJwks) : undefined,
      };
      l.configs.set(key, c);
    }
    return c;
  }

  /** The key set of a JWT listener; errors (e.g. an http URL) surface as a 401 reason. */
  #jwksFor(l: CachedListener, allowInsecure: boolean): KeyResolver {
    const url = l.jwksUrl ?? '';
    if (url === DEMO_JWKS_PATH) return (this.#demoResolver ??= localJwks(this.demoJwks()));
    try {
      return remoteJwks(url, { allowInsecure });
    } catch (err) {
      const e = err instanceof JwksError ? err : new JwksError(String(err));
      return () => Promise.reject(e);
    }
  }

  demoJwks(): { keys: unknown[] } {
    if (!this.#demoJwks) {
      const rows = this.#store.db.prepare('SELECT public_jwk FROM webhook_demo_keys ORDER BY kid').all() as { public_jwk: string }[];
      this.#demoJwks = { keys: rows.map((r) => JSON.parse(r.public_jwk) as unknown) };
    }
    return this.#demoJwks;
  }

  /** Deletes up to one batch of event records older than the retention window (see EventIndex.pruneBatch). */
  pruneBatch(now: number): PruneResult {
    return this.#events.pruneBatch(now - EVENT_RETENTION_MS, PRUNE_BATCH);
  }

  /** The in-memory key set of the duplicate check. */
  eventKeys(): EventKeySet {
    return this.#events.keys();
  }
}

/**
 * Step 4, the idempotency record. Accepted events are appended to a log in the
 * database (`webhook_event_log`, ordered by an ever-increasing ID), which is
 * what makes them durable. The duplicate check looks (listener, event) up in
 * an in-memory key set (EventKeySet: a hash table in typed arrays, outside
 * the JavaScript heap), built from the log when the server starts.
 *
 * Why not a unique key on disk: event IDs are random, so every new event lands
 * in a random leaf of an on-disk key and wrote a 4 KiB page of its own to the
 * write-ahead log. Log appends share pages, and the in-memory set costs no
 * disk write at all (README "Performance" has the measurements, including the
 * in-memory SQLite table this set replaced).
 *
 * The guarantee is kept, also for several processes serving one data
 * directory: every check-and-record runs in an IMMEDIATE transaction (it holds
 * the database's write lock from its start), which first adds to the set the
 * log entries other connections committed since this one last looked, then
 * claims the key and appends to the log. Writes are serialized by that lock,
 * so each claim sees every event accepted before it, and a duplicate cannot
 * pass twice. A transaction that fails undoes its claims in the set, as the
 * database rolls back its log entries.
 */
class EventIndex {
  readonly #db: Store['db'];
  readonly #keys = new EventKeySet();
  readonly #append: Statement;
  readonly #maxLogged: Statement;
  readonly #logSince: Statement;
  readonly #pruneLog: Statement;
  readonly #prune: (cutoff: number, limit: number) => number;
  /** The highest log ID whose key is in the set. */
  #indexed = 0;
  /** The highest log ID the open transaction appended (0: none yet). */
  #pending = 0;
  /** The open transaction's claims, to undo should it fail: a taken-over key's previous time, or undefined for a new key. */
  readonly #claims: { listener: number; event: Buffer; previous: number | undefined }[] = [];

  constructor(db: Store['db']) {
    this.#db = db;
    this.#append = db.prepare('INSERT INTO main.webhook_event_log (listener, event, received_at) VALUES (?, ?, ?)');
    this.#maxLogged = db.prepare('SELECT IFNULL(MAX(id), 0) FROM main.webhook_event_log').pluck();
    this.#logSince = db.prepare('SELECT listener, event, received_at FROM main.webhook_event_log WHERE id > ?').raw();
    // The log is pruned from its oldest end (entries are appended in time order),
    // so it needs no index on time: another index written on every event. The
    // newest entry is always kept: SQLite numbers a new row one past the largest
    // ID in the table, so keeping it keeps IDs increasing (which the catch-up
    // relies on) without AUTOINCREMENT's extra write per event.
    this.#pruneLog = db.prepare(
      `DELETE FROM main.webhook_event_log WHERE id IN (SELECT id FROM main.webhook_event_log ORDER BY id LIMIT ?)
         AND received_at <= ? AND id < (SELECT MAX(id) FROM main.webhook_event_log)`,
    );
    this.#prune = db.transaction((cutoff: number, limit: number): number => this.#pruneLog.run(limit, cutoff).changes).immediate;
    // Build the set from the whole log (pruning drops what is past retention).
    this.transaction(() => undefined)();
  }

  /**
   * Wraps `fn` in an IMMEDIATE transaction that first brings the key set up to
   * date with the log; `claim` may only be called inside such a transaction.
   */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    const tx = this.#db.transaction((...args: A): R => {
      this.#catchUp();
      return fn(...args);
    }).immediate;
    return (...args: A): R => {
      this.#pending = 0;
      this.#claims.length = 0;
      let result: R;
      try {
        result = tx(...args);
      } catch (err) {
        // The database rolled back the log entries: take their keys back too, newest first.
        for (let i = this.#claims.length - 1; i >= 0; i--) {
          const c = this.#claims[i]!;
          if (c.previous === undefined) this.#keys.delete(c.listener, c.event);
          else this.#keys.set(c.listener, c.event, c.previous);
        }
        this.#claims.length = 0;
        throw err;
      }
      this.#claims.length = 0;
      if (this.#pending > this.#indexed) this.#indexed = this.#pending;
      return result;
    };
  }

  /**
   * Adds the keys of log entries committed since the set last looked (by
   * another connection, or all of them at start-up). They are committed, so
   * they stay even if the transaction that reads them fails.
   */
  #catchUp(): void {
    const max = this.#maxLogged.get() as number;
    if (max <= this.#indexed) return;
    for (const row of this.#logSince.iterate(this.#indexed) as Iterable<[number, Buffer, number]>) this.#keys.merge(row[0], row[1], row[2]);
    this.#indexed = max;
  }

  /** Claims (listener, event) at `now`: true when it is new (recorded in the log), false for a duplicate. */
  claim(listener: number, event: Buffer, now: number): boolean {
    const outcome = this.#keys.claim(listener, event, now, now - EVENT_RETENTION_MS);
    if (!outcome.claimed) return false;
    this.#claims.push({ listener, event, previous: outcome.previous });
    this.#pending = Number(this.#append.run(listener, event, now).lastInsertRowid);
    return true;
  }

  /**
   * Deletes up to `limit` of the oldest log entries received at or before
   * `cutoff` (never the newest entry), and sweeps one slice of the key set for
   * keys as old. `more` is true when the log batch was full or the sweep has
   * not yet been round the whole set. A log entry older than a newer one (the
   * clock was set back) waits until the entries before it have expired: the
   * key it records can be taken over meanwhile, as any expired one.
   */
  pruneBatch(cutoff: number, limit: number): PruneResult {
    const logged = this.#prune(cutoff, limit);
    const swept = this.#keys.sweep(cutoff, SWEEP_SLOTS);
    return { logged, more: logged === limit || !swept.done };
  }

  /** The keys in the set (for tests). */
  keys(): EventKeySet {
    return this.#keys;
  }
}

/** One pruning batch: how many log entries it deleted, and whether another batch may find more. */
interface PruneResult {
  logged: number;
  more: boolean;
}

const states = new WeakMap<Store, WebhookState>();
function state(store: Store): WebhookState {
  let s = states.get(store);
  if (!s) states.set(store, (s = new WebhookState(store)));
  return s;
}

/** The in-memory keys of the duplicate check (listener number, event ID bytes, time received), for tests. */
export function webhookEventKeys(store: Store): Iterable<{ listener: number; event: Buffer; time: number }> {
  return state(store).eventKeys().entries();
}

/** Deletes every event record older than 7 days (the log keeps its newest entry); returns how many log entries. */
export function pruneWebhookEvents(store: Store, now: number): number {
  const st = state(store);
  let total = 0;
  for (let more = true; more; ) {
    const r = st.pruneBatch(now);
    total += r.logged;
    more = r.more;
  }
  return total;
}

function prunePeriodically(store: Store, now: () => number): () => void {
  let stopped = false;
  const run = () => {
    if (stopped || !store.db.open) return;
    let more: boolean;
    try {
      more = state(store).pruneBatch(now()).more;
    } catch {
      // A busy, full or failing database: a timer's exception would stop the
      // server. The records stay (a replay is still a 409); the next run retries.
      return;
    }
    // One batch per tick, so a large backlog never blocks the event loop for long.
    if (more) setImmediate(run);
  };
  run();
  const timer = setInterval(run, PRUNE_INTERVAL_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** The small JSON body of every incoming-webhook answer. */
type Answer = Pick<VerifyResult, 'reason' | 'eventId' | 'automationRan' | 'runId'> & { status: number };
function answer(r: Answer, headers?: Record<string, string>): JsonResult {
  const body: Record<string, unknown> = { status: r.status, reason: r.reason, eventId: r.eventId };
  if (r.automationRan !== undefined) body.automationRan = r.automationRan;
  if (r.runId) body.runId = r.runId;
  return { status: r.status, body, headers };
}

function rawEventId(ctx: RequestContext): string | null {
  const v = headerValue(ctx.req.headers, 'webhook-event-id');
  return v !== undefined && isUuidV4(v) ? v : null;
}

/**
 * POST {baseUrl}/api/v1/webhooks/incoming/{listener_id}: step 1 before a byte
 * of the body is read, the body read with the 64 KiB limit, steps 2 and 3,
 * then steps 4 and 5 in the next group commit. Callbacks rather than a chain
 * of awaits: this is the server's hot path, and the whole request costs one promise.
 */
function incoming(ctx: RequestContext): JsonResult | Promise<JsonResult> {
  const st = state(ctx.store);
  const id = ctx.params.listener_id!;
  const l = st.listener(id);
  if (!l) return answer({ status: 404, reason: `no webhook listener ${id}`, eventId: rawEventId(ctx) });
  const listener = st.config(l, ctx.baseUrl, ctx.server.allowInsecureJwks);
  const sourceIp = ctx.remoteAddress;
  const headers = ctx.req.headers;
  const trustProxy = ctx.server.trustProxy;
  const denied = checkSource({ sourceIp, headers, listener, trustProxy });
  if (denied) return answer(denied, { Connection: 'close' });
  return new Promise((resolve, reject) => {
    ctx.readRaw((err, body) => {
      if (err) {
        if (err instanceof ApiError && err.status === 413) {
          resolve(answer(bodyTooLarge(rawEventId(ctx))));
        } else {
          reject(err);
        }
        return;
      }
      const now = ctx.clock.now();
      // A literal rather than a spread of step 1's input: a spread copy gets a
      // new object shape each time, which defeats V8's inline caches in the pipeline.
      const input: VerifyInput = { sourceIp, headers, listener, trustProxy, body: body!, now };
      const proceed = (checked: VerifyResult | PassedChecks): void => {
        if (!('passed' in checked)) {
          resolve(answer(checked));
          return;
        }
        const { eventId } = checked;
        st.accept(l, eventId.toLowerCase(), body!, now, (failed, outcome) => (failed ? reject(failed) : resolve(answer(acceptedResult(eventId, outcome!)))));
      };
      try {
        const checked = checkWebhook(input);
        if (checked instanceof Promise) checked.then(proceed, reject);
        else proceed(checked);
      } catch (e) {
        reject(e);
      }
    });
  });
}

interface CreateListenerInput {
  authMethod: AuthMethod;
  jwksUrl?: string | null;
  allowedCidrs?: string[] | null;
  published: boolean;
  triggerEnabled: boolean;
}

/** Inserts an automation and its listener; returns the row and, for HMAC, the new secret. */
function insertListener(store: Store, now: number, input: CreateListenerInput, name: string): { row: ListenerRow; automation: AutomationRow; secret?: string } {
  const automation: AutomationRow = { id: ksuid(now), published: input.published ? 1 : 0, trigger_enabled: input.triggerEnabled ? 1 : 0 };
  store.db
    .prepare('INSERT INTO webhook_automations (id, name, published, trigger_enabled, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(automation.id, name, automation.published, automation.trigger_enabled, now);
  const id = ksuid(now);
  const secret = input.authMethod === 'HMAC' ? newHmacSecret() : undefined;
  const { num } = store.db.prepare('SELECT IFNULL(MAX(num), 0) + 1 AS num FROM webhook_listeners').get() as { num: number };
  if (num > MAX_LISTENER_NUM) throw ApiError.of(Code.FailedPrecondition, `the embedded server holds at most ${MAX_LISTENER_NUM} webhook listeners`);
  const row: ListenerRow = {
    id,
    num,
    automation_id: automation.id,
    auth_method: input.authMethod,
    secret_sealed: secret ? store.seal(secret, ...place(id)) : null,
    jwks_url: input.authMethod === 'JWT' ? (input.jwksUrl ?? null) : null,
    allowed_cidrs: input.allowedCidrs && input.allowedCidrs.length ? JSON.stringify(input.allowedCidrs) : null,
    created_at: now,
  };
  store.db
    .prepare('INSERT INTO webhook_listeners (id, num, automation_id, auth_method, secret_sealed, jwks_url, allowed_cidrs, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(row.id, row.num, row.automation_id, row.auth_method, row.secret_sealed, row.jwks_url, row.allowed_cidrs, row.created_at);
  return { row, automation, secret };
}

function listenerView(base: string, row: ListenerRow, automation: AutomationRow, secret?: string) {
  return {
    id: row.id,
    url: base + listenerPath(row.id),
    authMethod: row.auth_method,
    ...(secret ? { secret } : {}),
    ...(row.jwks_url ? { jwksUrl: row.jwks_url.startsWith('/') ? base + row.jwks_url : row.jwks_url } : {}),
    ...(row.allowed_cidrs ? { allowedCidrs: JSON.parse(row.allowed_cidrs) as string[] } : {}),
    automation: { id: automation.id, published: automation.published === 1, triggerEnabled: automation.trigger_enabled === 1 },
  };
}

function parseCreate(body: unknown, allowInsecure: boolean): CreateListenerInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidArgument('request body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (b.authMethod !== 'HMAC' && b.authMethod !== 'JWT') throw invalidArgument('authMethod must be "HMAC" or "JWT"');
  const input: CreateListenerInput = { authMethod: b.authMethod, published: true, triggerEnabled: true };
  if (b.authMethod === 'JWT') {
    if (typeof b.jwksUrl !== 'string' || !b.jwksUrl) throw invalidArgument('jwksUrl is required for a JWT listener');
    const problem = jwksUrlProblem(b.jwksUrl, allowInsecure);
    if (problem) throw invalidArgument(problem);
    input.jwksUrl = b.jwksUrl;
  } else if (b.jwksUrl !== undefined && b.jwksUrl !== null) {
    throw invalidArgument('jwksUrl applies to JWT listeners only');
  }
  if (b.allowedCidrs !== undefined && b.allowedCidrs !== null) {
    const err = cidrListError(b.allowedCidrs);
    if (err) throw invalidArgument(err);
    if ((b.allowedCidrs as string[]).length > MAX_CIDRS) throw invalidArgument(`allowedCidrs holds at most ${MAX_CIDRS} ranges`);
    input.allowedCidrs = (b.allowedCidrs as string[]).map((c) => c.trim());
  }
  if (b.automation !== undefined && b.automation !== null) {
    const a = b.automation as Record<string, unknown>;
    if (typeof a !== 'object' || Array.isArray(a)) throw invalidArgument('automation must be an object {published, triggerEnabled}');
    for (const k of ['published', 'triggerEnabled'] as const) {
      if (a[k] !== undefined && typeof a[k] !== 'boolean') throw invalidArgument(`automation.${k} must be a boolean`);
      if (typeof a[k] === 'boolean') input[k] = a[k];
    }
  }
  return input;
}

async function createListener(ctx: RequestContext) {
  const input = parseCreate(await ctx.json(), ctx.server.allowInsecureJwks);
  const { row, automation, secret } = ctx.store.db.transaction(() => insertListener(ctx.store, ctx.clock.now(), input, 'Incoming webhook'))();
  return { body: { listener: listenerView(ctx.baseUrl, row, automation, secret) } };
}

function listRuns(ctx: RequestContext) {
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
    ? (db.prepare(`SELECT COUNT(*) FROM webhook_runs WHERE ${where}`).pluck().get(...args) as number)
    : state(ctx.store).lastRun(num) - lo;
  return {
    body: {
      runs: rows.map((r) => ({
        id: r.id,
        number: r.seq - lo,
        listenerId: r.listener_id,
        automationId: r.automation_id,
        eventId: r.event_id,
        context: { trigger: contextData(r.context) },
        createdAt: new Date(r.created_at).toISOString(),
      })),
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
function contextData(stored: Buffer | string): unknown {
  let text = typeof stored === 'string' ? stored : stored.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (nestsDeeper(text, MAX_CONTEXT_DEPTH)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The runs table's columns: `seq` is the listener number × RUNS_PER_LISTENER + the run number. */
const RUNS_COLUMNS = `(
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  listener_id TEXT NOT NULL,
  automation_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  context BLOB NOT NULL,
  created_at INTEGER NOT NULL
)`;

/**
 * The webhook tables. Accepted events are appended to `webhook_event_log`
 * (the listener's number, the event ID's 16 bytes, the time; see EventIndex).
 * Data directories from before are converted in place: listeners get their
 * number, and the event records of either earlier layout (a unique key on disk,
 * with text or compact columns) move to the log with their times, so a replay
 * is still answered 409 after the upgrade, and runs stored in insertion order
 * are numbered per listener in that order.
 */
function migrateWebhooks(db: Store['db']): void {
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
      num INTEGER,
      automation_id TEXT NOT NULL REFERENCES webhook_automations(id),
      auth_method TEXT NOT NULL CHECK (auth_method IN ('HMAC', 'JWT')),
      secret_sealed TEXT,
      jwks_url TEXT,
      allowed_cidrs TEXT,
      created_at INTEGER NOT NULL
    );
  `);
  const columnsOf = (table: string) => db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
  if (!columnsOf('webhook_listeners').includes('num')) {
    db.exec('ALTER TABLE webhook_listeners ADD COLUMN num INTEGER; UPDATE webhook_listeners SET num = rowid;');
  }
  db.exec(`
    CREATE UNIQUE INDEX IF NOT EXISTS webhook_listeners_num ON webhook_listeners (num);
    CREATE TABLE IF NOT EXISTS webhook_event_log (
      id INTEGER PRIMARY KEY,
      listener INTEGER NOT NULL,
      event BLOB NOT NULL,
      received_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS webhook_runs ${RUNS_COLUMNS};
    CREATE TABLE IF NOT EXISTS webhook_demo_keys (
      kid TEXT PRIMARY KEY,
      alg TEXT NOT NULL,
      private_sealed TEXT NOT NULL,
      public_jwk TEXT NOT NULL
    );
  `);
  const hasTable = (name: string) => db.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  if (!columnsOf('webhook_runs').includes('seq')) {
    // The earlier runs table: rows in insertion order, found by an index on the
    // listener ID. Numbered per listener in that order (listeners are never
    // deleted, so every run has its listener).
    db.exec(`
      CREATE TABLE webhook_runs_numbered ${RUNS_COLUMNS};
      INSERT INTO webhook_runs_numbered (seq, id, listener_id, automation_id, event_id, context, created_at)
        SELECT l.num * ${RUNS_PER_LISTENER} + row_number() OVER (PARTITION BY r.listener_id ORDER BY r.rowid),
               r.id, r.listener_id, r.automation_id, r.event_id, r.context, r.created_at
        FROM webhook_runs r JOIN webhook_listeners l ON l.id = r.listener_id;
      DROP TABLE webhook_runs;
      ALTER TABLE webhook_runs_numbered RENAME TO webhook_runs;
    `);
  }
  if (hasTable('webhook_events')) {
    // The first layout: a unique key of (listener ID text, event ID text). Event
    // IDs were stored checked and lower-cased, so each is 32 hex digits and 4 hyphens.
    db.exec(`
      INSERT INTO webhook_event_log (listener, event, received_at)
        SELECT l.num, unhex(replace(e.event_id, '-', '')), e.received_at
        FROM webhook_events e JOIN webhook_listeners l ON l.id = e.listener_id
        WHERE length(e.event_id) = 36 AND unhex(replace(e.event_id, '-', '')) IS NOT NULL
        ORDER BY e.received_at;
      DROP TABLE webhook_events;
    `);
  }
  if (hasTable('webhook_event_keys')) {
    // The second layout: a unique key of (listener number, event ID bytes) on disk.
    db.exec(`
      INSERT INTO webhook_event_log (listener, event, received_at)
        SELECT listener, event, received_at FROM main.webhook_event_keys ORDER BY received_at;
      DROP TABLE main.webhook_event_keys;
    `);
  }
}

export const webhooksModule: ServerModule = {
  name: 'webhooks',
  migrate(store) {
    store.db.transaction(() => migrateWebhooks(store.db))();
  },
  seed({ store, clock }) {
    const now = clock.now();
    const key = generateListenerKey('ES256');
    store.db
      .prepare('INSERT INTO webhook_demo_keys (kid, alg, private_sealed, public_jwk) VALUES (?, ?, ?, ?)')
      .run(key.kid, key.alg, store.seal(JSON.stringify(key.privateJwk), 'webhook_demo_keys', key.kid, 'private_jwk'), JSON.stringify(key.publicJwks.keys[0]));
    const on = { published: true, triggerEnabled: true };
    const hmac = insertListener(store, now, { authMethod: 'HMAC', ...on }, 'Demo: HMAC webhook');
    const jwt = insertListener(store, now, { authMethod: 'JWT', jwksUrl: DEMO_JWKS_PATH, ...on }, 'Demo: JWT webhook');
    const restricted = insertListener(store, now, { authMethod: 'HMAC', allowedCidrs: DEMO_RESTRICTED_CIDRS, ...on }, 'Demo: IP-restricted webhook');
    // Paths are relative to the server's base URL (known only once it listens).
    // Secrets are not part of the saved fragment; `reveal` adds them on every start.
    return {
      webhooks: {
        hmac: { listenerId: hmac.row.id, path: listenerPath(hmac.row.id) },
        jwt: { listenerId: jwt.row.id, path: listenerPath(jwt.row.id), jwksPath: DEMO_JWKS_PATH, kid: key.kid, alg: key.alg },
        restricted: { listenerId: restricted.row.id, path: listenerPath(restricted.row.id), allowedCidrs: DEMO_RESTRICTED_CIDRS },
      },
    };
  },
  reveal(part, { store }) {
    const w = part.webhooks as { hmac?: { listenerId?: string }; jwt?: { kid?: string } } | undefined;
    const hmacId = w?.hmac?.listenerId;
    const kid = w?.jwt?.kid;
    if (!w || !hmacId || !kid) return part;
    const l = store.db.prepare('SELECT secret_sealed FROM webhook_listeners WHERE id = ?').get(hmacId) as { secret_sealed: string } | undefined;
    const k = store.db.prepare('SELECT private_sealed FROM webhook_demo_keys WHERE kid = ?').get(kid) as { private_sealed: string } | undefined;
    return {
      ...part,
      webhooks: {
        ...w,
        hmac: { ...w.hmac, ...(l ? { secret: store.open(l.secret_sealed, ...place(hmacId)) } : {}) },
        jwt: { ...w.jwt, ...(k ? { privateJwk: JSON.parse(store.open(k.private_sealed, 'webhook_demo_keys', kid, 'private_jwk')) as unknown } : {}) },
      },
    };
  },
  routes(router) {
    router.post(`${INCOMING_PREFIX}:listener_id`, incoming, { auth: false, maxBody: MAX_BODY_BYTES });
    router.get(DEMO_JWKS_PATH, (ctx) => ({ body: state(ctx.store).demoJwks() }), { auth: false });
    router.post('/_embedded/v1/webhook_listeners', createListener, { maxBody: 64 * 1024 });
    router.get('/_embedded/v1/webhook_listeners/:id/runs', listRuns);
  },
  start({ store, clock }) {
    const stopPruning = prunePeriodically(store, () => clock.now());
    // Webhook ingest is the write-heavy path of the server: keep WAL checkpoints off the event loop.
    const stopCheckpoints = startCheckpointer(store.db);
    return async () => {
      stopPruning();
      await stopCheckpoints();
    };
  },
};
