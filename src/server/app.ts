// The embedded server: node:http + the module routes + the SQLite store.
// Used by `agctl serve`, by `agctl --embedded`, and in-process by the tests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, Code } from '../api/errors.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { RequestLog } from './request-log.js';
import { Router, type JsonResult, type RequestContext, type ServerOptionsResolved } from './router.js';
import { Store, databaseError } from './store/db.js';
import { SealOpenError } from '../lib/seal.js';
import { StartupError, listenError, prepareDataDir } from './startup.js';
import { join } from 'node:path';
import { MODULES } from './modules.js';
import { TOKEN_PATH, authenticateBearer, listClients } from './routes/auth.js';
import type { ServerModule } from './module.js';

export { StartupError };
import { storeBackend } from './store/sqlite.js';
import { JSON_OBJECT } from './store/json.js';
export { StoreUnavailableError } from './store/sqlite.js';

/** meta `seed:<module>`: the demo fragment a module's seed returned, whatever the module put in it. */
const SEED_FRAGMENT = JSON_OBJECT;
/** How long close() waits for the requests in flight before it closes their connections. */
const CLOSE_GRACE_MS = 10_000;

export interface EmbeddedServerOptions {
  /** Data directory; omitted (or ':memory:') for an in-memory store. */
  dataDir?: string;
  /** How the user names the data directory (`--data-dir`, `AGCTL_DATA_DIR`), for hints in start-up errors. */
  dataDirFlag?: string;
  sealKey?: Buffer;
  /** Where AGCTL_SEAL_KEY is read (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  tokenTtlSeconds?: number;
  frontendUrl?: string;
  trustProxy?: boolean;
  allowInsecureJwks?: boolean;
  /** Receives the log: one line per request (method, path, status, ms; never bodies or headers). */
  log?: (line: string) => void;
  /**
   * Requests a second logged one by one; past this many, one line a second
   * with the count of each status (src/server/request-log.ts). Default: every
   * request logged (tests read the log as a record of requests); `serve` sets
   * REQUEST_LOG_PER_SECOND.
   */
  logPerSecond?: number;
  /** Extra settings for modules. */
  extra?: Record<string, unknown>;
  modules?: ServerModule[];
}

interface ReadyInfo {
  baseUrl: string;
  clients: { clientId: string; clientSecret: string; form: 'key' | 'plain' }[];
  demo: Record<string, unknown>;
}

