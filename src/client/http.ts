// The HTTP layer of the client: node:http(s) with keep-alive, per-request
// timeouts, retries with exponential backoff and jitter (honouring
// Retry-After), no redirects, caps on the size of an answer and of all the
// answers of one client, and --debug request logs with secrets redacted.
// node:http is part of Node itself (nothing to load from node_modules), which
// keeps every command's start-up short; load mode's many requests go through
// undici instead (src/cli/commands/webhook/load.ts). Requests go through the
// proxy the environment names (src/lib/proxy.ts): https in a CONNECT tunnel,
// TLS end to end with the server; http in absolute form to the proxy.
import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { CliError, Exit } from '../lib/exit.js';
import { sleep } from '../lib/clock.js';
import type { HttpProxy } from '../lib/proxy.js';
import { redactBody, redactHeaders } from './redact.js';

interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Where the URL came from, for hints on failures (default: the client's `urlSource`, e.g. "--base-url"). */
  urlSource?: string;
  /**
   * Safe to send twice. Defaults to true for GET/HEAD/PUT/DELETE/OPTIONS.
   * Non-idempotent requests are retried only when they surely never reached the server.
   */
  idempotent?: boolean;
  /** The largest body read (default: the client's `maxResponseBytes`), and what to say when an answer is larger. */
  maxResponseBytes?: { bytes: number; hint: string };
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T | undefined;
}

interface HttpOptions {
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseMs?: number;
  retryMaxDelayMs?: number;
  debug?: (line: string) => void;
  userAgent?: string;
  /** Where request URLs come from, for hints on network failures (default "--base-url"). */
  urlSource?: string;
  /** Waits between retries (default: a timer; the CLI passes its clock's). */
  sleep?: (ms: number) => Promise<void>;
  /** Told before each retry (the CLI shows it on a terminal): what failed and "retrying (2/4)…". */
  onRetry?: (line: string) => void;
  /** The largest body read (default DEFAULT_MAX_RESPONSE_BYTES): a larger answer is an error, read no further. */
  maxResponseBytes?: number;
  /** The proxy for a URL, or undefined to connect directly (the CLI passes proxyFor over its environment); may throw a UsageError. */
  proxy?: (url: URL) => HttpProxy | undefined;
}

/** The largest answer read by default (AGCTL_MAX_RESPONSE_BYTES changes it): far above any page or object the service sends. */
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/**
 * What one client (one command) reads at most in all, in answers: this many
 * times its cap on one answer (256 MiB by default). Every listing is bounded
 * in pages and items (src/client/paginate.ts), but not in the size of each:
 * this bounds the memory a command holds whatever a server sends.
 */
const TOTAL_RESPONSE_FACTOR = 8;
/** What a larger answer's error suggests, by default. */
const MAX_RESPONSE_HINT = 'if so large an answer is expected, raise AGCTL_MAX_RESPONSE_BYTES';
/** The `code` of the error for an answer larger than the cap (`-o json` error output). */
const RESPONSE_TOO_LARGE = 'response_too_large';

interface Transport {
  request: typeof httpRequest;
  agent: Agent;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** The code of the error when connecting took longer than its limit. */
const CONNECT_TIMEOUT = 'CONNECT_TIMEOUT';
/** The code of the error of a request abandoned by destroy() (never retried). */
const DESTROYED = 'ERR_CLIENT_DESTROYED';
/** Errors raised before a single byte of the request left this machine. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', CONNECT_TIMEOUT, 'EADDRNOTAVAIL']);
const TRANSIENT = new Set([...NEVER_SENT, 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const RETRY_STATUS = new Set([429, 503]);
/** Connecting gives up after this long, or the timeout when shorter. */
const CONNECT_TIMEOUT_MAX_MS = 10_000;

export class HttpClient {
  readonly timeoutMs: number;
  /** Connecting has its own, shorter limit. */
  readonly #connectTimeoutMs: number;
  readonly maxRetries: number;
  readonly maxResponseBytes: number;
  /** The most read in all (TOTAL_RESPONSE_FACTOR answers' worth); `#bytesRead` counts the bodies read so far. */
  readonly maxTotalBytes: number;
  #bytesRead = 0;
  readonly #opts: HttpOptions;
  /** Request functions and keep-alive connection pools, one per protocol (http:, https:) and proxy. */
  readonly #transports = new Map<string, Transport>();
  /** How to abort each request in flight, for destroy(). */
  readonly #inFlight = new Set<() => void>();
  /** Counts destroy() calls: a request that was starting (or waiting to retry) when one came is not sent. */
  #generation = 0;

