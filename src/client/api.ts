// The API client: one call per request, bearer token attached, error bodies
// turned into ApiError, a 401 answered by dropping the token and retrying once.
import { ApiError, codeForHttpStatus, parseCode } from '../api/errors.js';
import { CliError, Exit } from '../lib/exit.js';
import { nestsDeeperThan } from '../lib/json-depth.js';
import { isJsonObject, jsonKind } from '../lib/json.js';
import type { HttpClient, HttpResponse } from './http.js';

/** Where the API client gets its bearer token (implemented in auth.ts). */
export interface TokenProvider {
  /** A valid access token (cached or fresh). */
  token(): Promise<string>;
  /** Forgets a token the server refused, so the next call fetches a new one. Returns false when nothing can be refreshed. */
  invalidate(token: string): boolean;
}

interface CallOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotent?: boolean;
  /** Checks the JSON object of a 2xx answer: returns what is wrong with it, or undefined when it is the expected data. */
  check?: (body: Record<string, unknown>) => string | undefined;
  /** An empty 2xx body stands for `{}` (an answer that carries no data, like a delete's). */
  emptyOk?: boolean;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly http: HttpClient,
    readonly tokens: TokenProvider,
  ) {}

  url(path: string, query?: CallOptions['query']): string {
    const u = new URL(this.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    return u.toString();
  }

  async call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const url = this.url(path, opts.query);
    const res = await this.request(method, url, {
      body,
      idempotent: opts.idempotent,
      headers: body !== undefined ? { 'content-type': 'application/json' } : {},
    });
    if (res.status >= 200 && res.status < 300) {
      const data = jsonObjectBody(res, url, opts.emptyOk);
      const problem = opts.check?.(data);
      if (problem) throw unexpectedResponse(url, problem);
      return data as T;
    }
    throw errorFromResponse(res);
  }

  /**
   * Sends one request with the bearer token and returns the answer as it is,
   * whatever its status (a 401 drops the token and retries once). `url` must
   * be on the base URL's origin (build it with `url()`): the token goes
   * nowhere else. `headers` come before the client's own Authorization.
   */
  async request(
    method: string,
    url: string,
    opts: { headers?: Record<string, string>; body?: string | Buffer; idempotent?: boolean } = {},
  ): Promise<HttpResponse> {
    if (new URL(url).origin !== new URL(this.baseUrl).origin) {
      throw new CliError(
        `refusing to send the bearer token to ${new URL(url).origin}: it belongs to ${new URL(this.baseUrl).origin}`,
        Exit.Usage,
      );
    }
    const headers = Object.fromEntries(Object.entries(opts.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'authorization'));
    let token = await this.tokens.token();
    for (let attempt = 0; ; attempt++) {
      const res = await this.http.send({
        method,
        url,
        headers: { accept: 'application/json', ...headers, authorization: `Bearer ${token}` },
        body: opts.body,
        idempotent: opts.idempotent,
      });
      if (res.status === 401 && attempt === 0 && this.tokens.invalidate(token)) {
        token = await this.tokens.token();
        continue;
      }
      return res;
    }
  }
}

/** The error for a 2xx answer that is not the API's data (an HTML page, a proxy's answer, another service). */
export function unexpectedResponse(url: string, problem: string): CliError {
  return new CliError(`unexpected response from ${url}: ${problem}`, Exit.Server, {
    hint: "check the base URL: it must be the service's address",
  });
}

/** The media type of an answer, lower case, without parameters ('' when none). */
export function contentType(res: HttpResponse): string {
  const raw = res.headers['content-type'];
  return String(Array.isArray(raw) ? raw[0] : (raw ?? ''))
    .split(';')[0]!
    .trim()
    .toLowerCase();
}

/** The answer's Content-Encoding, lower case ('' for none or identity), cut short. */
function contentEncoding(res: HttpResponse): string {
  const raw = res.headers['content-encoding'];
  const v = String(Array.isArray(raw) ? raw.join(', ') : (raw ?? ''))
    .trim()
    .toLowerCase();
  return v === 'identity' ? '' : v.length > 40 ? `${v.slice(0, 39)}…` : v;
}

/** application/json or application/<something>+json. */
export const isJsonType = (type: string): boolean => /^application\/([a-z0-9.+-]+\+)?json$/.test(type);

/** The body of a 2xx answer as a JSON object: JSON content type, valid JSON, an object; otherwise an unexpected-response error. */
export function jsonObjectBody(res: HttpResponse, url: string, emptyOk = false): Record<string, unknown> {
  if (res.body.length === 0) {
    if (emptyOk) return {};
    throw unexpectedResponse(url, `HTTP ${res.status} with an empty body, expected a JSON object`);
  }
  // agctl sends no Accept-Encoding and decodes nothing: a compressed answer is not the data (and may be a bomb).
  const encoding = contentEncoding(res);
  if (encoding !== '')
    throw unexpectedResponse(url, `HTTP ${res.status} compressed (Content-Encoding: ${encoding}), which agctl does not ask for`);
  const type = contentType(res);
  if (!isJsonType(type)) {
    throw unexpectedResponse(url, `HTTP ${res.status} with ${type ? `content type ${type}` : 'no content type'}, expected JSON`);
  }
  let data: unknown;
  try {
    data = JSON.parse(res.text());
  } catch {
    throw unexpectedResponse(url, `HTTP ${res.status} with a body that is not valid JSON`);
  }
  if (!isJsonObject(data)) throw unexpectedResponse(url, `HTTP ${res.status} with ${jsonKind(data)}, expected a JSON object`);
  return data;
}

