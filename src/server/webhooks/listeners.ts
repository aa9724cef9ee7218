// Webhook listeners over the embedded-only routes (not part of the service API):
// creating one (with its automation) with POST /_embedded/v1/webhook_listeners,
// listing them with GET on the same path, and how a listener is shown.
import { invalidArgument, ApiError, Code } from '../../api/errors.js';
import { ksuid } from '../../lib/ids.js';
import { cidrListError } from '../../webhook/cidr.js';
import { jwksUrlProblem } from '../../webhook/jwks.js';
import { newHmacSecret } from '../../webhook/sign.js';
import type { AuthMethod } from '../../webhook/verify.js';
import {
  CREATE_LISTENER_REQUEST,
  LISTENER,
  type CreateListenerResponse,
  type ListListenersResponse,
  type WebhookListener,
} from '../../api/webhook-listeners.js';
import { parseRequest, viewOf } from '../../api/shape.js';
import type { RequestContext } from '../router.js';
import type { Store } from '../store/db.js';
import {
  MAX_LISTENER_NUM,
  RUNS_PER_LISTENER,
  lastRunKey,
  listenerPath,
  secretPlace,
  type AutomationRow,
  type ListenerRow,
  ALLOWED_CIDRS,
} from './schema.js';
import { decodePageToken, pageOf, parsePageSize } from '../paging.js';

const MAX_CIDRS = 100;
const MAX_NAME_CHARS = 200;
/** A secret given on creation: printable ASCII without spaces, long enough to be one (the service generates 43 base64url characters). */
const GIVEN_SECRET = /^[\x21-\x7e]{32,512}$/;
const LIST_PAGE_SIZE_DEFAULT = 100;
const LIST_PAGE_SIZE_MAX = 1000;

interface CreateListenerInput {
  authMethod: AuthMethod;
  jwksUrl?: string | null;
  allowedCidrs?: string[] | null;
  published: boolean;
  triggerEnabled: boolean;
  /** An HMAC secret chosen by the caller; generated when absent. */
  secret?: string;
}