export class EmbeddedServer {
  readonly store: Store;
  readonly clock: Clock;
  readonly router = new Router();
  readonly options: ServerOptionsResolved;
  readonly http: Server;
  readonly demo: Record<string, unknown> = {};
  #baseUrl = '';
  #stops: (() => void | Promise<void>)[] = [];
  #log?: (line: string) => void;
  /** Where each finished request is told, and the timer that sums up a busy second once it is over. */
  #requests?: RequestLog;
  #requestTimer?: NodeJS.Timeout;
  #inflight = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(opts: EmbeddedServerOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    this.#log = opts.log;
    if (opts.log) this.#requests = new RequestLog(opts.log, () => this.clock.now(), opts.logPerSecond ?? Infinity);
    this.options = {
      ...(opts.extra ?? {}),
      tokenTtlSeconds: opts.tokenTtlSeconds ?? 3600,
      frontendUrl: opts.frontendUrl ?? '',
      trustProxy: opts.trustProxy ?? false,
      allowInsecureJwks: opts.allowInsecureJwks ?? false,
    };
    const dataDir = opts.dataDir && opts.dataDir !== ':memory:' ? opts.dataDir : undefined;
    // Another user's data directory, or one others can write, is refused before anything in it is opened.
    // A store that cannot load is said before the data directory is made.
    storeBackend(opts.env);
    if (dataDir) prepareDataDir(dataDir, { dataDirFlag: opts.dataDirFlag });
    this.store = new Store({ dataDir, sealKey: opts.sealKey, env: opts.env, dataDirFlag: opts.dataDirFlag });
    const modules = opts.modules ?? MODULES;
    const seedCtx = { store: this.store, clock: this.clock, options: this.options };
    try {
      // One write transaction: servers starting together on one data directory create and seed it once.
      const parts = this.store.write(() => {
        this.store.adoptSchema();
        return modules.map((m) => {
          m.migrate(this.store);
          const key = `seed:${m.name}`;
          const saved = this.store.getMeta(key);
          if (saved !== undefined) return SEED_FRAGMENT.value(saved);
          const part = m.seed?.(seedCtx) ?? {};
          if (m.seed) this.store.setMeta(key, SEED_FRAGMENT.text(part));
          return part;
        });
      });
      for (const [i, m] of modules.entries()) {
        let part = parts[i]!;
        if (m.reveal) part = m.reveal(part, seedCtx);
        Object.assign(this.demo, part);
        m.routes(this.router);
      }
      // The stored secrets open (or there are none yet): the key fits this data directory.
      listClients(this.store);
      this.store.rememberSealKey();
    } catch (err) {
      this.store.close();
      // A data directory written before the key check: its secrets name a wrong key as they fail to open.
      if (err instanceof SealOpenError) throw this.store.wrongKeyError();
      if (dataDir) throw databaseError(join(dataDir, 'agctl.db'), err, this.store.naming);
      throw err;
    }
    for (const m of modules) {
      const stop = m.start?.(seedCtx);
      if (stop) this.#stops.push(stop);
    }
    this.http = createServer({ keepAliveTimeout: 5000, requestTimeout: 30_000 }, (req, res) => {
      this.#inflight++;
      res.on('close', this.#onClose);
      this.#handle(req, res);
    });
    // A client may shut down its sending side once the request is written
    // (HTTP/1.1 allows it; `nc -N`, some webhook senders). node:http then drops
    // the answer of a request still being handled by default, although the
    // event may already be recorded; keep the connection writable until it is sent.
    (this.http as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  }

  /** One listener for every response (no closure per request). */
  readonly #onClose = (): void => {
    if (--this.#inflight === 0) for (const w of this.#idleWaiters.splice(0)) w();
  };

  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** Listens on host:port; a StartupError names what is wrong with the address. */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      const failed = (err: Error) => reject(listenError(host, port, err));
      this.http.once('error', failed);
      this.http.listen(port, host, () => {
        this.http.off('error', failed);
        resolve();
      });
    });
    const addr = this.http.address() as AddressInfo;
    const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    this.#baseUrl = `http://${h === '0.0.0.0' ? '127.0.0.1' : h === '[::]' ? '[::1]' : h}:${addr.port}`;
    if (this.#requests && !this.#requestTimer) {
      const requests = this.#requests;
      this.#requestTimer = setInterval(() => requests.tick(), 1000).unref();
    }
    return this.#baseUrl;
  }

  readyInfo(): ReadyInfo {
    return { baseUrl: this.#baseUrl, clients: listClients(this.store), demo: this.demo };
  }

  /**
   * Stops accepting connections, lets in-flight requests finish (for at most
   * `graceMs`: once closing, node:http no longer enforces its request timeout,
   * so a client that stalls mid-request would otherwise hold the server open
   * for as long as it likes), then closes the store.
   */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    const stopped = Promise.all(this.#stops.splice(0).map((s) => s()));
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.http.closeIdleConnections();
    if (this.#inflight > 0) {
      let timer: NodeJS.Timeout | undefined;
      const drained = await new Promise<boolean>((resolve) => {
        this.#idleWaiters.push(() => resolve(true));
        timer = setTimeout(() => resolve(false), graceMs);
      });
      clearTimeout(timer);
      if (!drained) {
        const n = this.#inflight;
        this.#log?.(
          `${n} ${n === 1 ? 'request' : 'requests'} still in flight after ${graceMs / 1000} s: closing ${n === 1 ? 'its connection' : 'their connections'}`,
        );
      }
    }
    this.http.closeAllConnections();
    if (this.http.listening) await closed;
    clearInterval(this.#requestTimer);
    this.#requests?.flush();
    await stopped;
    this.store.close();
  }

  /**
   * Routes one request. Synchronous up to the handler: a handler that answers
   * at once is answered in the same turn, one that returns a promise is
   * answered when it settles (one hop, not a chain of awaits).
   */
  #handle(req: IncomingMessage, res: ServerResponse): void {
    const requests = this.#requests;
    const started = requests ? performance.now() : 0;
    const method = req.method ?? 'GET';
    const { path, search } = parseTarget(req.url ?? '/');
    if (requests)
      res.once('finish', () =>
        requests.request(`${method} ${path} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`, res.statusCode),
      );
    try {
      const found = this.router.match(method, path);
      if (!found) throw ApiError.of(Code.NotFound, `no route for ${method} ${path}`);
      if ('allowed' in found) {
        res.setHeader('Allow', [...new Set(found.allowed)].join(', '));
        throw new ApiError(405, Code.Unimplemented, `method ${method} is not allowed on ${path}`);
      }
      const { route, params } = found;
      const ctx = new Context(
        req,
        res,
        method,
        path,
        params,
        search,
        this.store,
        this.clock,
        this.options,
        route.options.maxBody,
        this.#baseUrl,
      );
      if (route.options.auth) {
        const auth = authenticateBearer(this.store, this.clock, req.headers.authorization);
        if (!auth) {
          // RFC 6750 §3.1: no error code when the request carried no bearer token at all.
          const presented = /^Bearer\s/i.test(req.headers.authorization ?? '');
          res.setHeader('WWW-Authenticate', presented ? 'Bearer realm="agctl", error="invalid_token"' : 'Bearer realm="agctl"');
          throw ApiError.of(Code.Unauthenticated, 'a valid bearer access token is required');
        }
        ctx.auth = auth;
      }
      const out = route.handler(ctx);
      if (out instanceof Promise) {
        // An answer that cannot be sent fails the request, not the process (as it does for a synchronous handler).
        out.then(
          (result) => {
            try {
              finish(res, result);
            } catch (err) {
              this.#fail(res, method, path, err);
            }
          },
          (err: unknown) => this.#fail(res, method, path, err),
        );
      } else {
        finish(res, out);
      }
    } catch (err) {
      this.#fail(res, method, path, err);
    }
  }

  /** Answers a failed request: the ApiError's status and body, or a 500 that hides the cause. */
  #fail(res: ServerResponse, method: string, path: string, err: unknown): void {
    try {
      this.#answerFailure(res, method, path, err);
    } catch {
      // Not even the error could be sent: drop the connection rather than the server.
      res.destroy();
    }
  }

  #answerFailure(res: ServerResponse, method: string, path: string, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (res.req.destroyed && (err as NodeJS.ErrnoException)?.code === 'ECONNRESET') {
      // The client went away mid-request (or its connection was closed at shutdown): nobody to answer, not a server fault.
      this.#log?.(`${method} ${path}: the connection closed before the request was complete`);
      res.destroy();
      return;
    }
    if (err instanceof ApiError) {
      // The token endpoint speaks OAuth 2.0 errors even for what the router or
      // the body reader refuse (405, 413): a token client reads `error`.
      const oauth = typeof err.code === 'string' ? err.code : path === TOKEN_PATH ? 'invalid_request' : undefined;
      sendJson(res, { status: err.status, body: oauth ? { error: oauth, error_description: err.message } : err.toBody() });
    } else {
      this.#log?.(`internal error on ${method} ${path}: ${(err as Error)?.message ?? err}`);
      const body =
        path === TOKEN_PATH
          ? { error: 'server_error', error_description: 'internal error' }
          : { code: Code.Internal, message: 'internal error', details: [] };
      sendJson(res, { status: 500, body });
    }
  }
}