  constructor(opts: HttpOptions = {}) {
    this.#opts = opts;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.#connectTimeoutMs = Math.min(this.timeoutMs, CONNECT_TIMEOUT_MAX_MS);
    this.maxRetries = opts.maxRetries ?? 3;
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.maxTotalBytes = TOTAL_RESPONSE_FACTOR * this.maxResponseBytes;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const method = req.method.toUpperCase();
    const idempotent = req.idempotent ?? IDEMPOTENT.has(method);
    const headers: Record<string, string> = { 'user-agent': this.#opts.userAgent ?? 'agctl', ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const first = performance.now();
    const attempts = this.maxRetries + 1;
    const generation = this.#generation;
    const cap = req.maxResponseBytes ?? { bytes: this.maxResponseBytes, hint: MAX_RESPONSE_HINT };
    const proxy = this.#opts.proxy?.(new URL(req.url));
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      this.#debugRequest(method, req.url, headers, req.body);
      if (proxy) this.#debug(`  through the proxy ${proxy.display} (${proxy.source})`);
      let res: HttpResponse;
      try {
        res = await this.#once(method, req.url, headers, req.body, generation, cap, proxy);
      } catch (err) {
        if (err instanceof CliError) {
          // An answer too large: what the server sends is wrong, and sending again would not mend it.
          this.#debug(`< ${err.message}`);
          throw err;
        }
        const code = errorCode(err);
        const retryable = code !== undefined && (NEVER_SENT.has(code) || (idempotent && TRANSIENT.has(code)));
        const raw = classifyNetworkError(err).kind === 'other' ? ` (${(err as Error)?.message ?? String(err)})` : '';
        this.#debug(`< ${describeNetworkError(err)}${raw} after ${Math.round(performance.now() - started)} ms`);
        if (retryable && attempt < this.maxRetries) {
          this.#retrying(req.url, describeNetworkError(err, this.#attemptLimitMs(err)), attempt + 2, attempts);
          await this.#sleep(this.#backoff(attempt));
          continue;
        }
        const tries = { count: attempt + 1, limitMs: this.#attemptLimitMs(err), elapsedMs: performance.now() - first };
        throw networkError(err, req.url, tries, req.urlSource ?? this.#opts.urlSource ?? '--base-url', proxy);
      }
      // A proxy that wants credentials answers a plain-http request itself (a tunnel's refusal is an error above).
      if (proxy && res.status === 407 && req.url.startsWith('http:')) throw proxyRefused(proxy, new URL(req.url), 407);
      this.#debugResponse(res, performance.now() - started);
      if (RETRY_STATUS.has(res.status) && idempotent && attempt < this.maxRetries) {
        const wait = retryAfterMs(res.headers['retry-after'], Date.now());
        const cap = this.#opts.retryMaxDelayMs ?? 30_000;
        if (wait === undefined || wait <= cap) {
          this.#retrying(req.url, `HTTP ${statusText(res.status)}`, attempt + 2, attempts);
          await this.#sleep(wait ?? this.#backoff(attempt));
          continue;
        }
      }
      return res;
    }
  }

  async #once(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
    generation: number,
    cap: { bytes: number; hint: string },
    proxy: HttpProxy | undefined,
  ): Promise<HttpResponse> {
    const u = new URL(url);
    const { request, agent } = await this.#transport(u.protocol, proxy);
    if (generation !== this.#generation) throw abandoned();
    return new Promise<HttpResponse>((resolve, reject) => {
      let req: ClientRequest;
      try {
        if (proxy && u.protocol === 'http:') {
          // Plain http through a proxy: the whole URL as the request target, to the proxy's address.
          const toProxy = { ...headers, host: u.host, ...(proxy.authorization ? { 'proxy-authorization': proxy.authorization } : {}) };
          req = request({ host: proxy.host, port: proxy.port, path: u.href, method, headers: toProxy, agent });
        } else {
          req = request(u, { method, headers, agent });
        }
      } catch (err) {
        reject(err); // a header node:http refuses
        return;
      }
      let connecting: NodeJS.Timeout | undefined;
      const settle = (err: Error | undefined, res?: HttpResponse) => {
        if (!this.#inFlight.delete(abort)) return; // settled already
        clearTimeout(attempt);
        clearTimeout(connecting);
        if (err) reject(err);
        else resolve(res!);
      };
      /** Ends the attempt with an error of ours: the socket is closed, the error reported once. */
      const fail = (err: Error) => {
        req.destroy(err);
        settle(err);
      };
      const abort = () => fail(abandoned());
      this.#inFlight.add(abort);
      // The attempt as a whole (connecting, sending, the answer's headers and body), and connecting alone.
      const attempt = setTimeout(() => fail(codedError('ETIMEDOUT', `no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        connecting = setTimeout(
          () => fail(codedError(CONNECT_TIMEOUT, `could not connect within ${this.#connectTimeoutMs} ms`)),
          this.#connectTimeoutMs,
        );
        // Connected means the TLS handshake done too, for https.
        socket.once(u.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connecting));
      });
      req.on('error', (err) => settle(err));
      req.on('response', (res: IncomingMessage) => {
        // Read at most the cap: an answer announcing more is refused unread, one that goes on past it is
        // cut there; either way the connection is closed (nothing more arrives) and the error is exit 9.
        // What the client read before counts too: the answers of one command stop at maxTotalBytes in all.
        const left = this.maxTotalBytes - this.#bytesRead;
        const declared = Number(res.headers['content-length']);
        if (declared > cap.bytes) return fail(tooLarge(u, cap, `announces ${declared} bytes (Content-Length)`));
        if (declared > left) return fail(tooMuchInAll(u, this.maxTotalBytes));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > cap.bytes) return fail(tooLarge(u, cap, `goes on past ${cap.bytes} bytes`));
          if (size > left) return fail(tooMuchInAll(u, this.maxTotalBytes));
          chunks.push(c);
        });
        res.on('end', () => {
          this.#bytesRead += size;
          settle(undefined, response(res.statusCode ?? 0, headersOf(res), Buffer.concat(chunks)));
        });
        res.on('error', (err) => settle(err));
        // The connection closed before the whole answer came.
        res.on('close', () => settle(codedError('ECONNRESET', 'the connection closed in the middle of the answer')));
      });
      req.end(body);
    });
  }