/** Inserts an automation and its listener; returns the row and, for HMAC, the secret it generated (none when one was given). */
export function insertListener(
  store: Store,
  now: number,
  input: CreateListenerInput,
  name: string,
): { row: ListenerRow; automation: AutomationRow & { name: string }; secret?: string } {
  const automation: AutomationRow = { id: ksuid(now), published: input.published ? 1 : 0, trigger_enabled: input.triggerEnabled ? 1 : 0 };
  store.db
    .prepare('INSERT INTO webhook_automations (id, name, published, trigger_enabled, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(automation.id, name, automation.published, automation.trigger_enabled, now);
  const id = ksuid(now);
  const generated = input.authMethod === 'HMAC' && input.secret === undefined ? newHmacSecret() : undefined;
  const secret = input.authMethod === 'HMAC' ? (input.secret ?? generated) : undefined;
  const num = store.db.prepare('SELECT IFNULL(MAX(num), 0) + 1 FROM webhook_listeners').pluck().get() as number;
  if (num > MAX_LISTENER_NUM)
    throw ApiError.of(Code.FailedPrecondition, `the embedded server holds at most ${MAX_LISTENER_NUM} webhook listeners`);
  const row: ListenerRow = {
    id,
    num,
    automation_id: automation.id,
    auth_method: input.authMethod,
    secret_sealed: secret ? store.seal(secret, ...secretPlace(id)) : null,
    jwks_url: input.authMethod === 'JWT' ? (input.jwksUrl ?? null) : null,
    allowed_cidrs: ALLOWED_CIDRS.text(input.allowedCidrs?.length ? input.allowedCidrs : null),
    created_at: now,
  };
  store.db
    .prepare(
      'INSERT INTO webhook_listeners (id, num, automation_id, auth_method, secret_sealed, jwks_url, allowed_cidrs, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    .run(row.id, row.num, row.automation_id, row.auth_method, row.secret_sealed, row.jwks_url, row.allowed_cidrs, row.created_at);
  return { row, automation: { ...automation, name }, secret: generated };
}

/**
 * A listener as the embedded routes show it (LISTENER). The secret appears
 * only in the answer that created it, and only when the server generated it.
 */
function listenerView(
  base: string,
  row: ListenerRow,
  automation: AutomationRow & { name: string },
  extra: { secret?: string; runCount?: number } = {},
): WebhookListener {
  return viewOf(LISTENER, {
    id: row.id,
    url: base + listenerPath(row.id),
    authMethod: row.auth_method,
    secret: extra.secret || undefined,
    jwksUrl: row.jwks_url ? (row.jwks_url.startsWith('/') ? base + row.jwks_url : row.jwks_url) : undefined,
    allowedCidrs: ALLOWED_CIDRS.value(row.allowed_cidrs) ?? undefined,
    automation: {
      id: automation.id,
      name: automation.name,
      published: automation.published === 1,
      triggerEnabled: automation.trigger_enabled === 1,
    },
    runCount: extra.runCount,
    createdAt: new Date(row.created_at).toISOString(),
  });
}

/** Reads a creation request: the types from CREATE_LISTENER_REQUEST, then what they cannot say. */
function parseCreate(body: unknown, allowInsecure: boolean): CreateListenerInput & { name?: string } {
  const b = parseRequest(CREATE_LISTENER_REQUEST, body, invalidArgument);
  const authMethod = b.authMethod!;
  const input: CreateListenerInput & { name?: string } = { authMethod, published: true, triggerEnabled: true };
  if (b.name !== undefined && b.name !== null) {
    if (!b.name.trim()) throw invalidArgument('name must be a non-empty string');
    if (b.name.length > MAX_NAME_CHARS || /[\u0000-\u001f\u007f]/.test(b.name))
      throw invalidArgument(`name must be at most ${MAX_NAME_CHARS} characters, without control characters`);
    input.name = b.name.trim();
  }
  if (b.secret !== undefined && b.secret !== null) {
    if (authMethod !== 'HMAC') throw invalidArgument('secret applies to HMAC listeners only');
    // The value is never quoted back: it is a secret.
    if (!GIVEN_SECRET.test(b.secret)) throw invalidArgument('secret must be 32 to 512 printable ASCII characters without spaces');
    input.secret = b.secret;
  }
  if (authMethod === 'JWT') {
    if (!b.jwksUrl) throw invalidArgument('jwksUrl is required for a JWT listener');
    const problem = jwksUrlProblem(b.jwksUrl, allowInsecure);
    if (problem) throw invalidArgument(problem);
    input.jwksUrl = b.jwksUrl;
  } else if (b.jwksUrl !== undefined && b.jwksUrl !== null) {
    throw invalidArgument('jwksUrl applies to JWT listeners only');
  }
  if (b.allowedCidrs !== undefined && b.allowedCidrs !== null) {
    const err = cidrListError(b.allowedCidrs);
    if (err) throw invalidArgument(err);
    if (b.allowedCidrs.length > MAX_CIDRS) throw invalidArgument(`allowedCidrs holds at most ${MAX_CIDRS} ranges`);
    input.allowedCidrs = b.allowedCidrs.map((c) => c.trim());
  }
  for (const k of ['published', 'triggerEnabled'] as const) {
    const v = b.automation?.[k];
    if (typeof v === 'boolean') input[k] = v;
  }
  return input;
}

/** POST /_embedded/v1/webhook_listeners */
export async function createListener(ctx: RequestContext): Promise<{ body: CreateListenerResponse }> {
  const input = parseCreate(await ctx.json(), ctx.server.allowInsecureJwks);
  const { row, automation, secret } = ctx.store.write(() =>
    insertListener(ctx.store, ctx.clock.now(), input, input.name ?? 'Incoming webhook'),
  );
  return { body: { listener: listenerView(ctx.baseUrl, row, automation, { secret, runCount: 0 }) } };
}

/** GET /_embedded/v1/webhook_listeners?page_size=&page_token=: every listener in creation order, with its run count. */
export function listListeners(ctx: RequestContext): { body: ListListenersResponse } {
  const size = parsePageSize(ctx.query.get('page_size'), LIST_PAGE_SIZE_DEFAULT, LIST_PAGE_SIZE_MAX);
  const token = ctx.query.get('page_token');
  // The page token names the number of the last listener of the previous page.
  const after = token ? decodePageToken(token, isListenerNum, 'page_token') : 0;
  const rows = ctx.store.db
    .prepare(
      `SELECT l.*, a.name AS a_name, a.published AS a_published, a.trigger_enabled AS a_trigger_enabled
       FROM webhook_listeners l JOIN webhook_automations a ON a.id = l.automation_id
       WHERE l.num > ? ORDER BY l.num LIMIT ?`,
    )
    .all(after, size + 1) as (ListenerRow & { a_name: string; a_published: number; a_trigger_enabled: number })[];
  const { page, nextPageToken } = pageOf(rows, size, (r) => r.num);
  const list = page.map((r) => {
    const automation = { id: r.automation_id, name: r.a_name, published: r.a_published, trigger_enabled: r.a_trigger_enabled };
    return listenerView(ctx.baseUrl, r, automation, { runCount: lastRunKey(ctx.store.db, r.num) - r.num * RUNS_PER_LISTENER });
  });
  return { body: { list, nextPageToken } };
}

const isListenerNum = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
