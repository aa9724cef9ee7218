// In-process embedded server for tests: loopback, ephemeral port, in-memory store.
import { afterAll } from 'vitest';
import { OffsetClock } from '../../src/lib/clock.js';
import { startEmbeddedServer, type EmbeddedServer, type EmbeddedServerOptions } from '../../src/server/app.js';

export interface TestServer {
  server: EmbeddedServer;
  baseUrl: string;
  clock: OffsetClock;
  keyClient: { clientId: string; clientSecret: string };
  plainClient: { clientId: string; clientSecret: string };
  demo: Record<string, any>;
  /** Gets an access token for the plain-form client straight from the token endpoint. */
  token(): Promise<string>;
  /** fetch() against the server with a bearer token (unless `auth: false`). */
  api(path: string, init?: RequestInit & { auth?: boolean; json?: unknown }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/** An access token for a server's plain-form demo client, straight from its token endpoint at `baseUrl`. */
export async function plainClientToken(server: EmbeddedServer, baseUrl: string): Promise<string> {
  const client = server.readyInfo().clients.find((c) => c.form === 'plain')!;
  const res = await fetch(`${baseUrl}/auth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Starts a server; it is closed after the test file unless `autoClose` is false. */
export async function startTestServer(opts: EmbeddedServerOptions & { autoClose?: boolean } = {}): Promise<TestServer> {
  const clock = (opts.clock as OffsetClock | undefined) ?? new OffsetClock();
  const server = await startEmbeddedServer({ ...opts, clock });
  const info = server.readyInfo();
  const keyClient = info.clients.find((c) => c.form === 'key')!;
  const plainClient = info.clients.find((c) => c.form === 'plain')!;
  let cached: string | undefined;
  const t: TestServer = {
    server,
    baseUrl: info.baseUrl,
    clock,
    keyClient,
    plainClient,
    demo: info.demo as Record<string, any>,
    async token() {
      return (cached ??= await plainClientToken(server, info.baseUrl));
    },
    async api(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.auth !== false) headers.set('authorization', `Bearer ${await t.token()}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      const res = await fetch(`${info.baseUrl}${path}`, { ...init, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // leave as text
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    close: () => server.close(),
  };
  if (opts.autoClose !== false) afterAll(() => server.close());
  return t;
}
