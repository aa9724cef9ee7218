// POST {baseUrl}/api/v1/webhooks/incoming/{listener_id} (service-api.md §3,
// §4.5, §5.2, §6): the shared verification pipeline (src/webhook/verify.ts)
// for steps 1 to 3, then steps 4 and 5 in a group commit. The duplicate check
// is the unique key of `webhook_events` (listener number, event ID): an event
// is new when its row could be inserted, or taken over once older than 7 days.
import { randomUUID } from 'node:crypto';
import type { Statement } from '../store/sqlite.js';
import { ApiError } from '../../api/errors.js';
import { isUuidV4, uuidBytes } from '../../lib/ids.js';
import { AllowList } from '../../webhook/cidr.js';
import { JwksError, localJwks, remoteJwks, type KeyResolver } from '../../webhook/jwks.js';
import {
  EVENT_RETENTION_MS,
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
import type { JsonResult, RequestContext } from '../router.js';
import type { Store } from '../store/db.js';
import { DEMO_JWKS_PATH, demoJwks } from './demo.js';
import { ALLOWED_CIDRS, RUNS_PER_LISTENER, lastRunKey, listenerPath, secretPlace, type ListenerRow } from './schema.js';

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
 * Per-store state: the opened listeners and the group commit of accepted events.
 *
 * Group commit: events that pass steps 1 to 3 in the same turn of the event
 * loop are recorded in one transaction (each by its own check-and-record
 * statement, in arrival order), and every answer is sent only after that
 * transaction has committed. A commit is the expensive part of a write;
 * sharing it keeps ingest fast under load without weakening durability.
 */
class Ingest {
  readonly #store: Store;
  readonly #listeners = new Map<string, CachedListener>();
  #demoResolver?: KeyResolver;
  readonly #getListener: Statement;
  readonly #claim: Statement;
  readonly #insRun: Statement;
  /** The next run key of each listener written to in the open transaction (filled on first use). */
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
    // Step 4: one row changes for a new event (inserted) or an expired one (taken over), none for a duplicate.
    this.#claim = db.prepare(
      `INSERT INTO webhook_events (listener, event, received_at) VALUES (?, ?, ?)
       ON CONFLICT (listener, event) DO UPDATE SET received_at = excluded.received_at WHERE received_at <= ?`,
    );
    this.#insRun = db.prepare(
      'INSERT INTO webhook_runs (seq, id, listener_id, automation_id, event_id, context, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const record = (p: PendingEvent): AcceptOutcome => {
      const { listener: l, eventKey, now } = p;
      if (this.#claim.run(l.num, uuidBytes(eventKey), now, now - EVENT_RETENTION_MS).changes === 0) return { duplicate: true };
      // Step 5: the run is recorded only when the automation is published and its trigger enabled.
      if (l.notRunReason) return { duplicate: false, ran: false, notRunReason: l.notRunReason };
      const runId = randomUUID();
      this.#insRun.run(this.#nextRun(l.num), runId, l.id, l.automationId, eventKey, p.body, now);
      return { duplicate: false, ran: true, runId };
    };
    // IMMEDIATE, as every write (Store.write): run numbers are read afresh in
    // each transaction, as another server on the same data directory may have added runs.
    this.#commit = db.transaction((batch: PendingEvent[]) => {
      this.#nextRuns.clear();
      return batch.map(record);
    }).immediate;
  }

  /** The key of a listener's next run (inside the write transaction, which keeps other writers out). */
  #nextRun(num: number): number {
    const next = this.#nextRuns.get(num) ?? lastRunKey(this.#store.db, num) + 1;
    if (next >= (num + 1) * RUNS_PER_LISTENER) throw new Error(`webhook listener number ${num} has used up its run numbers`);
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
    const cidrs = ALLOWED_CIDRS.value(row.allowed_cidrs);
    const l: CachedListener = {
      id: row.id,
      num: row.num,
      automationId: row.automation_id,
      authMethod: row.auth_method,
      secret: row.secret_sealed ? this.#store.open(row.secret_sealed, ...secretPlace(row.id)) : undefined,
      jwksUrl: row.jwks_url,
      allowList: cidrs && new AllowList(cidrs, { skipInvalid: true }),
      notRunReason:
        row.published === null
          ? 'the automation no longer exists'
          : !row.published
            ? 'the automation is not published'
            : !row.trigger_enabled
              ? 'the automation trigger is disabled'
              : undefined,
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
    if (url === DEMO_JWKS_PATH) return (this.#demoResolver ??= localJwks(demoJwks(this.#store)));
    try {
      return remoteJwks(url, { allowInsecure });
    } catch (err) {
      const e = err instanceof JwksError ? err : new JwksError(String(err));
      return () => Promise.reject(e);
    }
  }
}

const states = new WeakMap<Store, Ingest>();
function ingest(store: Store): Ingest {
  let s = states.get(store);
  if (!s) states.set(store, (s = new Ingest(store)));
  return s;
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
 * The incoming route: step 1 before a byte of the body is read, the body read
 * with the 64 KiB limit, steps 2 and 3, then steps 4 and 5 in the next group
 * commit. Callbacks rather than a chain of awaits: this is the server's hot
 * path, and the whole request costs one promise.
 */
export function incoming(ctx: RequestContext): JsonResult | Promise<JsonResult> {
  const st = ingest(ctx.store);
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
        st.accept(l, eventId.toLowerCase(), body!, now, (failed, outcome) =>
          failed ? reject(failed) : resolve(answer(acceptedResult(eventId, outcome!))),
        );
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

const PRUNE_INTERVAL_MS = 3600_000;
const PRUNE_BATCH = 5000;

/** A function deleting up to one batch of event records older than 7 days and returning how many it deleted (its statement prepared once). */
function pruner(store: Store): (now: number) => number {
  const st = store.db.prepare(
    'DELETE FROM webhook_events WHERE (listener, event) IN (SELECT listener, event FROM webhook_events WHERE received_at <= ? LIMIT ?)',
  );
  return (now) => st.run(now - EVENT_RETENTION_MS, PRUNE_BATCH).changes;
}

/** Deletes every event record older than 7 days; returns how many. */
export function pruneWebhookEvents(store: Store, now: number): number {
  const pruneBatch = pruner(store);
  let total = 0;
  for (let n = PRUNE_BATCH; n === PRUNE_BATCH; total += n) n = pruneBatch(now);
  return total;
}

/** Prunes event records every hour, one batch per turn of the event loop; returns the stop function. */
export function prunePeriodically(store: Store, now: () => number): () => void {
  let stopped = false;
  const pruneBatch = pruner(store);
  const run = () => {
    if (stopped || !store.db.open) return;
    try {
      // A full batch: there may be more, after the requests waiting meanwhile.
      if (pruneBatch(now()) === PRUNE_BATCH) setImmediate(run);
    } catch {
      // A busy, full or failing database: a timer's exception would stop the
      // server. The records stay (a replay is still a 409); the next run retries.
    }
  };
  run();
  const timer = setInterval(run, PRUNE_INTERVAL_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