function finish(res: ServerResponse, result: JsonResult | undefined): void {
  if (result && !res.headersSent) sendJson(res, result);
}

/** The per-request context: a class, so every request shares one shape and one set of methods. */
class Context implements RequestContext {
  auth?: RequestContext['auth'] = undefined;
  readonly remoteAddress: string;
  #body?: Promise<Buffer>;
  #query?: URLSearchParams;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly method: string,
    readonly path: string,
    readonly params: Record<string, string>,
    readonly search: string,
    readonly store: Store,
    readonly clock: Clock,
    readonly server: ServerOptionsResolved,
    readonly maxBody: number,
    readonly listenBaseUrl: string,
  ) {
    this.remoteAddress = req.socket.remoteAddress ?? '';
  }

  /**
   * The server's own base URL for this request: the `publicBaseUrl` setting, or
   * the address of the socket the request arrived on; never the Host header,
   * which the client chooses (it would let a caller steer the step-up links
   * and webhook audiences the server hands out).
   */
  get baseUrl(): string {
    const pub = this.server.publicBaseUrl;
    if (typeof pub === 'string' && pub) return pub.endsWith('/') ? pub.slice(0, -1) : pub;
    let addr = this.req.socket.localAddress;
    if (!addr) return this.listenBaseUrl || 'http://127.0.0.1';
    if (addr.startsWith('::ffff:')) addr = addr.slice(7);
    return `http://${addr.includes(':') ? `[${addr}]` : addr}:${this.req.socket.localPort}`;
  }

  /** The query parameters, parsed on first use (most routes never look). */
  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.search));
  }

  raw(): Promise<Buffer> {
    return (this.#body ??= readBody(this.req, this.res, this.maxBody));
  }

  readRaw(done: (err: unknown, body?: Buffer) => void): void {
    if (this.#body) this.#body.then((b) => done(null, b), done);
    else readBodyThen(this.req, this.res, this.maxBody, done);
  }

  async json<T>(): Promise<T> {
    const buf = await this.raw();
    if (buf.length === 0) return {} as T;
    try {
      return JSON.parse(buf.toString('utf8')) as T;
    } catch {
      throw ApiError.of(Code.InvalidArgument, 'request body is not valid JSON');
    }
  }
}

const EMPTY_QUERY = '';
/** Paths the URL parser leaves as they are: no percent-escapes, dot segments, "//" prefix, fragment or unusual characters. */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;
const PLAIN_QUERY = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;

/**
 * The path and query string of a request target (the query in a form
 * `new URLSearchParams` reads as the URL parser would). Plain targets
 * (nearly all) are split directly; anything else goes through the WHATWG URL
 * parser, whose result the fast path equals for the targets it accepts.
 */
export function parseTarget(target: string): { path: string; search: string } {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const search = q === -1 ? EMPTY_QUERY : target.slice(q + 1);
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && (search === EMPTY_QUERY || PLAIN_QUERY.test(search))) {
    return { path, search };
  }
  try {
    const url = new URL(target, 'http://x');
    // With its "?": URLSearchParams drops exactly one, as URL.searchParams does.
    return { path: url.pathname, search: url.search };
  } catch {
    return { path: '/', search: EMPTY_QUERY };
  }
}

