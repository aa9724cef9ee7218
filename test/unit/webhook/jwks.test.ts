// Remote and local key sets: URL policy, fetch over loopback, timeout, caching.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JwksError, jwksUrlProblem, loadJwks, remoteJwks, type KeyResolver } from '../../../src/webhook/jwks.js';
import { isLoopbackHost } from '../../../src/lib/net.js';
import { generateListenerKey } from '../../../src/webhook/keys.js';
import { createWebhookJwt } from '../../../src/webhook/sign.js';
import { verifyWebhook } from '../../../src/webhook/verify.js';

const key = generateListenerKey('ES256', 'remote-1');
const TENANT = 'https://t.example.com';
const URL_ = `${TENANT}/api/v1/webhooks/incoming/x`;

async function check(jwks: KeyResolver, kid = key.kid) {
  const now = Math.floor(Date.now() / 1000);
  const id = randomUUID();
  const body = Buffer.from('{}');
  const jwt = await createWebhookJwt({
    key: key.privateJwk,
    alg: 'ES256',
    kid,
    tenant: TENANT,
    endpointUrl: URL_,
    eventId: id,
    body,
    nowSeconds: now,
  });
  return verifyWebhook({
    sourceIp: '127.0.0.1',
    headers: {
      'webhook-timestamp': String(now),
      'webhook-event-id': id,
      'content-type': 'application/json',
      authorization: `Bearer ${jwt}`,
    },
    body,
    now: Date.now(),
    listener: { authMethod: 'JWT', jwks, endpointUrl: URL_, tenantBaseUrl: TENANT },
  });
}

describe('JWKS URL policy', () => {
  it.each([
    ['https://keys.example.com/jwks.json', false, null],
    ['http://keys.example.com/jwks.json', true, /must use https/],
    ['http://127.0.0.1:8080/jwks.json', false, /--allow-insecure-jwks/],
    ['http://127.0.0.1:8080/jwks.json', true, null],
    ['http://[::1]:8080/jwks.json', true, null],
    ['http://localhost/jwks.json', true, null],
    ['http://10.0.0.1/jwks.json', true, /must use https/],
    ['ftp://keys.example.com/jwks.json', true, /must use https, not ftp/],
    ['file:///etc/jwks.json', true, /must use https, not file/],
    ['https://user:pw@keys.example.com/jwks.json', false, /credentials/],
    ['not a url', true, /not a valid URL/],
  ])('%s (insecure allowed: %s)', (url, insecure, want) => {
    const p = jwksUrlProblem(url, insecure);
    if (want === null) expect(p).toBeNull();
    else expect(p).toMatch(want);
  });

  it('isLoopbackHost', () => {
    for (const h of ['localhost', '127.0.0.1', '127.9.9.9', '[::1]', '::1', '::ffff:127.0.0.1']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['10.0.0.1', 'example.com', '[::2]', 'localhost.example.com', '128.0.0.1']) expect(isLoopbackHost(h)).toBe(false);
  });

  it('remoteJwks refuses a URL the policy refuses', () => {
    expect(() => remoteJwks('http://example.com/jwks.json', { allowInsecure: true })).toThrow(JwksError);
  });
});

