import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError, Exit } from '../../../src/lib/exit.js';
import { ApiClient } from '../../../src/client/api.js';
import { StaticToken } from '../../../src/client/auth.js';
import { HttpClient, networkFailure, retryAfterMs } from '../../../src/client/http.js';
import { closedPort, sendJson, tinyServer } from './tiny-server.js';

const srv = await tinyServer();
const other = await tinyServer();
// Servers of their own for the tests that wait on time-outs: these run side by side (see the end).
const [slow, slowPost, idle] = await Promise.all([tinyServer(), tinyServer(), tinyServer()]);

/** An HttpClient whose sleeps are recorded instead of waited. */
function client(opts: ConstructorParameters<typeof HttpClient>[0] = {}) {
  const sleeps: number[] = [];
  const http = new HttpClient({ retryBaseMs: 100, sleep: async (ms) => void sleeps.push(ms), ...opts });
  return { http, sleeps };
}

/** Answers with each status in turn (the last one repeats). */
function statuses(list: [number, Record<string, string>?][]) {
  let i = 0;
  srv.reset((_r, res) => {
    const [status, headers] = list[Math.min(i++, list.length - 1)]!;
    sendJson(res, status, { n: i }, headers);
  });
}

async function failure(p: Promise<unknown>): Promise<CliError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CliError);
  return err as CliError;
}

afterEach(() => vi.restoreAllMocks());

describe('retries of 429 and 503', () => {
  it('honours Retry-After in seconds', async () => {
    statuses([[503, { 'retry-after': '1' }], [429, { 'retry-after': '2' }], [200]]);
    const { http, sleeps } = client();
    const res = await http.send({ method: 'GET', url: `${srv.url}/x` });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ n: 3 });
    expect(sleeps).toEqual([1000, 2000]);
    expect(srv.seen).toHaveLength(3);
  });

  it('honours Retry-After as an HTTP date', async () => {
    statuses([[429, { 'retry-after': new Date(Date.now() + 3000).toUTCString() }], [200]]);
    const { http, sleeps } = client();
    expect((await http.send({ method: 'GET', url: `${srv.url}/x` })).status).toBe(200);
    expect(sleeps).toHaveLength(1);
    // HTTP dates have one-second resolution
    expect(sleeps[0]).toBeGreaterThan(1000);
    expect(sleeps[0]).toBeLessThanOrEqual(3000);
  });

  it('gives up (returns the response) when Retry-After is beyond the maximum delay', async () => {
    statuses([[429, { 'retry-after': '120' }], [200]]);
    const { http, sleeps } = client({ retryMaxDelayMs: 30_000 });
    expect((await http.send({ method: 'GET', url: `${srv.url}/x` })).status).toBe(429);
    expect(sleeps).toEqual([]);
    expect(srv.seen).toHaveLength(1);
  });

  it('backs off exponentially with jitter between half and all of the step, capped', async () => {
    statuses([[503]]);
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const low = client({ maxRetries: 4 });
    expect((await low.http.send({ method: 'GET', url: `${srv.url}/x` })).status).toBe(503);
    expect(low.sleeps).toEqual([50, 100, 200, 400]);
    expect(srv.seen).toHaveLength(5);

    vi.spyOn(Math, 'random').mockReturnValue(0.999999);
    const high = client({ maxRetries: 4, retryMaxDelayMs: 300 });
    await high.http.send({ method: 'GET', url: `${srv.url}/x` });
    expect(high.sleeps).toEqual([100, 200, 300, 300]);

    vi.restoreAllMocks();
    const real = client({ maxRetries: 3 });
    await real.http.send({ method: 'GET', url: `${srv.url}/x` });
    real.sleeps.forEach((ms, i) => {
      const step = 100 * 2 ** i;
      expect(ms).toBeGreaterThanOrEqual(step / 2);
      expect(ms).toBeLessThanOrEqual(step);
    });
    expect(real.sleeps).toHaveLength(3);
  });

  it('does not retry a POST the server answered, unless it is marked idempotent', async () => {
    statuses([[503, { 'retry-after': '0' }], [200]]);
    const { http, sleeps } = client();
    expect((await http.send({ method: 'POST', url: `${srv.url}/x`, body: '{}' })).status).toBe(503);
    expect(srv.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);

    statuses([[503, { 'retry-after': '0' }], [200]]);
    expect((await http.send({ method: 'POST', url: `${srv.url}/x`, body: '{}', idempotent: true })).status).toBe(200);
    expect(srv.seen).toHaveLength(2);
    expect(srv.seen[1]!.body).toBe('{}');
  });
});