  /**
   * The request function and the keep-alive pool for a protocol and proxy
   * (node:https is loaded for the first https: URL). Through a proxy, https
   * connections are TLS over a CONNECT tunnel; http ones go to the proxy.
   */
  async #transport(protocol: string, proxy: HttpProxy | undefined): Promise<Transport> {
    const key = proxy ? `${protocol}${proxy.display}|${proxy.authorization ?? ''}` : protocol;
    let t = this.#transports.get(key);
    if (!t) {
      // An idle connection is closed after 10 s, or before the server's Keep-Alive timeout when it sends one.
      const options = { keepAlive: true, timeout: 10_000 };
      const https = protocol === 'https:' ? await import('node:https') : undefined;
      if (https && proxy) {
        const tls = await import('node:tls');
        const connectTimeoutMs = this.#connectTimeoutMs;
        const agent = new https.Agent(options);
        // node:http's Agent takes a connection from a callback too: the tunnel first, then TLS inside it.
        (agent as unknown as { createConnection: unknown }).createConnection = (
          opts: { host: string; port: number },
          done: (err: Error | null, s?: TLSSocket) => void,
        ) => {
          tunnel(proxy, opts.host, Number(opts.port) || 443, connectTimeoutMs).then(
            (socket) => done(null, tls.connect({ ...opts, socket })),
            (err: Error) => done(err),
          );
          return undefined;
        };
        t = { request: https.request, agent };
      } else {
        t = https ? { request: https.request, agent: new https.Agent(options) } : { request: httpRequest, agent: new Agent(options) };
      }
      this.#transports.set(key, t);
    }
    return t;
  }