describe('remote JWKS over loopback', () => {
  let server: Server;
  let base = '';
  const hits: Record<string, number> = {};
  /** Body bytes handed to the socket by /huge (stops when the client closes). */
  let hugeWritten = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits[req.url!] = (hits[req.url!] ?? 0) + 1;
      if (req.url === '/huge' || req.url === '/announced') {
        // 16 MiB of a key set, chunked; /announced says 4 GB up front and sends a little.
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(req.url === '/announced' ? { 'content-length': String(4 * 1024 ** 3) } : {}),
        });
        const chunk = Buffer.alloc(64 * 1024, 'A');
        let left = req.url === '/announced' ? 1 : 256;
        res.on('close', () => (left = 0));
        res.write('{"keys":[{"kty":"EC","x":"');
        const pump = () => {
          while (left > 0) {
            left--;
            hugeWritten += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed && req.url === '/huge') res.end('"}]}');
        };
        pump();
      } else if (req.url === '/jwks.json') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(key.publicJwks));
      } else if (req.url === '/broken') {
        res.statusCode = 500;
        res.end('oops');
      } else if (req.url === '/hang') {
        // never answers
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('fetches once and caches the key set', async () => {
    const jwks = remoteJwks(`${base}/jwks.json`, { allowInsecure: true });
    expect((await check(jwks)).status).toBe(200);
    expect((await check(jwks)).status).toBe(200);
    expect(remoteJwks(`${base}/jwks.json`, { allowInsecure: true })).toBe(jwks);
    expect(hits['/jwks.json']).toBe(1);
  });

  it('loadJwks fetches a URL afresh, sharing no cached keys with the process (commands may run in-process)', async () => {
    const url = `${base}/jwks.json`;
    const shared = remoteJwks(url, { allowInsecure: true });
    const [a, b] = await Promise.all([loadJwks(url, { allowInsecure: true }), loadJwks(url, { allowInsecure: true })]);
    expect(a).not.toBe(shared);
    expect(b).not.toBe(a);
    const before = hits['/jwks.json'] ?? 0;
    expect((await check(a)).status).toBe(200);
    expect(hits['/jwks.json']).toBe(before + 1);
  });

  it('an unknown kid is 401 (refetch limited by the cooldown)', async () => {
    const jwks = remoteJwks(`${base}/jwks.json`, { allowInsecure: true });
    const r = await check(jwks, 'nobody');
    expect(r).toMatchObject({ status: 401, reason: expect.stringMatching(/unknown kid "nobody"/) });
    await check(jwks, 'nobody');
    expect(hits['/jwks.json']).toBeLessThanOrEqual(2);
  });

  it('a failing JWKS endpoint is 401 "JWKS unreachable"', async () => {
    const r = await check(remoteJwks(`${base}/broken`, { allowInsecure: true }));
    expect(r).toMatchObject({ status: 401, reason: expect.stringMatching(/^JWKS unreachable/) });
  });

  it('a JWKS endpoint that never answers times out', async () => {
    // The reason says the timeout fired (the endpoint never answers: nothing else ends the fetch).
    const r = await check(remoteJwks(`${base}/hang`, { allowInsecure: true, timeoutMs: 300 }));
    expect(r).toMatchObject({ status: 401, reason: 'JWKS unreachable: the fetch timed out' });
  });

  it('a key set answer larger than 1 MiB is refused while it is read (chunked or announced)', async () => {
    const r = await check(remoteJwks(`${base}/huge`, { allowInsecure: true }));
    expect(r).toMatchObject({ status: 401, reason: `the JWKS answer is larger than ${1024 * 1024} bytes` });
    // Reading stopped at the cap: far less than the 16 MiB the server had to send.
    expect(hugeWritten).toBeLessThan(8 * 1024 * 1024);
    const a = await check(remoteJwks(`${base}/announced`, { allowInsecure: true }));
    expect(a).toMatchObject({ status: 401, reason: `the JWKS answer is larger than ${1024 * 1024} bytes` });
  });

  it('a closed port is 401 "JWKS unreachable"', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const r = await check(remoteJwks(`http://127.0.0.1:${port}/jwks.json`, { allowInsecure: true }));
    expect(r).toMatchObject({ status: 401, reason: expect.stringMatching(/^JWKS unreachable/) });
  });
});

describe('local JWKS files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agctl-jwks-'));
  it('loads a JWKS file and a lone public JWK', async () => {
    writeFileSync(join(dir, 'set.json'), JSON.stringify(key.publicJwks));
    writeFileSync(join(dir, 'one.json'), JSON.stringify(key.privateJwk)); // private members are dropped
    expect((await check(await loadJwks(join(dir, 'set.json'), { allowInsecure: false }))).status).toBe(200);
    expect((await check(await loadJwks(join(dir, 'one.json'), { allowInsecure: false }))).status).toBe(200);
  });
  it('reports unreadable or invalid files', async () => {
    writeFileSync(join(dir, 'bad.json'), '{nope');
    writeFileSync(join(dir, 'shape.json'), '{"keys": "x"}');
    await expect(loadJwks(join(dir, 'missing.json'), { allowInsecure: false })).rejects.toThrow(
      /cannot read JWKS file .*missing.json: no such file or directory/,
    );
    await expect(loadJwks(join(dir, 'bad.json'), { allowInsecure: false })).rejects.toThrow(/not valid JSON/);
    await expect(loadJwks(join(dir, 'shape.json'), { allowInsecure: false })).rejects.toThrow(/not a JWKS/);
  });
});
