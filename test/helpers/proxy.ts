// A recording HTTP proxy on 127.0.0.1 for tests: CONNECT tunnels and
// absolute-form requests, each recorded (method, target, Proxy-Authorization).
// Whatever host a request names, the proxy connects to 127.0.0.1 at the port
// it names: a test tenant is reached by a name (tenant.test) that only the
// proxy turns into an address, so a client that went around the proxy could
// not reach it at all.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxyRecord {
  method: string;
  /** `host:port` of a CONNECT, the absolute URL of any other request. */
  target: string;
  proxyAuthorization?: string;
}

export interface RecordingProxy {
  url: string;
  port: number;
  records: ProxyRecord[];
  /** Bytes the clients sent inside tunnels (TLS records: no request in clear text). */
  tunnelled(): Buffer;
  close(): Promise<void>;
}

export interface ProxyBehaviour {
  /** Answer every CONNECT and request with this status instead of carrying it. */
  refuse?: number;
  /** `Basic …` the proxy requires (407 otherwise). */
  requireAuthorization?: string;
}

export async function startRecordingProxy(behaviour: ProxyBehaviour = {}): Promise<RecordingProxy> {
  const records: ProxyRecord[] = [];
  const inside: Buffer[] = [];
  const sockets = new Set<Socket>();
  /** The status to answer instead of carrying the request, if any. */
  const verdict = (headers: IncomingHttpHeaders): number | undefined => {
    if (behaviour.requireAuthorization && headers['proxy-authorization'] !== behaviour.requireAuthorization) return 407;
    return behaviour.refuse;
  };
  const server = createServer((req, res) => {
    records.push({ method: req.method!, target: req.url!, proxyAuthorization: req.headers['proxy-authorization'] });
    const status = verdict(req.headers);
    if (status) {
      res.writeHead(status, status === 407 ? { 'proxy-authenticate': 'Basic realm="test"' } : {}).end();
      return;
    }
    const u = new URL(req.url!);
    const { 'proxy-authorization': _auth, ...headers } = req.headers;
    const upstream = request(
      { host: '127.0.0.1', port: Number(u.port) || 80, method: req.method, path: u.pathname + u.search, headers },
      (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    records.push({ method: 'CONNECT', target: req.url!, proxyAuthorization: req.headers['proxy-authorization'] });
    client.on('error', () => {});
    const status = verdict(req.headers);
    if (status) {
      client.end(
        `HTTP/1.1 ${status} Refused\r\n${status === 407 ? 'Proxy-Authenticate: Basic realm="test"\r\n' : ''}Content-Length: 0\r\n\r\n`,
      );
      return;
    }
    const port = Number(/:(\d+)$/.exec(req.url!)?.[1]);
    const up = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) inside.push(head), up.write(head);
      client.on('data', (d: Buffer) => inside.push(d));
      client.pipe(up).pipe(client);
    });
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    up.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    records,
    tunnelled: () => Buffer.concat(inside),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
