// The router, and the request handling every route shares (404, 405, 400, 413,
// 500, bearer check, graceful close), on a server made of the auth module and a
// test module.
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError, Code } from '../../../src/api/errors.js';
import { startEmbeddedServer } from '../../../src/server/app.js';
import type { ServerModule } from '../../../src/server/module.js';
import { Router } from '../../../src/server/router.js';
import { authModule } from '../../../src/server/routes/auth.js';

describe('Router.match', () => {
  const r = new Router();
  const h = () => ({ body: {} });
  r.get('/api/v1/apps/:app_id/rules', h);
  r.delete('/api/v1/apps/:app_id/rules/:id', h);
  r.get('/api/v1/apps/:app_id/rules/:id', h);
  r.post('/auth/v1/token', h, { auth: false, maxBody: 10 });

  it('matches fixed segments and decodes parameters', () => {
    const m = r.match('DELETE', '/api/v1/apps/crm%20app/rules/a%2Fb') as { route: any; params: Record<string, string> };
    expect(m.params).toEqual({ app_id: 'crm app', id: 'a/b' });
    expect(m.route.method).toBe('DELETE');
    expect(m.route.options).toEqual({ auth: true, maxBody: 1024 * 1024 });
    expect((r.match('POST', '/auth/v1/token') as any).route.options).toEqual({ auth: false, maxBody: 10 });
  });

  it('lists the allowed methods when only the method is wrong', () => {
    expect(r.match('PUT', '/api/v1/apps/x/rules/y')).toEqual({ allowed: ['DELETE', 'GET'] });
    expect(r.match('GET', '/auth/v1/token')).toEqual({ allowed: ['POST'] });
  });

  it('answers HEAD with the GET route', () => {
    expect((r.match('HEAD', '/api/v1/apps/x/rules') as any).route.method).toBe('GET');
  });

  it('finds nothing for other shapes, empty or badly encoded parameters', () => {
    expect(r.match('GET', '/api/v1/apps/x')).toBeNull();
    expect(r.match('GET', '/api/v1/apps/x/rules/y/z')).toBeNull();
    expect(r.match('GET', '/api/v1/apps/%E0%A4%A/rules')).toBeNull();
    expect(r.match('GET', '/api/v1/apps/%20/rules')).not.toBeNull();
    expect(r.match('GET', '/api/v2/apps/x/rules')).toBeNull();
  });
});

let release: () => void = () => {};
const testModule: ServerModule = {
  name: 'test',
  migrate() {},
  routes(router) {
    router.get('/t/echo/:id', (ctx) => ({ body: { id: ctx.params.id, q: ctx.query.get('q'), method: ctx.method } }), { auth: false });
    router.post('/t/json', async (ctx) => ({ status: 201, body: { got: await ctx.json() }, headers: { 'x-test': '1' } }), { auth: false });
    router.post('/t/small', async (ctx) => ({ body: { size: (await ctx.raw()).length } }), { auth: false, maxBody: 16 });
    router.get(
      '/t/boom',
      () => {
        throw new Error('database password=hunter2 leaked');
      },
      { auth: false },
    );
    router.get(
      '/t/api-error',
      () => {
        throw ApiError.of(Code.FailedPrecondition, 'not now', [{ why: 'x' }]);
      },
      { auth: false },
    );
    // Answers that cannot be sent (a value JSON cannot encode, a header value with a line break), from a sync and an async handler.
    router.get('/t/unsendable/sync', () => ({ body: { n: 1n } }), { auth: false });
    router.get('/t/unsendable/async', async () => ({ body: { n: 1n } }), { auth: false });
    router.get('/t/bad-header/async', async () => ({ body: {}, headers: { 'x-echo': 'a\r\nSet-Cookie: x=1' } }), { auth: false });
    router.get('/t/slow', () => new Promise((r) => (release = () => r({ body: { slow: true } }))), { auth: false });
    router.get('/t/secure', (ctx) => ({ body: ctx.auth }));
  },
};

