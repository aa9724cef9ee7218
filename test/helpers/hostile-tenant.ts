// A tenant written to misbehave, on 127.0.0.1 (port 0), for the tests that
// show a hostile or broken server cannot hurt the machine or the user: pages
// that never end, answers of gigabytes (announced or chunked, streamed lazily
// so that the test itself stays small), tokens too long for a header, error
// messages of megabytes, compressed answers nobody asked for, IDs that carry
// shell syntax.
//
// Each test starts one with the behaviour it needs; `stats` tells what the
// client made it do: requests received, and bytes of body handed to the socket
// (the client closing the connection stops the writing).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll } from 'vitest';

export type Behaviour =
  /**
   * Every list answer names a fresh random next page; `items` new items a page (0: empty pages), each with a
   * `displayName` of `pad` characters. At most `safetyPages` pages, then a last one.
   */
  | { kind: 'endless-pages'; items: number; pad?: number; safetyPages?: number }
  /** Every list answer is one page with this `nextPageToken`. */
  | { kind: 'one-page'; nextPageToken: string | null }
  /** An answer of `bytes` bytes (announced by Content-Length or chunked), on the token endpoint or the API routes; the server stops after `safetyBytes`. */
  | { kind: 'huge-body'; on: 'token' | 'api'; bytes: number; announce: boolean; safetyBytes?: number }
  /** A token answer whose access_token has `chars` characters, lasting `expiresIn` (JSON value as is). */
  | { kind: 'token'; chars: number; expiresIn?: unknown }
  /** Every API route answers `status` with an error message (or, with `raw`, a body without one) of `bytes` bytes. */
  | { kind: 'huge-error'; status: number; bytes: number; raw?: boolean }
  /** Every API route answers a gzip body (Content-Encoding: gzip) that inflates to `inflated` bytes. */
  | { kind: 'gzip'; inflated: number }
  /** Every request (token endpoint included) is answered `status` with `headers` and `body` (default a small JSON error). */
  | { kind: 'status'; status: number; headers: Record<string, string>; body?: string }
  /** Every list answer is one last page of items with these IDs (rules, MCP servers, tasks, listeners alike), each named `displayName`. */
  | { kind: 'ids'; ids: string[]; displayName?: string }
  /**
   * Each request (but the token endpoint's) is answered by the first route whose `method` (any when left out) and
   * `path` (matched against the path and query) match: `status` (default 200) with `body` (JSON unless a string);
   * an unmatched request gets a 404.
   */
  | { kind: 'routes'; routes: Route[] };

/** One answer of the `routes` behaviour. */
export interface Route {
  method?: string;
  path: RegExp;
  status?: number;
  body: unknown;
}

export interface HostileStats {
  /** Requests received, by route kind. */
  requests: { token: number; api: number };
  /** Body bytes handed to the socket on streamed answers. */
  bodyBytes: number;
  /** Headers of the last API request. */
  lastHeaders: IncomingMessage['headers'];
  /** Path (and query) of the last API request. */
  lastPath: string;
}

export interface HostileTenant {
  url: string;
  stats: HostileStats;
  /** Changes how it answers from the next request on. */
  behave(b: Behaviour): void;
  close(): Promise<void>;
}

const ERROR_BODY = '{"code":14,"message":"no","details":[]}';

/** A token answer of the usual shape. */
const tokenBody = (accessToken: string, expiresIn: unknown = 3600) =>
  JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn });

/** An item of the list route `path` names, with a fresh ID (or `id`). */
function freshItem(path: string, displayName?: string, id = `x${randomBytes(8).toString('hex')}`): unknown {
  const name = displayName ? { displayName } : {};
  if (path.includes('/mcp_servers')) return { appId: 'app', connectorId: id, ...name };
  if (path.includes('/search/tasks')) return { task: { id, ...name } };
  return { id, ...name };
}

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

/** Streams `bytes` bytes of JSON-looking text without holding them: 16 KiB at a time, as fast as the client reads. */
function stream(res: ServerResponse, stats: HostileStats, bytes: number, announce: boolean, safetyBytes: number): void {
  res.writeHead(200, { 'content-type': 'application/json', ...(announce ? { 'content-length': String(bytes) } : {}) });
  const chunk = Buffer.alloc(16 * 1024, ' ');
  chunk.write('{"list":[');
  let sent = 0;
  const pump = () => {
    while (!res.destroyed) {
      if (sent >= bytes || sent >= safetyBytes) {
        // The whole answer (chunked) ends properly; an announced one cut short closes the connection.
        if (sent >= bytes || !announce) res.end();
        else res.destroy();
        return;
      }
      const n = Math.min(chunk.length, bytes - sent);
      sent += n;
      stats.bodyBytes += n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
    }
  };
  pump();
}

export async function hostileTenant(behaviour: Behaviour): Promise<HostileTenant> {
  const stats: HostileStats = { requests: { token: 0, api: 0 }, bodyBytes: 0, lastHeaders: {}, lastPath: '' };
  let pages = 0;
  let current = behaviour;
  const server = createServer((req, res) => {
    // The request body is read and dropped (a search's JSON).
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      const b = current;
      if (path.startsWith('/auth/v1/token')) {
        stats.requests.token++;
        if (b.kind === 'status') return send(res, b.status, b.body ?? ERROR_BODY, b.headers);
        if (b.kind === 'huge-body' && b.on === 'token') return stream(res, stats, b.bytes, b.announce, b.safetyBytes ?? 64 * 1024 * 1024);
        if (b.kind === 'token') return send(res, 200, tokenBody('t'.repeat(b.chars), b.expiresIn));
        return send(res, 200, tokenBody('hostile-token'));
      }
      stats.requests.api++;
      stats.lastHeaders = req.headers;
      stats.lastPath = path;
      switch (b.kind) {
        case 'endless-pages': {
          pages++;
          const last = pages >= (b.safetyPages ?? 1500);
          const list = Array.from({ length: b.items }, () => freshItem(path, b.pad ? 'n'.repeat(b.pad) : undefined));
          return send(res, 200, JSON.stringify({ list, nextPageToken: last ? '' : randomBytes(12).toString('base64url') }));
        }
        case 'one-page':
          return send(res, 200, JSON.stringify({ list: [freshItem(path)], nextPageToken: b.nextPageToken }));
        case 'huge-body':
          if (b.on === 'api') return stream(res, stats, b.bytes, b.announce, b.safetyBytes ?? 64 * 1024 * 1024);
          return send(res, 200, '{"list":[]}');
        case 'huge-error': {
          const text = 'E'.repeat(b.bytes);
          return send(
            res,
            b.status,
            b.raw ? text : JSON.stringify({ code: 3, message: text, details: [] }),
            b.raw ? { 'content-type': 'text/plain' } : {},
          );
        }
        case 'status':
          return send(res, b.status, b.body ?? ERROR_BODY, b.headers);
        case 'ids':
          return send(res, 200, JSON.stringify({ list: b.ids.map((id) => freshItem(path, b.displayName, id)), nextPageToken: '' }));
        case 'routes': {
          const r = b.routes.find((x) => (!x.method || x.method === req.method) && x.path.test(path));
          if (!r) return send(res, 404, '{"code":5,"message":"no such route","details":[]}');
          return send(res, r.status ?? 200, typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
        }
        case 'gzip':
          return send(res, 200, gzipSync(Buffer.alloc(b.inflated, ' ')), { 'content-encoding': 'gzip' });
        default:
          return send(res, 200, '{"list":[]}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  afterAll(close);
  return { url, stats, close, behave: (b) => void ((current = b), (pages = 0)) };
}
