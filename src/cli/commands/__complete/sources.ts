// Where dynamic completion values come from: the profile store, and the
// service's list routes asked with the profile's cached token only (no token
// request, no stored secret unsealed, no prompt), and only when the base URL
// is the one the profile was logged in to (a token never goes elsewhere).
import type { DynamicSource } from '../../declare.js';
import { ConfigContext, profileTenant, resolveSettings, sameTenant } from '../../../config/resolve.js';
import { ApiClient } from '../../../client/api.js';
import { StaticToken, isFresh, sentInClear, tokenUrlFor } from '../../../client/auth.js';
import { HttpClient } from '../../../client/http.js';
import { proxyFor } from '../../../lib/proxy.js';
import { listAllRules } from '../../../client/rules.js';
import { listListeners } from '../../../client/webhook-listeners.js';
import { sleep, type Clock } from '../../../lib/clock.js';
import { userAgent } from '../../../version.js';
import type { Line } from './words.js';

export interface Candidate {
  value: string;
  description?: string;
}

/**
 * The time a completion has, in ms from the run's start (the process's start
 * for the agctl process): then its requests are aborted and nothing is offered.
 */
export const BUDGET_MS = 300;

/**
 * What the budget is measured with: a monotonic time in ms and a wait. The
 * real one is performance.now() and a timer; tests pass one they move by hand,
 * so that no test depends on how busy the machine is.
 */
interface Stopwatch {
  now(): number;
  /** Waits `ms`, or less when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realStopwatch: Stopwatch = { now: () => performance.now(), sleep };

export interface SourceContext {
  env: NodeJS.ProcessEnv;
  /** The time of day (a cached token's expiry). */
  clock: Clock;
  stopwatch: Stopwatch;
  /** When the requests are aborted, in the stopwatch's ms. */
  deadline: number;
  /** Called with what to close when the completion ends (its requests in flight are aborted). */
  onClose(fn: () => Promise<void>): void;
}

type Source = (line: Line, ctx: SourceContext) => Promise<Candidate[]>;

/** At most this many pages of a list route are read. */
const MAX_PAGES = 5;
const PAGE_SIZE = 100;

/** The value of a flag given on the line (by its long name), if any. */
function flagValue(line: Line, name: string): string | undefined {
  const v = line.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

function settingsOf(line: Line, env: NodeJS.ProcessEnv, config: ConfigContext) {
  return resolveSettings(
    { profile: flagValue(line, '--profile'), baseUrl: flagValue(line, '--base-url'), clientId: flagValue(line, '--client-id') },
    env,
    config,
  );
}

/**
 * An API client sending the profile's cached access token, or undefined when
 * there is none to use: no valid cached token, `--embedded` (which would start
 * a server), a base URL that is not the one the profile was logged in to, or
 * one the token would cross in clear (plain http to another machine: a
 * completion cannot print the warning every other use shows).
 */
async function cachedTokenApi(line: Line, ctx: SourceContext): Promise<ApiClient | undefined> {
  if (line.flags.has('--embedded')) return undefined;
  const config = new ConfigContext(ctx.env);
  const s = settingsOf(line, ctx.env, config);
  if (!s.baseUrl || !s.clientId) return undefined;
  const own = profileTenant(config.profiles.get(s.profile));
  if (!own || !sameTenant(own, s.baseUrl) || sentInClear(s.baseUrl)) return undefined;
  await config.vault.unlock(s.profile);
  const token = config.vault.loadToken(s.profile, tokenUrlFor(s.baseUrl), s.clientId);
  if (!token || !isFresh(token, ctx.clock.now())) return undefined;
  // The request's own timeout only backs the budget up: at the deadline, within() gives up and onClose aborts the request.
  const http = new HttpClient({
    timeoutMs: Math.max(1, Math.ceil(ctx.deadline - ctx.stopwatch.now())),
    maxRetries: 0,
    userAgent: userAgent(),
    proxy: (u) => proxyFor(u, ctx.env),
  });
  ctx.onClose(() => http.destroy());
  return new ApiClient(s.baseUrl, http, new StaticToken(token.accessToken));
}

/** A source that needs the API: nothing without a cached token, or without the scoping argument. */
const withApi =
  (scoped: boolean, list: (api: ApiClient, scope: string) => Promise<Candidate[]>): Source =>
  async (line, ctx) => {
    const scope = line.args[0];
    if (scoped && !scope) return [];
    const api = await cachedTokenApi(line, ctx);
    const left = ctx.deadline - ctx.stopwatch.now();
    return api && left > 0 ? within(ctx.stopwatch, left, list(api, scope ?? ''), []) : [];
  };

/** `p`'s result, or `fallback` once `ms` have passed on `stopwatch`. */
function within<T>(stopwatch: Stopwatch, ms: number, p: Promise<T>, fallback: T): Promise<T> {
  const settled = new AbortController();
  const late = stopwatch.sleep(ms, settled.signal).then(() => fallback);
  p.catch(() => {}); // a failure after the time is up is nobody's concern
  return Promise.race([p, late]).finally(() => settled.abort());
}

export const SOURCES: Record<DynamicSource, Source> = {
  profiles: async (_line, ctx) => {
    const config = new ConfigContext(ctx.env);
    const current = config.profiles.currentName();
    return config.profiles.names().map((name) => {
      const url = config.profiles.get(name)?.baseUrl;
      return { value: name, description: [url, name === current ? '(current)' : undefined].filter(Boolean).join(' ') || undefined };
    });
  },
  'rule-ids': withApi(true, async (api, appId) =>
    (await listAllRules(api, appId, { limit: MAX_PAGES * PAGE_SIZE })).map((r) => ({ value: r.id, description: r.displayName })),
  ),
  // Imported here: only this source needs the MCP client.
  'connector-ids': withApi(true, async (api, appId) => {
    const { listAllMcpServers } = await import('../../../client/mcp.js');
    return (await listAllMcpServers(api, appId, { limit: MAX_PAGES * PAGE_SIZE })).map((m) => ({
      value: m.connectorId,
      description: m.displayName || undefined,
    }));
  }),
  // The open tasks. Imported here: the task modules load the schema library too.
  'task-ids': withApi(false, async (api) => {
    const [{ listAllTasks, viewTaskId }, { TASK_STATES }] = await Promise.all([
      import('../../../client/tasks.js'),
      import('../../../api/tasks.js'),
    ]);
    const views = await listAllTasks(api, { taskStates: [TASK_STATES.open] }, { limit: MAX_PAGES * PAGE_SIZE });
    return views.filter((v) => viewTaskId(v)).map((v) => ({ value: viewTaskId(v), description: v.task.displayName || undefined }));
  }),
  // the embedded server's listeners (agctl serve)
  'listener-ids': withApi(false, async (api) =>
    (await listListeners(api, { limit: MAX_PAGES * PAGE_SIZE })).map((l) => ({ value: l.id, description: l.automation?.name ?? l.url })),
  ),
};