/**
 * Builds an ApiError from an error response: `{code, message, details}` with a
 * numeric or string `code` (service-notes.md §5), or an OAuth error. The HTTP
 * status decides the exit code; a missing code is guessed from it. Without a
 * message, the message is the body itself, cut short.
 */
export function errorFromResponse(res: HttpResponse): ApiError | CliError {
  if (res.status >= 300 && res.status < 400) {
    const where = res.headers.location ? ` to ${String(res.headers.location)}` : '';
    return new CliError(`the server redirected${where} (HTTP ${res.status}); agctl does not follow redirects`, Exit.Server, {
      hint: 'check --base-url',
      status: res.status,
    });
  }
  const body = res.json();
  if (isJsonObject(body)) {
    const code = shortCode(parseCode(body.code));
    const details = Array.isArray(body.details) ? serverDetails(body.details) : [];
    if (typeof body.message === 'string' && body.message.trim() !== '')
      return new ApiError(res.status, code ?? codeForHttpStatus(res.status), serverMessage(body.message), details);
    if (typeof body.error === 'string' && body.error !== '') {
      const error = shortCode(body.error)!;
      return new ApiError(
        res.status,
        error,
        typeof body.error_description === 'string' && body.error_description !== '' ? serverMessage(body.error_description) : error,
      );
    }
    if (code !== undefined) return new ApiError(res.status, code, withoutMessage(res), details);
  }
  return new ApiError(res.status, codeForHttpStatus(res.status), withoutMessage(res));
}

/** How much of a server's error message is shown (in bytes of UTF-8). */
export const MAX_MESSAGE_BYTES = 2048;

/**
 * A message from the server as shown: at most MAX_MESSAGE_BYTES, cut at a
 * character, "…(N bytes more)" telling what was left out.
 */
export function serverMessage(text: string): string {
  if (text.length <= MAX_MESSAGE_BYTES / 4 || Buffer.byteLength(text) <= MAX_MESSAGE_BYTES) return text;
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (used + n > MAX_MESSAGE_BYTES) break;
    used += n;
    end += ch.length;
  }
  return `${text.slice(0, end)}…(${Buffer.byteLength(text) - used} bytes more)`;
}

/** How much of an error's `details` is kept (in characters of their JSON), for `-o json` errors. */
export const MAX_DETAILS_CHARS = 16 * 1024;

/**
 * An error's `details` as kept: the leading entries whose JSON fits in
 * MAX_DETAILS_CHARS, then a note of how many were left out; none when they
 * nest too deep to print (src/lib/json-depth.ts).
 */
function serverDetails(details: unknown[]): unknown[] {
  if (nestsDeeperThan(details)) return [];
  const kept: unknown[] = [];
  let used = 0;
  for (const d of details) {
    used += (JSON.stringify(d) ?? 'null').length + 1;
    if (used > MAX_DETAILS_CHARS) break;
    kept.push(d);
  }
  const left = details.length - kept.length;
  return left === 0 ? details : [...kept, `…(${left} more ${left === 1 ? 'detail' : 'details'} left out)`];
}

/** The longest error code shown (a code is a word such as `invalid_argument`). */
const MAX_CODE_CHARS = 100;

/** An error code as shown: a string one cut at MAX_CODE_CHARS characters. */
export function shortCode<T extends number | string | undefined>(code: T): T {
  return (typeof code === 'string' && code.length > MAX_CODE_CHARS ? `${code.slice(0, MAX_CODE_CHARS - 1)}…` : code) as T;
}

/** How much of a body an error line shows. */
const BODY_EXCERPT_CHARS = 200;

/** The message for an error answer that carries none: the body on one line, cut short (control characters are escaped where the line is printed). */
function withoutMessage(res: HttpResponse): string {
  const excerpt = bodyExcerpt(res.text());
  return excerpt === '' ? "the server's answer is empty" : `the server's answer has no message: ${excerpt}`;
}

/** A body as one line (every run of white space one space), at most BODY_EXCERPT_CHARS characters, "…" marking a cut. */
export function bodyExcerpt(text: string): string {
  const chars = Array.from(
    text
      .trimStart()
      .slice(0, BODY_EXCERPT_CHARS * 8)
      .replace(/\s+/g, ' ')
      .trim(),
  );
  return chars.length <= BODY_EXCERPT_CHARS
    ? chars.join('')
    : `${chars
        .slice(0, BODY_EXCERPT_CHARS - 1)
        .join('')
        .trimEnd()}…`;
}