  /** The retry notice: "http://host: timed out after 2 s; retrying (2/4)…". */
  #retrying(url: string, why: string, next: number, of: number): void {
    this.#opts.onRetry?.(`${new URL(url).origin}: ${why}; retrying (${next}/${of})…`);
  }

  /** How long one attempt may take before the failure `err` (connecting has its own, shorter limit). */
  #attemptLimitMs(err: unknown): number {
    return errorCode(err) === CONNECT_TIMEOUT ? this.#connectTimeoutMs : this.timeoutMs;
  }

  #backoff(attempt: number): number {
    const base = this.#opts.retryBaseMs ?? 250;
    const max = this.#opts.retryMaxDelayMs ?? 30_000;
    const exp = Math.min(max, base * 2 ** attempt);
    return Math.round(exp / 2 + Math.random() * (exp / 2));
  }

  #sleep(ms: number): Promise<void> {
    this.#debug(`  retrying in ${ms} ms`);
    return (this.#opts.sleep ?? sleep)(ms);
  }

  #debug(line: string): void {
    this.#opts.debug?.(line);
  }

  #debugRequest(method: string, url: string, headers: Record<string, string>, body?: string | Buffer): void {
    if (!this.#opts.debug) return;
    this.#debug(`> ${method} ${url}`);
    for (const [k, v] of Object.entries(redactHeaders(headers))) this.#debug(`> ${k}: ${v}`);
    const b = redactBody(body, headers['content-type']);
    if (b) this.#debug(`> ${b}`);
  }

  #debugResponse(res: HttpResponse, ms: number): void {
    if (!this.#opts.debug) return;
    this.#debug(`< ${res.status} (${Math.round(ms)} ms)`);
    for (const [k, v] of Object.entries(redactHeaders(res.headers))) this.#debug(`< ${k}: ${Array.isArray(v) ? v.join(', ') : v}`);
    const b = redactBody(res.body, String(res.headers['content-type'] ?? ''));
    if (b) this.#debug(`< ${b}`);
  }

  /** Closes the idle connections (called once the requests are answered). */
  async close(): Promise<void> {
    for (const { agent } of this.#transports.values()) agent.destroy();
    this.#transports.clear();
  }

  /** Aborts the requests in flight and closes the connections. */
  async destroy(): Promise<void> {
    this.#generation++;
    for (const abort of [...this.#inFlight]) abort();
    await this.close();
  }
}

const codedError = (code: string, message: string) => Object.assign(new Error(message), { code });

/** A failure of the proxy itself: connecting to it, or its answer to CONNECT (`status`). Its `code` is the cause's, for retries. */
class ProxyFailure extends Error {
  constructor(
    readonly proxy: HttpProxy,
    readonly code: string | undefined,
    readonly status?: number,
    cause?: unknown,
  ) {
    super(status ? `the proxy answered CONNECT with ${status}` : 'could not reach the proxy', { cause });
  }
}
/** The code of a refused CONNECT (never retried). */
const PROXY_REFUSED = 'PROXY_REFUSED';

/**
 * A CONNECT tunnel through `proxy` to host:port: the socket once the proxy
 * answers 2xx. Connecting to the proxy and its answer share the connect limit.
 */
function tunnel(proxy: HttpProxy, host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const headers: Record<string, string> = { host: target };
    if (proxy.authorization) headers['proxy-authorization'] = proxy.authorization;
    const req = httpRequest({ host: proxy.host, port: proxy.port, method: 'CONNECT', path: target, headers, agent: false, setHost: false });
    const timer = setTimeout(
      () => req.destroy(codedError(CONNECT_TIMEOUT, `the proxy did not open a tunnel within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.once('connect', (res: IncomingMessage, socket: Socket, head: Buffer) => {
      clearTimeout(timer);
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        socket.destroy();
        reject(new ProxyFailure(proxy, PROXY_REFUSED, status));
        return;
      }
      if (head.length) socket.unshift(head);
      resolve(socket);
    });
    // An answer to CONNECT that is not one (node:http hands a non-CONNECT-aware answer here).
    req.once('response', (res: IncomingMessage) => {
      clearTimeout(timer);
      res.destroy();
      reject(new ProxyFailure(proxy, PROXY_REFUSED, res.statusCode ?? 0));
    });
    req.once('error', (err: Error) => {
      clearTimeout(timer);
      reject(new ProxyFailure(proxy, errorCode(err) ?? 'ECONNRESET', undefined, err));
    });
    req.end();
  });
}

/** The error for a proxy that refused to carry a request to `u` (its status). */
function proxyRefused(proxy: HttpProxy, u: URL, status: number): CliError {
  const via = `the proxy ${proxy.display} (${proxy.source})`;
  if (status === 407) {
    return new CliError(`${via} asks for credentials (407 Proxy Authentication Required)`, Exit.Server, {
      hint: proxy.authorization
        ? `the credentials in ${proxy.source} were not accepted: check them`
        : `put them in ${proxy.source}: http://user:password@host:port`,
    });
  }
  if (status === 502 || status === 503 || status === 504) {
    return new CliError(`${via} could not reach ${u.host}: ${statusText(status)}`, Exit.Server, {
      hint: `check the host name, or list ${u.hostname} in NO_PROXY to connect directly`,
    });
  }
  return new CliError(`${via} refused to connect to ${u.host}: ${statusText(status)}`, Exit.Server, {
    hint: `the proxy does not allow it: ask its administrators, or list ${u.hostname} in NO_PROXY to connect directly`,
  });
}

/** "32 MiB", "16 KiB", "1000 bytes": a cap as people read it. */
function byteSize(n: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const)
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  return `${n} bytes`;
}

/** The error for answers that together go past what one command reads. */
function tooMuchInAll(u: URL, total: number): CliError {
  return new CliError(
    `the answers from ${u.origin} are too large: together they go on past ${byteSize(total)}, and agctl reads at most that for one command`,
    Exit.Server,
    {
      code: RESPONSE_TOO_LARGE,
      hint: `ask for less (--limit), or raise AGCTL_MAX_RESPONSE_BYTES: a command reads at most ${TOTAL_RESPONSE_FACTOR} times as much in all`,
    },
  );
}

/** The error for an answer larger than agctl reads (`what`: how it showed it). */
function tooLarge(u: URL, cap: { bytes: number; hint: string }, what: string): CliError {
  return new CliError(
    `the answer from ${u.origin}${u.pathname} is too large: it ${what}, and agctl reads at most ${byteSize(cap.bytes)}`,
    Exit.Server,
    {
      code: RESPONSE_TOO_LARGE,
      hint: cap.hint,
    },
  );
}
const abandoned = () => codedError(DESTROYED, 'the request was abandoned');

/** The answer's headers, a repeated one as an array of its values (as set-cookie always is). */
function headersOf(res: IncomingMessage): HttpResponse['headers'] {
  const headers: HttpResponse['headers'] = {};
  for (const [name, values] of Object.entries(res.headersDistinct))
    if (values) headers[name] = values.length === 1 && name !== 'set-cookie' ? values[0] : values;
  return headers;
}

function response(status: number, headers: HttpResponse['headers'], buf: Buffer): HttpResponse {
  return {
    status,
    headers,
    body: buf,
    text: () => buf.toString('utf8'),
    json: <T>() => {
      if (buf.length === 0) return undefined;
      try {
        return JSON.parse(buf.toString('utf8')) as T;
      } catch {
        return undefined;
      }
    },
  };
}

function errorCode(err: unknown): string | undefined {
  let e = err as { code?: string; cause?: unknown; message?: string } | undefined;
  for (let i = 0; e && i < 4; i++) {
    // A TLS failure met while writing the request is EPROTO, with OpenSSL's reason only in the message.
    const ssl = e.code === 'EPROTO' ? /SSL routines:[^:]*:([^:]+):/.exec(e.message ?? '') : null;
    if (ssl) return `ERR_SSL_${ssl[1]!.toUpperCase().replace(/ /g, '_')}`;
    if (typeof e.code === 'string') return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/** TLS failures that mean the port speaks plain HTTP (or something else that is not TLS). */
const NOT_TLS = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_HTTP_REQUEST',
  'ERR_SSL_RECORD_LAYER_FAILURE',
]);
/** Certificate verification failures (node:tls codes). */
const CERT_ERRORS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a self-signed certificate that is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is not signed by a trusted authority',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate is not signed by a trusted authority',
  UNABLE_TO_GET_ISSUER_CERT: 'the certificate is not signed by a trusted authority',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name',
};

