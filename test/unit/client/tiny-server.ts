// A tiny HTTP server on 127.0.0.1 for client tests: each test sets `handle`,
// every request is recorded (method, path, headers, body).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TinyServer {
  url: string;
  host: string;
  seen: Seen[];
  handle: (req: Seen, res: ServerResponse, raw: IncomingMessage) => void;
  reset(handle: TinyServer['handle']): void;
  close(): Promise<void>;
}

export async function tinyServer(): Promise<TinyServer> {
  const t = {
    url: '',
    host: '',
    seen: [] as Seen[],
    handle: ((_r, res) => res.end()) as TinyServer['handle'],
    reset(handle: TinyServer['handle']) {
      t.seen.length = 0;
      t.handle = handle;
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      t.seen.push(seen);
      t.handle(seen, res, req);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  t.host = `127.0.0.1:${port}`;
  t.url = `http://${t.host}`;
  t.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  afterAll(() => t.close());
  return t;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const b = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(b), ...headers });
  res.end(b);
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
