// Webhook listeners: creating one (with its automation) over the embedded-only
// route POST /_embedded/v1/webhook_listeners, and how a listener is shown.
import { invalidArgument, ApiError, Code } from '../../api/errors.js';
import { ksuid } from '../../lib/ids.js';
import { cidrListError } from '../../webhook/cidr.js';
import { jwksUrlProblem } from '../../webhook/jwks.js';
import { newHmacSecret } from '../../webhook/sign.js';
import type { AuthMethod } from '../../webhook/verify.js';
import type { RequestContext } from '../router.js';
import type { Store } from '../store/db.js';
import { MAX_LISTENER_NUM, listenerPath, secretPlace, type AutomationRow, type ListenerRow } from './schema.js';

const MAX_CIDRS = 100;

interface CreateListenerInput {
  authMethod: AuthMethod;
  jwksUrl?: string | null;
  allowedCidrs?: string[] | null;
  published: boolean;
  triggerEnabled: boolean;
}

/** Inserts an automation and its listener; returns the row and, for HMAC, the new secret. */
export function insertListener(store: Store, now: number, input: CreateListenerInput, name: string): { row: ListenerRow; automation: AutomationRow; secret?: string } {
  const automation: AutomationRow = { id: ksuid(now), published: input.published ? 1 : 0, trigger_enabled: input.triggerEnabled ? 1 : 0 };
  store.db
    .prepare('INSERT INTO webhook_automations (id, name, published, trigger_enabled, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(automation.id, name, automation.published, automation.trigger_enabled, now);
  const id = ksuid(now);
  const secret = input.authMethod === 'HMAC' ? newHmacSecret() : undefined;
  const num = store.db.prepare('SELECT IFNULL(MAX(num), 0) + 1 FROM webhook_listeners').pluck().get() as number;
  if (num > MAX_LISTENER_NUM) throw ApiError.of(Code.FailedPrecondition, `the embedded server holds at most ${MAX_LISTENER_NUM} webhook listeners`);
  const row: ListenerRow = {
    id,
    num,
    automation_id: automation.id,
    auth_method: input.authMethod,
    secret_sealed: secret ? store.seal(secret, ...secretPlace(id)) : null,
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

/** POST /_embedded/v1/webhook_listeners */
export async function createListener(ctx: RequestContext) {
  const input = parseCreate(await ctx.json(), ctx.server.allowInsecureJwks);
  const { row, automation, secret } = ctx.store.write(() => insertListener(ctx.store, ctx.clock.now(), input, 'Incoming webhook'));
  return { body: { listener: listenerView(ctx.baseUrl, row, automation, secret) } };
}