describe('connection errors', () => {
  it('does not retry a POST whose connection broke after it reached the server, but retries a GET', async () => {
    srv.reset((_r, res) => res.socket?.destroy());
    const { http } = client({ maxRetries: 2 });
    const err = await failure(http.send({ method: 'POST', url: `${srv.url}/x`, body: 'a=1' }));
    expect(err.exitCode).toBe(Exit.Server);
    expect(err.message).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:\d+: /);
    expect(srv.seen).toHaveLength(1);

    srv.reset((_r, res) => res.socket?.destroy());
    await failure(http.send({ method: 'GET', url: `${srv.url}/x` }));
    expect(srv.seen).toHaveLength(3);
  });

  it('a connection closed in the middle of the answer is a reset, told at once; a GET is retried', async () => {
    let n = 0;
    srv.reset((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      if (n++ === 0) setTimeout(() => res.socket!.destroy(), 20);
      else res.end(`${' '.repeat(100 - 11 - 5)}true}`);
    });
    const { http } = client({ timeoutMs: 60_000 });
    const started = performance.now();
    expect((await http.send({ method: 'GET', url: `${srv.url}/x` })).json()).toEqual({ partial: true });
    expect(srv.seen).toHaveLength(2);
    n = 0;
    const err = await failure(http.send({ method: 'POST', url: `${srv.url}/x`, body: '{}' }));
    expect(err.message).toBe(`cannot reach ${srv.url}: connection reset`);
    // Not the 60 s timeout: half of it is a bound no busy machine misses.
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('retries a POST on ECONNREFUSED (it surely never reached a server), then fails with exit 9', async () => {
    const port = await closedPort();
    const { http, sleeps } = client({ maxRetries: 3 });
    const err = await failure(http.send({ method: 'POST', url: `http://127.0.0.1:${port}/auth/v1/token`, body: 'x=1' }));
    expect(sleeps).toHaveLength(3);
    expect(err.exitCode).toBe(Exit.Server);
    expect(err.message).toBe(`cannot reach http://127.0.0.1:${port}: connection refused`);
    expect(err.hint).toMatch(/is the server running/);
  });

  it('names where the URL came from in the hint', async () => {
    const port = await closedPort();
    const { http } = client({ maxRetries: 0, urlSource: 'AGCTL_BASE_URL' });
    expect((await failure(http.send({ method: 'GET', url: `http://127.0.0.1:${port}/x` }))).hint).toBe(
      'is the server running? check AGCTL_BASE_URL',
    );
    expect((await failure(http.send({ method: 'GET', url: `http://127.0.0.1:${port}/x`, urlSource: 'the listener URL' }))).hint).toBe(
      'is the server running? check the listener URL',
    );
    expect((await failure(client({ maxRetries: 0 }).http.send({ method: 'GET', url: `http://127.0.0.1:${port}/x` }))).hint).toBe(
      'is the server running? check --base-url',
    );
  });

  it('says an https URL reached a plain-HTTP port, without OpenSSL internals', async () => {
    srv.reset((_r, res) => sendJson(res, 200, {}));
    const { http } = client({ maxRetries: 2 });
    const host = new URL(srv.url).host;
    const err = await failure(http.send({ method: 'GET', url: `https://${host}/x` }));
    expect(err.exitCode).toBe(Exit.Server);
    expect(err.message).toBe(`TLS handshake with ${host} failed: the server does not speak TLS on that port (is it http://?)`);
    expect(err.hint).toBe('check --base-url: a server that speaks plain HTTP needs an http:// URL');
    expect(`${err.message} ${err.hint}`).not.toMatch(/ssl3|openssl|routines/i);
    await http.close();
  });

  it('tells of retries after 429 and 503 too', async () => {
    statuses([[503], [429], [200]]);
    const notices: string[] = [];
    const { http } = client({ onRetry: (l) => notices.push(l) });
    expect((await http.send({ method: 'GET', url: `${srv.url}/x` })).status).toBe(200);
    expect(notices).toEqual([
      `${srv.url}: HTTP 503 Service Unavailable; retrying (2/4)…`,
      `${srv.url}: HTTP 429 Too Many Requests; retrying (3/4)…`,
    ]);
    await http.close();
  });
});

describe('connections', () => {
  it('destroy() abandons a request in flight at once: no retry, no second request', async () => {
    srv.reset(() => {}); // never answers
    const { http, sleeps } = client({ timeoutMs: 5000 });
    const sent = http.send({ method: 'GET', url: `${srv.url}/x` });
    while (srv.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    const started = performance.now();
    await http.destroy();
    const err = await failure(sent);
    expect(err.message).toBe(`cannot reach ${srv.url}: the request was abandoned`);
    expect(performance.now() - started).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 50));
    expect([srv.seen.length, sleeps]).toEqual([1, []]);
  });

  it('gives a repeated answer header as the list of its values', async () => {
    srv.reset((_r, res) => {
      res.setHeader('vary', ['accept', 'origin']);
      sendJson(res, 200, {});
    });
    const { http } = client();
    const res = await http.send({ method: 'GET', url: `${srv.url}/x` });
    expect([res.headers.vary, res.headers['content-type']]).toEqual([['accept', 'origin'], 'application/json']);
  });
});