const logs: string[] = [];
const server = await startEmbeddedServer({ modules: [authModule, testModule], log: (l) => logs.push(l) });
const base = server.baseUrl;
let closed = false;
afterAll(async () => {
  if (!closed) await server.close();
});

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe('request handling', () => {
  it('routes with params and query, and lets a handler set status and headers', async () => {
    expect((await call('/t/echo/a%20b?q=1')).body).toEqual({ id: 'a b', q: '1', method: 'GET' });
    const r = await call('/t/json', { method: 'POST', body: '{"a":[1]}', headers: { 'content-type': 'application/json' } });
    expect([r.status, r.body, r.headers.get('x-test'), r.headers.get('content-type')]).toEqual([
      201,
      { got: { a: [1] } },
      '1',
      'application/json; charset=utf-8',
    ]);
    expect((await call('/t/json', { method: 'POST' })).body).toEqual({ got: {} });
  });

  it('answers unknown routes 404 and wrong methods 405 with Allow, in the error body shape', async () => {
    const nf = await call('/nothing/here');
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ code: 5, message: 'no route for GET /nothing/here', details: [] });
    const wrong = await call('/t/echo/x', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect(wrong.body.code).toBe(Code.Unimplemented);
  });

  it('answers malformed JSON 400', async () => {
    const r = await call('/t/json', { method: 'POST', body: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ code: 3, message: 'request body is not valid JSON', details: [] });
  });

  it('answers bodies over the limit 413, whether or not a length was declared', async () => {
    expect((await call('/t/small', { method: 'POST', body: 'x'.repeat(16) })).body).toEqual({ size: 16 });
    const declared = await call('/t/small', { method: 'POST', body: 'x'.repeat(17) });
    expect(declared.status).toBe(413);
    // chunked: no Content-Length, the limit applies while streaming
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/t/small`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('x'.repeat(10));
      req.end('y'.repeat(10));
    });
    expect(chunked).toBe(413);
  });

  it('answers an unexpected handler error 500 without leaking its message', async () => {
    const r = await call('/t/boom');
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ code: 13, message: 'internal error', details: [] });
    expect(JSON.stringify(r.body)).not.toContain('hunter2');
    const e = await call('/t/api-error');
    expect([e.status, e.body]).toEqual([400, { code: 9, message: 'not now', details: [{ why: 'x' }] }]);
  });

  it('answers 500 when the answer of a handler cannot be sent, from an async handler too (no unhandled rejection)', async () => {
    const rejections: unknown[] = [];
    const onRejection = (err: unknown) => rejections.push(err);
    process.on('unhandledRejection', onRejection);
    try {
      for (const path of ['/t/unsendable/sync', '/t/unsendable/async', '/t/bad-header/async']) {
        const r = await call(path);
        expect([path, r.status, r.body]).toEqual([path, 500, { code: 13, message: 'internal error', details: [] }]);
        expect(r.headers.get('set-cookie')).toBeNull();
      }
      await new Promise((r) => setTimeout(r, 20));
      expect(rejections).toEqual([]);
      // The server still answers.
      expect((await call('/t/echo/ok')).status).toBe(200);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('requires a bearer token on routes that do not opt out', async () => {
    const r = await call('/t/secure');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('logs one line per request without headers or bodies', async () => {
    await call('/t/json', { method: 'POST', body: '{"secret":"s3"}', headers: { authorization: 'Bearer zzz' } });
    await new Promise((r) => setTimeout(r, 20));
    const line = logs.find((l) => l.startsWith('POST /t/json'));
    expect(line).toMatch(/^POST \/t\/json 201 \d+\.\dms$/);
    expect(logs.join('\n')).not.toMatch(/s3|zzz/);
  });

  it('finishes in-flight requests on close, then refuses new connections', async () => {
    const pending = call('/t/slow');
    await new Promise((r) => setTimeout(r, 50));
    let done = false;
    const closing = server.close().then(() => (done = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(done).toBe(false);
    release();
    expect((await pending).body).toEqual({ slow: true });
    await closing;
    closed = true;
    expect(done).toBe(true);
    await expect(fetch(`${base}/t/echo/x`)).rejects.toThrow();
  });
});

describe('a request whose body never finishes', () => {
  /** Sends the headers and part of a 10-byte body to /t/small; resolves when the socket closes. */
  async function stalled(url: string): Promise<{ sock: Socket; gone: Promise<void> }> {
    const { hostname, port } = new URL(url);
    const sock = connect(Number(port), hostname);
    sock.on('error', () => {});
    sock.resume();
    const gone = new Promise<void>((r) => sock.once('close', () => r()));
    await new Promise<void>((r) => sock.once('connect', () => r()));
    sock.write(`POST /t/small HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Length: 10\r\n\r\nab`);
    await new Promise((r) => setTimeout(r, 50));
    return { sock, gone };
  }

  it('is not logged as an internal error when the client goes away', async () => {
    const lines: string[] = [];
    const s = await startEmbeddedServer({ modules: [authModule, testModule], log: (l) => lines.push(l) });
    try {
      const { sock, gone } = await stalled(s.baseUrl);
      sock.destroy();
      await gone;
      await new Promise((r) => setTimeout(r, 50));
      expect(lines.join('\n')).not.toMatch(/internal error/);
      expect(lines).toContain('POST /t/small: the connection closed before the request was complete');
    } finally {
      await s.close();
    }
  });

  it('does not keep close() waiting past its grace period', async () => {
    const lines: string[] = [];
    const s = await startEmbeddedServer({ modules: [authModule, testModule], log: (l) => lines.push(l) });
    const { gone } = await stalled(s.baseUrl);
    let done = false;
    const closing = s.close(300).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(done).toBe(false); // still within the grace period
    await closing;
    await gone; // the stalled connection was closed by the server
    expect(lines).toContain('1 request still in flight after 0.3 s: closing its connection');
    expect(lines.join('\n')).not.toMatch(/internal error/);
  });
});
