// A small router for the embedded server: method + path pattern -> handler.
// Patterns use `:name` segments; a trailing `*` is not supported on purpose
// (every route of the API has a fixed shape).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from './store/db.js';
import type { Clock } from '../lib/clock.js';

export interface AuthInfo {
  clientId: string;
  userId: string;
}

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  /** Path without the query string, percent-decoding applied per segment for params only. */
  path: string;
  params: Record<string, string>;
  /** The raw query string (for `new URLSearchParams`). */
  search: string;
  /** The query parameters (parsed on first use). */
  query: URLSearchParams;
  /** The server's own base URL for this request (publicBaseUrl, else the socket address; never the Host header). */
  baseUrl: string;
  store: Store;
  clock: Clock;
  /** Set for routes registered with `auth: true` (the default). */
  auth?: AuthInfo;
  /** Remote address of the TCP peer (IPv6-mapped IPv4 is left as Node reports it). */
  remoteAddress: string;
  /** Reads the body (JSON) with the route's size limit. Throws ApiError 400/413. */
  json<T = unknown>(): Promise<T>;
  /** Reads the raw body bytes with the route's size limit. Throws ApiError 413. */
  raw(): Promise<Buffer>;
  /** `raw` with a callback (no promise): the error (ApiError 413 when too large) or the body. Read a body one way only. */
  readRaw(done: (err: unknown, body?: Buffer) => void): void;
  server: ServerOptionsResolved;
}

/** What a handler returns: a JSON body with a status, or `undefined` when it wrote the response itself. */
export interface JsonResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}
type Handler = (ctx: RequestContext) => Promise<JsonResult | undefined> | JsonResult | undefined;

interface RouteOptions {
  /** Require a valid bearer token (default true). */
  auth?: boolean;
  /** Maximum request body size in bytes (default 1 MiB). */
  maxBody?: number;
}

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
  options: Required<RouteOptions>;
}

export interface ServerOptionsResolved {
  tokenTtlSeconds: number;
  /** Frontend URL used for deep links (credentialsSetupUrl); empty when none. */
  frontendUrl: string;
  /** Trust X-Forwarded-For for the client address (webhook allowlists). */
  trustProxy: boolean;
  /** Allow JWKS over plain http to loopback addresses. */
  allowInsecureJwks: boolean;
  /** Arbitrary extension settings of the modules. */
  [key: string]: unknown;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

export class Router {
  readonly routes: Route[] = [];
  /** Routes by segment count (only routes of the path's length can match), in registration order. */
  readonly #byLength = new Map<number, Route[]>();

  add(method: string, pattern: string, handler: Handler, options: RouteOptions = {}): void {
    const route: Route = {
      method: method.toUpperCase(),
      segments: pattern.split('/').filter(Boolean),
      handler,
      options: { auth: options.auth ?? true, maxBody: options.maxBody ?? DEFAULT_MAX_BODY },
    };
    this.routes.push(route);
    let list = this.#byLength.get(route.segments.length);
    if (!list) this.#byLength.set(route.segments.length, (list = []));
    list.push(route);
  }
  get(p: string, h: Handler, o?: RouteOptions) {
    this.add('GET', p, h, o);
  }
  post(p: string, h: Handler, o?: RouteOptions) {
    this.add('POST', p, h, o);
  }
  delete(p: string, h: Handler, o?: RouteOptions) {
    this.add('DELETE', p, h, o);
  }

  /**
   * Finds the route for a path. Returns `{route, params}` on a match,
   * `{allowed}` when the path exists under other methods (405), or null (404).
   */
  match(method: string, path: string): { route: Route; params: Record<string, string> } | { allowed: string[] } | null {
    const parts = path.split('/').filter(Boolean);
    const candidates = this.#byLength.get(parts.length);
    if (!candidates) return null;
    let allowed: string[] | undefined;
    for (const route of candidates) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { route, params };
      (allowed ??= []).push(route.method);
    }
    return allowed ? { allowed } : null;
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  // Literal segments first: most routes are ruled out without decoding anything.
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p.charCodeAt(0) !== 58 /* : */ && p !== parts[i]) return null;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p.charCodeAt(0) !== 58) continue;
    const v = parts[i]!;
    let decoded: string;
    try {
      decoded = v.includes('%') ? decodeURIComponent(v) : v;
    } catch {
      return null;
    }
    if (decoded === '') return null;
    params[p.slice(1)] = decoded;
  }
  return params;
}