describe('redirects', () => {
  it('are never followed, with or without Authorization', async () => {
    other.reset((_r, res) => sendJson(res, 200, { stolen: true }));
    for (const status of [301, 302, 307, 308]) {
      srv.reset((_r, res) => {
        res.writeHead(status, { location: `${other.url}/api/v1/x` });
        res.end();
      });
      const { http } = client();
      const res = await http.send({ method: 'GET', url: `${srv.url}/api/v1/x`, headers: { authorization: 'Bearer secret-token-1' } });
      expect(res.status).toBe(status);
      const api = new ApiClient(srv.url, http, new StaticToken('secret-token-1'));
      const err = await failure(api.call('GET', '/api/v1/x'));
      expect(err.exitCode).toBe(Exit.Server);
      expect(err.message).toContain(`the server redirected to ${other.url}/api/v1/x (HTTP ${status})`);
    }
    expect(other.seen).toHaveLength(0);
  });
});

describe('--debug logs', () => {
  it('show requests and responses with secrets redacted', async () => {
    srv.reset((_r, res) =>
      sendJson(
        res,
        200,
        { access_token: 'agt_response_secret', token_type: 'Bearer', expires_in: 60 },
        { 'set-cookie': 'sid=cookie-secret' },
      ),
    );
    const lines: string[] = [];
    const http = new HttpClient({ debug: (l) => lines.push(l) });
    await http.send({
      method: 'POST',
      url: `${srv.url}/auth/v1/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer header-secret' },
      body: 'grant_type=client_credentials&client_id=bot&client_secret=form-secret',
    });
    await http.close();
    const log = lines.join('\n');
    expect(log).toContain(`> POST ${srv.url}/auth/v1/token`);
    expect(log).toContain('> authorization: Bearer <redacted>');
    expect(log).toContain('grant_type=client_credentials&client_id=bot&client_secret=<redacted>');
    expect(log).toContain('< 200');
    expect(log).toContain('"access_token":"<redacted>"');
    for (const secret of ['header-secret', 'form-secret', 'agt_response_secret', 'cookie-secret']) expect(log).not.toContain(secret);
  });
});

describe('retryAfterMs', () => {
  it('parses seconds and HTTP dates, and ignores junk', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterMs('5', now)).toBe(5000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs(['7', '9'], now)).toBe(7000);
    expect(retryAfterMs('Tue, 01 Jan 2030 00:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('Mon, 31 Dec 2029 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-3', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

// Tests that mostly wait (time-outs, an idle connection), side by side.
describe.concurrent('waits', () => {
  it('times out per request and says how many attempts it made and how long they took in all', async () => {
    slow.reset(() => {}); // never answers
    const notices: string[] = [];
    const { http, sleeps } = client({ timeoutMs: 200, maxRetries: 2, onRetry: (l) => notices.push(l) });
    const started = Date.now();
    const err = await failure(http.send({ method: 'GET', url: `${slow.url}/slow` }));
    const took = (Date.now() - started) / 1000;
    const m = /^cannot reach (\S+): timed out: 3 attempts of 0\.2 s each, (\d+(?:\.\d)?) s in all$/.exec(err.message);
    expect(m, err.message).not.toBeNull();
    expect(m![1]).toBe(slow.url);
    expect(Math.abs(Number(m![2]) - took)).toBeLessThanOrEqual(0.2);
    expect(Number(m![2])).toBeGreaterThanOrEqual(0.6);
    expect(err.exitCode).toBe(Exit.Server);
    expect(slow.seen).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(notices).toEqual([`${slow.url}: timed out after 0.2 s; retrying (2/3)…`, `${slow.url}: timed out after 0.2 s; retrying (3/3)…`]);
    expect(took).toBeLessThan(5);
    await http.close();
  });

  it('a request not retried says the one timeout', async () => {
    slowPost.reset(() => {}); // never answers
    const notices: string[] = [];
    const { http } = client({ timeoutMs: 200, onRetry: (l) => notices.push(l) });
    // A POST that may have reached the server is not sent again.
    const err = await failure(http.send({ method: 'POST', url: `${slowPost.url}/slow`, body: '{}' }));
    expect(err.message).toBe(`cannot reach ${slowPost.url}: timed out after 0.2 s`);
    expect(notices).toEqual([]);
    await http.close();
  });

  it("does not reuse an idle connection past the server's Keep-Alive timeout", async () => {
    const connections = new Set<unknown>();
    idle.reset((_r, res, raw) => {
      connections.add(raw.socket);
      // The connection stays open 2 s; a client reusing it after 1 s risks the server closing it under the request.
      sendJson(res, 200, {}, { 'keep-alive': 'timeout=2' });
    });
    const { http } = client();
    await http.send({ method: 'POST', url: `${idle.url}/a`, body: '{}' });
    await new Promise((r) => setTimeout(r, 1100));
    await http.send({ method: 'POST', url: `${idle.url}/b`, body: '{}' });
    await http.close();
    expect(connections.size).toBe(2);
  });
});

describe('the size of an answer', () => {
  it('a body past the cap is an error at once (exit 9, response_too_large), never retried, the connection closed', async () => {
    srv.reset((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('x'.repeat(3000));
      res.write('x'.repeat(3000));
      // Never ended: the client must stop by itself.
    });
    const { http } = client({ maxResponseBytes: 4096 });
    const err = await failure(http.send({ method: 'GET', url: `${srv.url}/big?q=1` }));
    expect([err.exitCode, err.code, err.message]).toEqual([
      Exit.Server,
      'response_too_large',
      `the answer from ${srv.url}/big is too large: it goes on past 4096 bytes, and agctl reads at most 4 KiB`,
    ]);
    expect(srv.seen).toHaveLength(1);
  });

  it('an answer announcing more than the cap is refused unread; at the cap it is read; a request may set its own cap', async () => {
    srv.reset((_r, res) => sendJson(res, 200, { s: 'x'.repeat(5000) }));
    const body = JSON.stringify({ s: 'x'.repeat(5000) });
    const { http } = client({ maxResponseBytes: body.length });
    expect((await http.send({ method: 'GET', url: `${srv.url}/ok` })).body.length).toBe(body.length);
    const err = await failure(
      http.send({ method: 'GET', url: `${srv.url}/ok`, maxResponseBytes: { bytes: 1000, hint: 'a hint of its own' } }),
    );
    expect([err.message, err.hint]).toEqual([
      `the answer from ${srv.url}/ok is too large: it announces ${body.length} bytes (Content-Length), and agctl reads at most 1000 bytes`,
      'a hint of its own',
    ]);
  });

  it('the default cap is 32 MiB an answer, 256 MiB in all', () => {
    expect([new HttpClient().maxResponseBytes, new HttpClient().maxTotalBytes]).toEqual([32 * 1024 * 1024, 256 * 1024 * 1024]);
  });
});

describe('networkFailure', () => {
  const coded = (code: string, cause?: unknown) => Object.assign(new Error(`boom ${code}`), { code, cause });
  it.each([
    [coded('ECONNREFUSED'), 'refused'],
    [coded('ECONNRESET'), 'reset'],
    [coded('UND_ERR_SOCKET'), 'reset'],
    [coded('EPIPE'), 'reset'],
    [coded('UND_ERR_CONNECT_TIMEOUT'), 'timed out'],
    [coded('UND_ERR_HEADERS_TIMEOUT'), 'timed out'],
    [coded('ETIMEDOUT'), 'timed out'],
    [coded('EHOSTUNREACH'), 'unreachable'],
    [coded('ENOTFOUND'), 'DNS'],
    [coded('ERR_SSL_WRONG_VERSION_NUMBER'), 'TLS'],
    [coded('DEPTH_ZERO_SELF_SIGNED_CERT'), 'TLS certificate'],
    [new Error('fetch failed', { cause: coded('ECONNREFUSED') }), 'refused'],
    [coded('HPE_INVALID_STATUS'), 'not HTTP'],
    [Object.assign(new Error('Response does not match the HTTP/1.1 protocol'), { name: 'HTTPParserError', code: undefined }), 'not HTTP'],
    [coded('EHOSTDOWN'), 'unreachable'],
    [coded('ENETDOWN'), 'unreachable'],
    [coded('ECONNABORTED'), 'reset'],
    [coded('EAI_FAIL'), 'DNS'],
    [coded('EAI_NODATA'), 'DNS'],
    [coded('EAI_NONAME'), 'DNS'],
    [coded('SOMETHING_NEW'), 'other'],
  ])('names %s in a word: %s', (err, word) => {
    expect(networkFailure(err).word).toBe(word);
    // Never the library's message or code.
    expect(networkFailure(err).detail).not.toMatch(/boom|[A-Z]{2,}_|\bE[A-Z]{4,}/);
  });

  it('an error of no known kind is a plain phrase', () => {
    expect(networkFailure(coded('SOMETHING_NEW'))).toEqual({ kind: 'other', word: 'other', detail: 'the connection failed' });
  });

  it("a request failing in a way of no known kind says so in words; the library's message is in the --debug log only", async () => {
    const lines: string[] = [];
    const http = new HttpClient({ debug: (l) => lines.push(l), maxRetries: 0 });
    // node:http refuses the header value before connecting (ERR_INVALID_CHAR): no kind of network failure.
    const err = await http
      .send({ method: 'POST', url: 'http://127.0.0.1:1/x', headers: { 'x-a': 'a\nb' }, body: '{}', idempotent: false })
      .then(
        () => undefined,
        (e: CliError) => e,
      );
    await http.close();
    expect([err?.message, err?.hint]).toEqual([
      'cannot reach http://127.0.0.1:1: the connection failed',
      'check --base-url; --debug shows the error',
    ]);
    expect(lines.at(-1)).toMatch(/^< the connection failed \(Invalid character in header content \["x-a"\]\) after \d+ ms$/);
  });
});