/** Reads a request body, refusing it with 413 as soon as it grows past `limit`. */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => readBodyThen(req, res, limit, (err, body) => (err ? reject(err) : resolve(body!))));
}

/** `readBody` with a callback: called once, with the error (ApiError 413 when too large) or the body. */
function readBodyThen(req: IncomingMessage, res: ServerResponse, limit: number, done: (err: unknown, body?: Buffer) => void): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    res.setHeader('Connection', 'close');
    req.resume();
    done(new ApiError(413, Code.InvalidArgument, `request body of ${declared} bytes is larger than the limit of ${limit} bytes`));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  req.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > limit) {
      finished = true;
      chunks.length = 0;
      res.setHeader('Connection', 'close');
      req.resume();
      done(new ApiError(413, Code.InvalidArgument, `request body is larger than the limit of ${limit} bytes`));
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (finished) return;
    finished = true;
    done(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
  req.on('error', (err) => {
    if (finished) return;
    finished = true;
    done(err);
  });
}

const JSON_TYPE = 'application/json; charset=utf-8';

function sendJson(res: ServerResponse, result: JsonResult): void {
  const body = JSON.stringify(result.body);
  const extra = result.headers;
  if (extra) for (const k of Object.keys(extra)) res.setHeader(k, extra[k]!);
  // One writeHead with the fixed headers as a flat list (merged over any set
  // before, as setHeader would), and the body as a string: node:http then
  // sends head and body in one write.
  res.writeHead(result.status ?? 200, [
    'Content-Type',
    JSON_TYPE,
    'Content-Length',
    String(Buffer.byteLength(body)),
    'Cache-Control',
    'no-store',
  ]);
  res.end(body);
}

/** Starts a server on loopback; a convenience for tests and `--embedded`. */
export async function startEmbeddedServer(opts: EmbeddedServerOptions & { port?: number; host?: string } = {}): Promise<EmbeddedServer> {
  const server = new EmbeddedServer(opts);
  try {
    await server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
  } catch (err) {
    await server.close().catch(() => undefined);
    throw err;
  }
  return server;
}
