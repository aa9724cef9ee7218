// Inbound webhooks over real HTTP against the embedded server: the seeded
// listeners, the 64 KiB limit, the embedded management routes, concurrency of
// duplicates, retention, and durability across an abrupt stop and a SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { answerProblem, itemProblem } from '../../../src/api/shape.js';
import { CREATE_LISTENER_REQUEST, LISTENER, LIST_RUNS_RESPONSE, RUN } from '../../../src/api/webhook-listeners.js';
import { EmbeddedServer } from '../../../src/server/app.js';
import { pruneWebhookEvents } from '../../../src/server/webhooks/ingest.js';
import { createWebhookJwt, hmacSignature } from '../../../src/webhook/sign.js';
import { BIN, baseEnv, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

interface Sent {
  status: number;
  body: any;
}

interface SendOpts {
  id?: string;
  ts?: number;
  body?: string | Buffer;
  secret?: string;
  headers?: Record<string, string>;
}

/** Sends a signed HMAC webhook to `url`. */
async function sendHmac(url: string, secret: string, nowMs: number, o: SendOpts = {}): Promise<Sent & { id: string }> {
  const id = o.id ?? randomUUID();
  const ts = o.ts ?? Math.floor(nowMs / 1000);
  const body = typeof o.body === 'string' ? Buffer.from(o.body) : (o.body ?? Buffer.from(JSON.stringify({ n: 1, id })));
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-timestamp': String(ts),
      'webhook-event-id': id,
      'webhook-signature': hmacSignature(o.secret ?? secret, ts, id, body),
      ...o.headers,
    },
    body,
  });
  return { status: res.status, body: await res.json(), id };
}

/** A raw request with a chunked body (no Content-Length), so the limit must be enforced while streaming. */
function sendChunked(url: string, headers: Record<string, string>, chunks: Buffer[]): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', (err) =>
      (err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err),
    );
    for (const c of chunks) req.write(c);
    req.end();
  });
}

/** A JSON document of exactly `size` bytes. */
const jsonOfSize = (size: number) => Buffer.from(`{"pad":"${'x'.repeat(size - 10)}"}`);