type FailureKind = 'refused' | 'not-found' | 'timeout' | 'reset' | 'unreachable' | 'not-tls' | 'tls' | 'certificate' | 'not-http' | 'other';
type Failure = { kind: FailureKind; detail: string };

/** A failure's kind in a word, as summaries count it (never a library's error code). */
const FAILURE_WORDS: Record<FailureKind, string> = {
  refused: 'refused',
  'not-found': 'DNS',
  timeout: 'timed out',
  reset: 'reset',
  unreachable: 'unreachable',
  'not-tls': 'TLS',
  tls: 'TLS',
  certificate: 'TLS certificate',
  'not-http': 'not HTTP',
  other: 'other',
};

/**
 * Why a request got no HTTP answer, from the error of node:http or undici
 * (load mode): its kind, the kind in a word, and a few words of detail.
 */
export function networkFailure(err: unknown): Failure & { word: string } {
  const f = classifyNetworkError(err);
  return { ...f, word: FAILURE_WORDS[f.kind] };
}

function classifyNetworkError(err: unknown): Failure {
  const code = errorCode(err);
  switch (code) {
    case 'ECONNREFUSED':
      return { kind: 'refused', detail: 'connection refused' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return { kind: 'not-found', detail: 'host not found' };
    case 'ETIMEDOUT':
    case CONNECT_TIMEOUT:
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { kind: 'timeout', detail: 'timed out' };
    case 'ECONNRESET':
    case 'ECONNABORTED':
    case 'EPIPE':
      return { kind: 'reset', detail: 'connection reset' };
    case 'UND_ERR_SOCKET':
      return { kind: 'reset', detail: 'connection closed before the answer' };
    case DESTROYED:
      return { kind: 'other', detail: 'the request was abandoned' };
    case 'EHOSTUNREACH':
    case 'EHOSTDOWN':
    case 'ENETUNREACH':
    case 'ENETDOWN':
    case 'EADDRNOTAVAIL':
      return { kind: 'unreachable', detail: 'host unreachable' };
  }
  if ((err as Error)?.name === 'TimeoutError') return { kind: 'timeout', detail: 'timed out' };
  if (code && NOT_TLS.has(code)) return { kind: 'not-tls', detail: 'the server does not speak TLS on that port (is it http://?)' };
  if (code && CERT_ERRORS[code]) return { kind: 'certificate', detail: CERT_ERRORS[code]! };
  // OpenSSL's own text (library, function, source file) means nothing to a user: the code names it.
  // The HTTP parser (node:http and undici) could not read the answer: something else listens there.
  if (code?.startsWith('HPE_') || (err as Error)?.name === 'HTTPParserError') return { kind: 'not-http', detail: 'the answer is not HTTP' };
  if (code?.startsWith('ERR_SSL_')) return { kind: 'tls', detail: code.slice('ERR_SSL_'.length).toLowerCase().replace(/_/g, ' ') };
  // Anything else in a plain phrase: the library's message (and code) only in the --debug log.
  return { kind: 'other', detail: 'the connection failed' };
}

/** One line for --debug logs and retry notices. */
function describeNetworkError(err: unknown, limitMs?: number): string {
  if (err instanceof ProxyFailure) {
    const what = err.status !== undefined ? `refused the tunnel (${statusText(err.status)})` : describeNetworkError(err.cause, limitMs);
    return `proxy ${err.proxy.display}: ${what}`;
  }
  const f = classifyNetworkError(err);
  if (f.kind === 'timeout' && limitMs !== undefined) return `timed out after ${seconds(limitMs)} s`;
  return f.kind === 'not-tls' || f.kind === 'tls'
    ? `TLS handshake failed: ${f.detail}`
    : f.kind === 'certificate'
      ? `TLS certificate not trusted: ${f.detail}`
      : f.detail;
}

/** Seconds as people read them: 2, 0.2, 9.4. */
const seconds = (ms: number) => String(Math.round(ms / 100) / 10);

/** How many attempts a request made, how long each could take, and how long they all took. */
interface Tries {
  count: number;
  limitMs: number;
  elapsedMs: number;
}

function networkError(err: unknown, url: string, tries: Tries, source: string, proxy?: HttpProxy): CliError {
  const f = classifyNetworkError(err);
  const u = new URL(url);
  if (err instanceof ProxyFailure) {
    if (err.status !== undefined) return proxyRefused(err.proxy, u, err.status);
    const what =
      f.kind === 'timeout'
        ? `timed out after ${seconds(tries.limitMs)} s`
        : f.kind === 'reset'
          ? 'the proxy closed the connection'
          : f.detail;
    return new CliError(`cannot reach ${u.origin}: the proxy ${err.proxy.display} (${err.proxy.source}) failed: ${what}`, Exit.Server, {
      hint: `check ${err.proxy.source}, or list ${u.hostname} in NO_PROXY to connect directly`,
    });
  }
  const e = networkErrorDirect(f, u, tries, source);
  // Through a proxy, the failure past it is named with it (the proxy carried the request).
  return proxy
    ? new CliError(`${e.message} (through the proxy ${proxy.display} from ${proxy.source})`, e.exitCode, { hint: e.hint, code: e.code })
    : e;
}

function networkErrorDirect(f: Failure, u: URL, tries: Tries, source: string): CliError {
  switch (f.kind) {
    case 'not-tls':
      return new CliError(`TLS handshake with ${u.host} failed: ${f.detail}`, Exit.Server, {
        hint: `check ${source}: a server that speaks plain HTTP needs an http:// URL`,
      });
    case 'tls':
      return new CliError(`TLS handshake with ${u.host} failed: ${f.detail}`, Exit.Server, { hint: `check ${source}` });
    case 'certificate':
      return new CliError(`the TLS certificate of ${u.host} is not trusted: ${f.detail}`, Exit.Server, {
        hint: `check ${source}; for a private certificate authority, set NODE_EXTRA_CA_CERTS to its certificate file`,
      });
    case 'refused':
      return new CliError(`cannot reach ${u.origin}: ${f.detail}`, Exit.Server, { hint: `is the server running? check ${source}` });
    case 'not-found':
      return new CliError(`cannot reach ${u.origin}: ${f.detail}`, Exit.Server, { hint: `check the host name in ${source}` });
    case 'timeout': {
      const what =
        tries.count > 1
          ? `timed out: ${tries.count} attempts of ${seconds(tries.limitMs)} s each, ${seconds(tries.elapsedMs)} s in all`
          : `timed out after ${seconds(tries.limitMs)} s`;
      return new CliError(`cannot reach ${u.origin}: ${what}`, Exit.Server, { hint: 'raise --timeout (or AGCTL_TIMEOUT) or try again' });
    }
    case 'not-http':
      return new CliError(`${u.host} answered, but not in HTTP`, Exit.Server, { hint: `check ${source}: its port and scheme` });
    default:
      return new CliError(`cannot reach ${u.origin}: ${f.detail}`, Exit.Server, { hint: `check ${source}; --debug shows the error` });
  }
}

const STATUS_NAMES: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** "500 Internal Server Error" (or the bare number for a status without a known name). */
export function statusText(status: number): string {
  return STATUS_NAMES[status] ? `${status} ${STATUS_NAMES[status]}` : String(status);
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds from `now`. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  // An HTTP date names its day and month; Date.parse alone would read "-3" as a year.
  if (!/[A-Za-z]{3}/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}
