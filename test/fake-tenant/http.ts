// HTTP plumbing of the fake tenant: routes, bodies and the service's error shape.
// Errors carry a string `code` (service-notes.md §5: a cone fixture shows
// `{"code":"invalid_argument"}`), with or without a `message`.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const BODY_LIMIT = 1024 * 1024;

/** An error answer: HTTP status, string code, and a message unless `message` is undefined. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? '');
    this.bare = message === undefined;
  }
  readonly bare: boolean;
}

export const invalidArgument = (message: string) => new HttpError(400, 'invalid_argument', message);
export const failedPrecondition = (message: string) => new HttpError(400, 'failed_precondition', message);
export const notFound = (message?: string) => new HttpError(404, 'not_found', message);

export interface Request {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  raw: Buffer;
  /** The user the bearer token was issued for (set on /api routes). */
  userId?: string;
  /** The body parsed as JSON (400 invalid_argument when it is not); undefined when empty. */
  json(): unknown;
}

export type Handler = (req: Request, params: string[]) => unknown | Promise<unknown>;

interface Route {
  method: string;
  re: RegExp;
  handler: Handler;
}

/** Routes by method and a path pattern whose `{x}` segments become parameters (percent-decoded). */
export class Router {
  readonly #routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler): this {
    const re = new RegExp(`^${pattern.replace(/\{[a-z_]+\}/gi, '([^/]+)')}$`);
    this.#routes.push({ method, re, handler });
    return this;
  }

  match(method: string, path: string): { handler: Handler; params: string[] } | undefined {
    for (const r of this.#routes) {
      const m = r.re.exec(path);
      if (m && r.method === method) return { handler: r.handler, params: m.slice(1).map(decodeSegment) };
    }
    return undefined;
  }
}

function decodeSegment(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    throw invalidArgument('malformed percent-encoding in the path');
  }
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > BODY_LIMIT) {
        reject(new HttpError(413, 'resource_exhausted', 'request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function toRequest(req: IncomingMessage, raw: Buffer): Request {
  const u = new URL(req.url ?? '/', 'http://fake.invalid');
  return {
    method: req.method ?? 'GET',
    path: u.pathname,
    query: u.searchParams,
    headers: req.headers,
    raw,
    json() {
      if (raw.length === 0) return undefined;
      try {
        return JSON.parse(raw.toString('utf8'));
      } catch {
        throw invalidArgument('the request body is not valid JSON');
      }
    },
  };
}

/** The body as a JSON object ({} when empty); 400 when it is another JSON value. */
export function jsonObject(req: Request): Record<string, unknown> {
  const v = req.json();
  if (v === undefined) return {};
  if (!isObject(v)) throw invalidArgument('the request body must be a JSON object');
  return v;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: HttpError): void {
  sendJson(res, err.status, err.bare ? { code: err.code } : { code: err.code, message: err.message, details: [] }, err.headers);
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

/** A string member of a request body: absent or null gives '', another type a 400. */
export function str(body: Record<string, unknown>, key: string, where = ''): string {
  const v = body[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw invalidArgument(`${where}${key}: expected a string`);
  return v;
}

/** An RFC 3339 timestamp of a request (proto3 JSON Timestamp); undefined when absent. */
export function timestamp(body: Record<string, unknown>, key: string): number | undefined {
  const v = str(body, key);
  if (v === '') return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw invalidArgument(`${key}: not an RFC 3339 timestamp`);
  return ms;
}

/** Opaque page tokens: base64url JSON the client must hand back unchanged. */
export const pageToken = {
  encode: (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url'),
  decode<T>(token: string, valid: (v: unknown) => v is T): T {
    try {
      const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
      if (valid(v)) return v;
    } catch {
      // falls through
    }
    throw invalidArgument('invalid page token');
  },
};