describe('inbound webhooks (embedded server over HTTP)', async () => {
  const s = await startTestServer({ allowInsecureJwks: true });
  const w = s.demo.webhooks;
  const hmacUrl = s.baseUrl + w.hmac.path;
  const now = () => s.clock.now();
  /** Runs `fn` while every run insert fails, as a failing disk would make it. */
  const withRunInsertsFailing = async <T>(fn: () => Promise<T>): Promise<T> => {
    const db = s.server.store.db;
    db.exec(`CREATE TRIGGER fail_runs BEFORE INSERT ON webhook_runs BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    try {
      return await fn();
    } finally {
      db.exec('DROP TRIGGER fail_runs');
    }
  };

  it('the ready file demo has the listeners, the HMAC secret and the demo JWT key', () => {
    expect(w.hmac.path).toBe(`/api/v1/webhooks/incoming/${w.hmac.listenerId}`);
    expect(w.hmac.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(w.jwt.privateJwk).toMatchObject({ kty: 'EC', kid: w.jwt.kid, alg: 'ES256' });
    expect(w.restricted.allowedCidrs).toContain('203.0.113.0/24');
    // The database never holds the secret in plain text.
    const row = s.server.store.db.prepare('SELECT secret_sealed FROM webhook_listeners WHERE id = ?').get(w.hmac.listenerId) as {
      secret_sealed: string;
    };
    expect(row.secret_sealed).not.toContain(w.hmac.secret);
    const meta = s.server.store.db.prepare("SELECT value FROM meta WHERE key = 'seed:webhooks'").get() as { value: string };
    expect(meta.value).not.toContain(w.hmac.secret);
    expect(meta.value).not.toContain(w.jwt.privateJwk.d);
  });

  it('accepts a signed event, runs the automation with the body as context, answers a replay with 409', async () => {
    const body = JSON.stringify({ ticket: 'INC-1', priority: 'high' });
    const first = await sendHmac(hmacUrl, w.hmac.secret, now(), { body });
    expect(first).toMatchObject({
      status: 200,
      body: { status: 200, eventId: first.id, automationRan: true, reason: 'accepted; automation run started' },
    });
    expect(first.body.runId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const replay = await sendHmac(hmacUrl, w.hmac.secret, now(), { body, id: first.id });
    expect(replay).toMatchObject({ status: 409, body: { status: 409, eventId: first.id } });
    expect(replay.body.reason).toMatch(/duplicate event ID/);
    const runs = await s.api(`/_embedded/v1/webhook_listeners/${w.hmac.listenerId}/runs?event_id=${first.id}`);
    expect(runs.status).toBe(200);
    expect(runs.body.total).toBe(1);
    expect(runs.body.runs[0]).toMatchObject({
      id: first.body.runId,
      eventId: first.id,
      context: { trigger: { ticket: 'INC-1', priority: 'high' } },
    });
  });

  it('answers every failure with a small JSON body {status, reason, eventId}', async () => {
    const bad = await sendHmac(hmacUrl, w.hmac.secret, now(), { secret: 'wrong' });
    expect(bad.status).toBe(401);
    expect(Object.keys(bad.body).sort()).toEqual(['eventId', 'reason', 'status']);
    expect(bad.body.reason).toMatch(/^signature mismatch: computed over \d+ bytes/);
    // The server's clock held still for this request: a second that ends between the send and the check would make it 302 s.
    const held = vi.spyOn(s.clock, 'now').mockReturnValue(now());
    const stale = await sendHmac(hmacUrl, w.hmac.secret, now() - 301_000).finally(() => held.mockRestore());
    expect(stale).toMatchObject({ status: 400, body: { status: 400, reason: expect.stringMatching(/301 s behind/) } });
    const unknown = await sendHmac(`${s.baseUrl}/api/v1/webhooks/incoming/nope`, w.hmac.secret, now());
    expect(unknown).toMatchObject({ status: 404, body: { status: 404, reason: 'no webhook listener nope' } });
    const get = await fetch(hmacUrl);
    expect(get.status).toBe(405);
  });

  it('refuses a loopback source on the restricted listener with 403 before anything else', async () => {
    const url = s.baseUrl + w.restricted.path;
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'webhook-timestamp': 'soon' },
      body: 'x'.repeat(100 * 1024),
    });
    expect(r.status).toBe(403);
    expect(await r.json()).toEqual({
      status: 403,
      reason: "source address 127.0.0.1 is not in the listener's allowed ranges",
      eventId: null,
    });
  });

  it('refuses an IPv4-mapped range with an IPv4 prefix, and a stored one admits nobody rather than every IPv4 source', async () => {
    const created = await s.api('/_embedded/v1/webhook_listeners', {
      method: 'POST',
      json: { authMethod: 'HMAC', allowedCidrs: ['::ffff:10.0.0.0/8'] },
    });
    expect(created.status).toBe(400);
    expect(created.body.message).toMatch(/IPv4-mapped address with a prefix under 96/);
    // A listener stored before the range was refused: ::ffff:10.0.0.0/8 is ::/8, which holds 127.0.0.1 as ::ffff:127.0.0.1.
    const l = (
      await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC', allowedCidrs: ['203.0.113.0/24'] } })
    ).body.listener;
    s.server.store.db
      .prepare('UPDATE webhook_listeners SET allowed_cidrs = ? WHERE id = ?')
      .run(JSON.stringify(['::ffff:10.0.0.0/8']), l.id);
    const r = await sendHmac(l.url, l.secret, now());
    expect(r).toMatchObject({ status: 403, body: { reason: "source address 127.0.0.1 is not in the listener's allowed ranges" } });
  });

  it('takes exactly 64 KiB and refuses one byte more with 413, with or without Content-Length', async () => {
    const exact = jsonOfSize(65536);
    expect(exact.length).toBe(65536);
    expect((await sendHmac(hmacUrl, w.hmac.secret, now(), { body: exact })).status).toBe(200);
    const over = jsonOfSize(65537);
    const r = await sendHmac(hmacUrl, w.hmac.secret, now(), { body: over });
    expect(r).toMatchObject({ status: 413, body: { status: 413, reason: 'body is larger than 65536 bytes', eventId: r.id } });
    const id = randomUUID();
    const ts = Math.floor(now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'webhook-timestamp': String(ts),
      'webhook-event-id': id,
      'webhook-signature': hmacSignature(w.hmac.secret, ts, id, over),
    };
    const chunked = await sendChunked(hmacUrl, headers, [over.subarray(0, 40_000), over.subarray(40_000)]);
    expect(chunked).toMatchObject({ status: 413, body: { status: 413 } });
    const okId = randomUUID();
    const okChunks = await sendChunked(
      hmacUrl,
      { ...headers, 'webhook-event-id': okId, 'webhook-signature': hmacSignature(w.hmac.secret, ts, okId, exact) },
      [exact.subarray(0, 30_000), exact.subarray(30_000)],
    );
    expect(okChunks.status).toBe(200);
  });

  it('accepts a JWT signed with the demo key (key set served by the server itself)', async () => {
    const jwks = await fetch(s.baseUrl + w.jwt.jwksPath);
    const set = (await jwks.json()) as { keys: any[] };
    expect(set.keys).toHaveLength(1);
    expect(set.keys[0]).toMatchObject({ kid: w.jwt.kid, kty: 'EC' });
    expect(set.keys[0].d).toBeUndefined();
    const send = async (aud: string, tenant = s.baseUrl) => {
      const id = randomUUID();
      const body = Buffer.from(JSON.stringify({ via: 'jwt' }));
      const ts = Math.floor(now() / 1000);
      const jwt = await createWebhookJwt({
        key: w.jwt.privateJwk,
        alg: 'ES256',
        kid: w.jwt.kid,
        tenant,
        endpointUrl: aud,
        eventId: id,
        body,
        nowSeconds: ts,
      });
      const r = await fetch(s.baseUrl + w.jwt.path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-timestamp': String(ts),
          'webhook-event-id': id,
          authorization: `Bearer ${jwt}`,
        },
        body,
      });
      return { status: r.status, body: (await r.json()) as any };
    };
    expect(await send(s.baseUrl + w.jwt.path)).toMatchObject({ status: 200, body: { automationRan: true } });
    expect((await send(s.baseUrl + w.hmac.path)).body.reason).toBe(
      `JWT aud is "${s.baseUrl + w.hmac.path}", not the endpoint URL "${s.baseUrl + w.jwt.path}"`,
    );
    expect((await send(s.baseUrl + w.jwt.path, 'https://other.example.com')).body.reason).toMatch(/sub is not the tenant base URL/);
  });

  it('refuses a body with a byte order mark (400), and lists a run stored with one by an earlier version', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"bom":1}')]);
    const r = await sendHmac(hmacUrl, w.hmac.secret, now(), { body: bom });
    expect(r).toMatchObject({ status: 400, body: { status: 400, reason: expect.stringMatching(/byte order mark/) } });
    // A run recorded before step 2 refused such bodies: the listing still answers, with the document.
    const legacyEvent = randomUUID();
    // Stored as the listener's next run (numbered after its last one).
    s.server.store.db
      .prepare(
        `INSERT INTO webhook_runs (seq, id, listener_id, automation_id, event_id, context, created_at)
         SELECT IFNULL((SELECT MAX(seq) FROM webhook_runs WHERE seq > l.num * 4294967296 AND seq < (l.num + 1) * 4294967296), l.num * 4294967296) + 1,
                ?, l.id, l.automation_id, ?, ?, ? FROM webhook_listeners l WHERE l.id = ?`,
      )
      .run(randomUUID(), legacyEvent, bom, now(), w.hmac.listenerId);
    const runs = await s.api(`/_embedded/v1/webhook_listeners/${w.hmac.listenerId}/runs?limit=1000`);
    expect(runs.status).toBe(200);
    expect(runs.body.runs.find((x: any) => x.eventId === legacyEvent).context).toEqual({ trigger: { bom: 1 } });
  });

  it('refuses a body with a Content-Encoding other than identity (400), even when its bytes are plain JSON', async () => {
    const body = '{"encoded":false}';
    for (const coding of ['gzip', 'br', 'identity, gzip']) {
      const r = await sendHmac(hmacUrl, w.hmac.secret, now(), { body, headers: { 'content-encoding': coding } });
      expect(r).toMatchObject({
        status: 400,
        body: {
          status: 400,
          eventId: r.id,
          reason: `Content-Encoding "${coding}" is not accepted: the body must be sent as is, not encoded`,
        },
      });
      // Nothing was recorded: the same event without the header is new.
      expect((await sendHmac(hmacUrl, w.hmac.secret, now(), { body, id: r.id })).status).toBe(200);
    }
    expect((await sendHmac(hmacUrl, w.hmac.secret, now(), { body, headers: { 'content-encoding': 'Identity' } })).status).toBe(200);
  });

  it('lists a run whose body nests too deep to be sent back as JSON: as its text, not a 500', async () => {
    const l = (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener;
    // Valid JSON within 64 KiB, accepted at step 2, but deeper than JSON.stringify can recurse.
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const r = await sendHmac(l.url, l.secret, now(), { body: deep });
    expect(r.status).toBe(200);
    const plain = await sendHmac(l.url, l.secret, now(), { body: '{"after":[[1]]}' });
    expect(plain.status).toBe(200);
    const runs = await s.api(`/_embedded/v1/webhook_listeners/${l.id}/runs`);
    expect(runs.status, JSON.stringify(runs.body)).toBe(200);
    expect(runs.body.total).toBe(2);
    expect(runs.body.runs.find((x: any) => x.eventId === r.id).context).toEqual({ trigger: deep });
    expect(runs.body.runs.find((x: any) => x.eventId === plain.id).context).toEqual({ trigger: { after: [[1]] } });
  });

  it('answers a client that shuts down its sending side right after the request (JWT: the check takes a while)', async () => {
    const id = randomUUID();
    const body = Buffer.from('{"half":"closed"}');
    const ts = Math.floor(now() / 1000);
    const jwt = await createWebhookJwt({
      key: w.jwt.privateJwk,
      alg: 'ES256',
      kid: w.jwt.kid,
      tenant: s.baseUrl,
      endpointUrl: s.baseUrl + w.jwt.path,
      eventId: id,
      body,
      nowSeconds: ts,
    });
    const head = [
      `POST ${w.jwt.path} HTTP/1.1`,
      `Host: ${new URL(s.baseUrl).host}`,
      'Content-Type: application/json',
      `Webhook-Timestamp: ${ts}`,
      `Webhook-Event-Id: ${id}`,
      `Authorization: Bearer ${jwt}`,
      `Content-Length: ${body.length}`,
    ];
    const answer = await new Promise<string>((resolve, reject) => {
      const u = new URL(s.baseUrl);
      const sock = connect(Number(u.port), u.hostname, () => sock.end(Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n'), body])));
      let text = '';
      sock.setEncoding('utf8').on('data', (d) => (text += d));
      sock.on('close', () => resolve(text));
      sock.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(JSON.parse(answer.slice(answer.indexOf('{')))).toMatchObject({ status: 200, eventId: id, automationRan: true });
  });

  it('creates listeners over the bearer-protected embedded routes', async () => {
    expect((await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' }, auth: false })).status).toBe(
      401,
    );
    const res = await s.api('/_embedded/v1/webhook_listeners', {
      method: 'POST',
      json: { authMethod: 'HMAC', allowedCidrs: ['127.0.0.0/8', '::1'] },
    });
    expect(res.status).toBe(200);
    const l = res.body.listener;
    expect(l).toMatchObject({
      authMethod: 'HMAC',
      url: `${s.baseUrl}/api/v1/webhooks/incoming/${l.id}`,
      allowedCidrs: ['127.0.0.0/8', '::1'],
      automation: { published: true, triggerEnabled: true },
    });
    expect(l.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await sendHmac(l.url, l.secret, now())).status).toBe(200);
    expect((await s.api(`/_embedded/v1/webhook_listeners/nope/runs`)).status).toBe(404);
    expect((await s.api(`/_embedded/v1/webhook_listeners/${l.id}/runs`, { auth: false })).status).toBe(401);
  });

  it('lists listeners page by page in creation order, never with a secret; a given secret is stored, not echoed', async () => {
    expect((await s.api('/_embedded/v1/webhook_listeners', { auth: false })).status).toBe(401);
    const given = 'given-secret-0123456789-abcdefghijklmnop';
    const created = await s.api('/_embedded/v1/webhook_listeners', {
      method: 'POST',
      json: { authMethod: 'HMAC', name: 'Given', secret: given },
    });
    expect(created.status).toBe(200);
    expect(created.body.listener).toMatchObject({ automation: { name: 'Given' }, runCount: 0 });
    expect(created.body.listener.secret).toBeUndefined();
    expect((await sendHmac(created.body.listener.url, given, now())).status).toBe(200);
    const row = s.server.store.db.prepare('SELECT secret_sealed FROM webhook_listeners WHERE id = ?').get(created.body.listener.id) as {
      secret_sealed: string;
    };
    expect(row.secret_sealed).not.toContain(given);

    const all: any[] = [];
    let token = '';
    for (let pages = 0; pages < 100; pages++) {
      const page = await s.api(`/_embedded/v1/webhook_listeners?page_size=2${token ? `&page_token=${token}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.list.length).toBeLessThanOrEqual(2);
      all.push(...page.body.list);
      token = page.body.nextPageToken;
      if (!token) break;
    }
    const count = s.server.store.db.prepare('SELECT COUNT(*) FROM webhook_listeners').pluck().get() as number;
    expect(all).toHaveLength(count);
    expect(new Set(all.map((l) => l.id)).size).toBe(count);
    expect(all[0]).toMatchObject({ id: w.hmac.listenerId, automation: { name: 'Demo: HMAC webhook' } });
    expect(all.find((l) => l.id === created.body.listener.id)).toMatchObject({ runCount: 1 });
    expect(JSON.stringify(all)).not.toMatch(/"secret"/);
    expect(JSON.stringify(all)).not.toContain(w.hmac.secret);
    // page_size 0 in any spelling is the default size, as on the other list routes (once a 500)
    for (const zero of ['0', '00']) {
      const r = await s.api(`/_embedded/v1/webhook_listeners?page_size=${zero}`);
      expect(r.status).toBe(200);
      expect(r.body.list.length).toBe(Math.min(count, 100));
    }

    for (const [body, re] of [
      [{ authMethod: 'HMAC', secret: 'short' }, /secret must be 32 to 512/],
      [{ authMethod: 'HMAC', secret: 'has spaces in it but is long enough to pass' }, /secret must be/],
      [{ authMethod: 'JWT', jwksUrl: `${s.baseUrl}/_embedded/v1/demo/jwks.json`, secret: given }, /secret applies to HMAC listeners only/],
      [{ authMethod: 'HMAC', name: ' ' }, /name must be a non-empty string/],
    ] as const) {
      const r = await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: body });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(re);
      expect(JSON.stringify(r.body)).not.toContain(given);
    }
    expect((await s.api('/_embedded/v1/webhook_listeners?page_token=x')).status).toBe(400);
  });

  it("numbers each listener's runs from 1 and lists them newest first, apart from other listeners' runs", async () => {
    const create = async () =>
      (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener;
    const [a, b] = [await create(), await create()];
    const sent: Record<string, string[]> = { [a.id]: [], [b.id]: [] };
    // Interleaved, and some in one group commit.
    for (let round = 0; round < 3; round++) {
      const batch = await Promise.all([a, b, a].map((l) => sendHmac(l.url, l.secret, now()).then((r) => ({ l, r }))));
      for (const { l, r } of batch) {
        expect(r.status).toBe(200);
        sent[l.id]!.push(r.id);
      }
    }
    for (const l of [a, b]) {
      const list = (await s.api(`/_embedded/v1/webhook_listeners/${l.id}/runs`)).body;
      expect(list.total).toBe(sent[l.id]!.length);
      expect(list.runs.map((r: any) => r.number)).toEqual(sent[l.id]!.map((_, i) => sent[l.id]!.length - i));
      expect(new Set(list.runs.map((r: any) => r.eventId))).toEqual(new Set(sent[l.id]));
      expect(list.runs.every((r: any) => r.listenerId === l.id)).toBe(true);
      const two = (await s.api(`/_embedded/v1/webhook_listeners/${l.id}/runs?limit=2`)).body;
      expect(two.runs.map((r: any) => r.number)).toEqual([sent[l.id]!.length, sent[l.id]!.length - 1]);
      expect(two.total).toBe(sent[l.id]!.length);
      const one = (await s.api(`/_embedded/v1/webhook_listeners/${l.id}/runs?event_id=${sent[l.id]![0]!.toUpperCase()}`)).body;
      expect(one.total).toBe(1);
      expect(one.runs[0].eventId).toBe(sent[l.id]![0]);
    }
  });

  it('refuses a listener past the largest listener number, and the others keep working', async () => {
    const t = await startTestServer({ autoClose: false });
    try {
      const l = (await t.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener;
      // As if two million listeners had been created before it.
      t.server.store.db.prepare('UPDATE webhook_listeners SET num = ? WHERE id = ?').run(2 ** 21 - 1, l.id);
      const refused = await t.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/at most 2097151 webhook listeners/);
      // The highest listener's runs stay apart from the others and exact.
      const r = await sendHmac(l.url, l.secret, Date.now());
      expect(r.status).toBe(200);
      const runs = (await t.api(`/_embedded/v1/webhook_listeners/${l.id}/runs`)).body;
      expect(runs).toMatchObject({ total: 1, runs: [{ number: 1, eventId: r.id }] });
    } finally {
      await t.close();
    }
  });

  it.each([
    [{ authMethod: 'BASIC' }, /authMethod must be "HMAC" or "JWT"/],
    [{ authMethod: 'JWT' }, /jwksUrl is required/],
    [{ authMethod: 'JWT', jwksUrl: 'http://keys.example.com/jwks.json' }, /must use https/],
    [{ authMethod: 'HMAC', jwksUrl: 'https://keys.example.com/jwks.json' }, /JWT listeners only/],
    [{ authMethod: 'HMAC', allowedCidrs: ['10.0.0.0/33'] }, /invalid prefix length/],
    [{ authMethod: 'HMAC', allowedCidrs: '10.0.0.0/8' }, /array/],
    [{ authMethod: 'HMAC', automation: { published: 'yes' } }, /automation.published must be a boolean/],
    [[], /JSON object/],
  ])('refuses a bad listener %j with 400', async (json, reason) => {
    const r = await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(reason);
  });

  // Derived from the declaration: each member sent with a value of another type is refused with its message.
  it.each(Object.entries(CREATE_LISTENER_REQUEST))(
    'refuses a listener whose %s has another type, as src/api declares it',
    async (name, member) => {
      const r = await s.api('/_embedded/v1/webhook_listeners', {
        method: 'POST',
        json: { authMethod: 'HMAC', [name]: member.kind === 'string' ? 5 : 'x' },
      });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(member.error);
    },
  );

  it('shows listeners and runs as src/api declares them, no member more', async () => {
    const created = (
      await s.api('/_embedded/v1/webhook_listeners', {
        method: 'POST',
        json: { authMethod: 'HMAC', name: 'Declared', allowedCidrs: ['127.0.0.0/8'] },
      })
    ).body.listener;
    expect(Object.keys(created)).toEqual(['id', 'url', 'authMethod', 'secret', 'allowedCidrs', 'automation', 'runCount', 'createdAt']);
    await sendHmac(created.url, created.secret, now());
    const { list } = (await s.api('/_embedded/v1/webhook_listeners')).body;
    expect(list.length).toBeGreaterThan(1);
    for (const l of list) {
      expect(itemProblem(LISTENER, l, 'a listener')).toBeUndefined();
      expect(Object.keys(l).filter((k) => !Object.hasOwn(LISTENER, k))).toEqual([]);
    }
    const runs = (await s.api(`/_embedded/v1/webhook_listeners/${created.id}/runs`)).body;
    expect(runs.total).toBe(1);
    expect(answerProblem(LIST_RUNS_RESPONSE, runs)).toBeUndefined();
    expect(Object.keys(runs.runs[0])).toEqual(Object.keys(RUN));
  });

  it.each([
    [{ published: false, triggerEnabled: true }, 'the automation is not published'],
    [{ published: true, triggerEnabled: false }, 'the automation trigger is disabled'],
  ])('records the event but runs nothing when the automation is %j', async (automation, why) => {
    const l = (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC', automation } })).body.listener;
    expect(l.automation).toMatchObject(automation);
    const r = await sendHmac(l.url, l.secret, now());
    expect(r).toMatchObject({ status: 200, body: { status: 200, automationRan: false, reason: `accepted; automation not run: ${why}` } });
    expect(r.body.runId).toBeUndefined();
    expect((await sendHmac(l.url, l.secret, now(), { id: r.id })).status).toBe(409);
    expect((await s.api(`/_embedded/v1/webhook_listeners/${l.id}/runs`)).body).toEqual({ runs: [], total: 0 });
  });

  it('a JWT listener fetches a remote JWKS over loopback http when insecure JWKS are allowed', async () => {
    const jwksUrl = s.baseUrl + w.jwt.jwksPath;
    const l = (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'JWT', jwksUrl } })).body.listener;
    expect(l).toMatchObject({ authMethod: 'JWT', jwksUrl });
    expect(l.secret).toBeUndefined();
    const id = randomUUID();
    const body = Buffer.from('{"remote":true}');
    const ts = Math.floor(now() / 1000);
    const jwt = await createWebhookJwt({
      key: w.jwt.privateJwk,
      alg: 'ES256',
      kid: w.jwt.kid,
      tenant: s.baseUrl,
      endpointUrl: l.url,
      eventId: id,
      body,
      nowSeconds: ts,
    });
    const headers = {
      'content-type': 'application/json',
      'webhook-timestamp': String(ts),
      'webhook-event-id': id,
      authorization: `Bearer ${jwt}`,
    };
    const r = await fetch(l.url, { method: 'POST', headers, body });
    expect(r.status).toBe(200);
    const again = await fetch(l.url, { method: 'POST', headers, body });
    expect(again.status).toBe(409);
  });

  it('an event whose record cannot be committed is answered 500 and is not a duplicate when sent again', async () => {
    const l = (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener;
    const failed = await withRunInsertsFailing(() => sendHmac(l.url, l.secret, now()));
    expect(failed.status).toBe(500);
    // The event record rolled back with the run: the same event is new, once.
    expect((await sendHmac(l.url, l.secret, now(), { id: failed.id })).status).toBe(200);
    expect((await sendHmac(l.url, l.secret, now(), { id: failed.id })).status).toBe(409);
    const logged = s.server.store.db
      .prepare("SELECT COUNT(*) FROM webhook_events WHERE event = unhex(replace(?, '-', ''))")
      .pluck()
      .get(failed.id);
    expect(logged).toBe(1);
  });

  it('a failed commit that took over an expired event ID leaves it expired', async () => {
    const l = (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener;
    const first = await sendHmac(l.url, l.secret, now());
    expect(first.status).toBe(200);
    s.clock.advance(7 * 86400_000 + 1000);
    try {
      expect((await withRunInsertsFailing(() => sendHmac(l.url, l.secret, now(), { id: first.id }))).status).toBe(500);
      expect((await sendHmac(l.url, l.secret, now(), { id: first.id })).status).toBe(200);
      expect((await sendHmac(l.url, l.secret, now(), { id: first.id })).status).toBe(409);
    } finally {
      s.clock.offsetMs = 0;
    }
  });

  it('100 simultaneous sends of one event ID: exactly one 200, 99 409s, one run', async () => {
    const l = (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener;
    const id = randomUUID();
    const body = JSON.stringify({ burst: true });
    const results = await Promise.all(Array.from({ length: 100 }, () => sendHmac(l.url, l.secret, now(), { id, body })));
    const count = (st: number) => results.filter((r) => r.status === st).length;
    expect({ ok: count(200), dup: count(409) }).toEqual({ ok: 1, dup: 99 });
    const runs = await s.api(`/_embedded/v1/webhook_listeners/${l.id}/runs`);
    expect(runs.body.total).toBe(1);
    expect(runs.body.runs[0].eventId).toBe(id);
  });

  it('keeps event records for 7 days, then prunes them', async () => {
    const l = (await s.api('/_embedded/v1/webhook_listeners', { method: 'POST', json: { authMethod: 'HMAC' } })).body.listener;
    const first = await sendHmac(l.url, l.secret, now());
    expect(first.status).toBe(200);
    const count = () =>
      (
        s.server.store.db
          .prepare('SELECT COUNT(*) AS n FROM webhook_events WHERE listener = (SELECT num FROM webhook_listeners WHERE id = ?)')
          .get(l.id) as { n: number }
      ).n;
    s.clock.advance(7 * 86400_000 - 60_000);
    expect((await sendHmac(l.url, l.secret, now(), { id: first.id })).status).toBe(409);
    expect(pruneWebhookEvents(s.server.store, now())).toBe(0);
    s.clock.advance(61_000);
    expect(pruneWebhookEvents(s.server.store, now())).toBeGreaterThanOrEqual(1);
    expect(count()).toBe(0);
    // After retention the same event ID is a new event.
    expect((await sendHmac(l.url, l.secret, now(), { id: first.id })).status).toBe(200);
    expect(count()).toBe(1);
    s.clock.offsetMs = 0;
  });
});

describe('a server without --allow-insecure-jwks', async () => {
  const s = await startTestServer();
  it('refuses an http JWKS URL, yet its seeded JWT listener works (its key set is in-process)', async () => {
    const r = await s.api('/_embedded/v1/webhook_listeners', {
      method: 'POST',
      json: { authMethod: 'JWT', jwksUrl: `${s.baseUrl}/_embedded/v1/demo/jwks.json` },
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/--allow-insecure-jwks/);
    const w = s.demo.webhooks;
    const id = randomUUID();
    const body = Buffer.from('{}');
    const ts = Math.floor(s.clock.now() / 1000);
    const url = s.baseUrl + w.jwt.path;
    const jwt = await createWebhookJwt({
      key: w.jwt.privateJwk,
      alg: 'ES256',
      kid: w.jwt.kid,
      tenant: s.baseUrl,
      endpointUrl: url,
      eventId: id,
      body,
      nowSeconds: ts,
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-timestamp': String(ts),
        'webhook-event-id': id,
        authorization: `Bearer ${jwt}`,
      },
      body,
    });
    expect(res.status).toBe(200);
  });
});

describe('durability of accepted events', () => {
  it('survives an abrupt stop (store never closed) and a reopen on the same data directory', async () => {
    const dir = tempDir('agctl-wh-durable-');
    const a = new EmbeddedServer({ dataDir: dir });
    const baseA = await a.listen();
    const w = (a.demo as any).webhooks;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await sendHmac(baseA + w.hmac.path, w.hmac.secret, Date.now());
      expect(r.status).toBe(200);
      ids.push(r.id);
    }
    // Abrupt: drop the connections and the listener, never call close() (the database stays open, uncheckpointed).
    a.http.closeAllConnections();
    a.http.close();
    const b = new EmbeddedServer({ dataDir: dir });
    try {
      const baseB = await b.listen();
      const wb = (b.demo as any).webhooks;
      expect(wb.hmac).toEqual(w.hmac);
      for (const id of ids) expect((await sendHmac(baseB + wb.hmac.path, wb.hmac.secret, Date.now(), { id })).status).toBe(409);
      expect((await sendHmac(baseB + wb.hmac.path, wb.hmac.secret, Date.now())).status).toBe(200);
    } finally {
      await b.close();
      a.store.close();
    }
  });

  it('two servers on one data directory: an event accepted by one is a duplicate at the other, and a burst split across both has one 200', async () => {
    const dir = tempDir('agctl-wh-shared-');
    const a = new EmbeddedServer({ dataDir: dir });
    const baseA = await a.listen();
    const b = new EmbeddedServer({ dataDir: dir });
    try {
      const baseB = await b.listen();
      const w = (a.demo as any).webhooks;
      const urlA = baseA + w.hmac.path;
      const urlB = baseB + w.hmac.path;
      const first = await sendHmac(urlA, w.hmac.secret, Date.now());
      expect(first.status).toBe(200);
      expect((await sendHmac(urlB, w.hmac.secret, Date.now(), { id: first.id })).status).toBe(409);
      const second = await sendHmac(urlB, w.hmac.secret, Date.now());
      expect(second.status).toBe(200);
      expect((await sendHmac(urlA, w.hmac.secret, Date.now(), { id: second.id })).status).toBe(409);
      const id = randomUUID();
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => sendHmac(i % 2 ? urlA : urlB, w.hmac.secret, Date.now(), { id })),
      );
      const count = (st: number) => results.filter((r) => r.status === st).length;
      expect({ ok: count(200), dup: count(409) }).toEqual({ ok: 1, dup: 59 });
      const runs = b.store.db.prepare('SELECT COUNT(*) FROM webhook_runs WHERE event_id = ?').pluck().get(id);
      expect(runs).toBe(1);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('copies the write-ahead log into the database file in the background', async () => {
    const dir = tempDir('agctl-wh-ckpt-');
    const srv = new EmbeddedServer({ dataDir: dir });
    try {
      const base = await srv.listen();
      const w = (srv.demo as any).webhooks;
      const body = jsonOfSize(1024);
      for (let i = 0; i < 10; i++) {
        const batch = await Promise.all(
          Array.from({ length: 30 }, () => sendHmac(base + w.hmac.path, w.hmac.secret, Date.now(), { body })),
        );
        expect(batch.every((r) => r.status === 200)).toBe(true);
      }
      // 300 KiB of context data: only a checkpoint puts it in agctl.db (the main connection's own threshold is far higher).
      const deadline = Date.now() + 5000;
      while (statSync(join(dir, 'agctl.db')).size < 300 * 1024 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(statSync(join(dir, 'agctl.db')).size).toBeGreaterThanOrEqual(300 * 1024);
    } finally {
      await srv.close();
    }
  });

  describe('agctl serve killed with SIGKILL', () => {
    const dir = tempDir('agctl-wh-kill-');
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    });

    async function serve(readyFile: string): Promise<{ child: ChildProcess; ready: any }> {
      rmSync(readyFile, { force: true });
      const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', join(dir, 'data'), '--ready-file', readyFile, '--quiet'], {
        env: baseEnv(join(dir, 'config')) as NodeJS.ProcessEnv,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.push(child);
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d));
      const deadline = Date.now() + 15_000;
      while (!existsSync(readyFile)) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`agctl serve did not start (exit ${child.exitCode}):\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return { child, ready: JSON.parse(readFileSync(readyFile, 'utf8')) };
    }

    it('events accepted before the kill are still answered 409 after a restart', async () => {
      const first = await serve(join(dir, 'ready-1.json'));
      const w = first.ready.demo.webhooks;
      const url = first.ready.baseUrl + w.hmac.path;
      const results = await Promise.all(Array.from({ length: 25 }, () => sendHmac(url, w.hmac.secret, Date.now())));
      expect(results.every((r) => r.status === 200)).toBe(true);
      const exited = new Promise((r) => first.child.once('exit', (_code, signal) => r(signal)));
      first.child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      const second = await serve(join(dir, 'ready-2.json'));
      const w2 = second.ready.demo.webhooks;
      expect(w2.hmac.listenerId).toBe(w.hmac.listenerId);
      const url2 = second.ready.baseUrl + w2.hmac.path;
      const replays = await Promise.all(results.map((r) => sendHmac(url2, w2.hmac.secret, Date.now(), { id: r.id })));
      expect(replays.map((r) => r.status)).toEqual(results.map(() => 409));
      expect((await sendHmac(url2, w2.hmac.secret, Date.now())).status).toBe(200);
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    });
  });
});
