// webhook send against a listener on 127.0.0.1 that compresses its answer
// though agctl asked for no encoding: gzip, deflate (zlib and raw) and br are
// decoded, the decoded size counted against the answer cap (a bomb stops
// there, exit 9); any other encoding is named, its bytes not shown.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';

const SECRET = 'whsec-encoded-answers-0123456789abcdef';
const ANSWER = JSON.stringify({ accepted: true, reason: 'queued for run 7', runId: 'run-7' });

/** Each path answers its body under its Content-Encoding. */
const ROUTES: Record<string, { encoding: string; body: Buffer }> = {
  '/gzip': { encoding: 'gzip', body: gzipSync(ANSWER) },
  '/deflate': { encoding: 'deflate', body: deflateSync(ANSWER) },
  '/deflate-raw': { encoding: 'deflate', body: deflateRawSync(ANSWER) },
  '/br': { encoding: 'br', body: brotliCompressSync(ANSWER) },
  '/gzip-then-br': { encoding: 'gzip, br', body: brotliCompressSync(gzipSync(ANSWER)) },
  '/zstd': { encoding: 'zstd', body: Buffer.alloc(312, 0xb5) },
  // 16 MiB of spaces in a few KiB: past the cap (1 MiB here) once decoded.
  '/bomb': { encoding: 'gzip', body: gzipSync(Buffer.alloc(16 * 1024 * 1024, ' '), { level: 9 }) },
  '/bomb-br': {
    encoding: 'br',
    body: brotliCompressSync(Buffer.alloc(16 * 1024 * 1024, ' '), { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  },
  '/corrupt': { encoding: 'gzip', body: Buffer.from('not gzip at all') },
};

let base = '';
const seen: (string | undefined)[] = [];
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    seen.push(req.headers['accept-encoding']);
    const r = ROUTES[req.url ?? ''];
    if (!r) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': r.encoding, 'content-length': String(r.body.length) });
    res.end(r.body);
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const cli = cliFor(tempDir('agctl-encoded-'), { AGCTL_WEBHOOK_SECRET: SECRET, AGCTL_MAX_RESPONSE_BYTES: String(1024 * 1024) });
const send = (path: string, ...more: string[]) => cli(['webhook', 'send', base + path, '-d', '{"x":1}', ...more]);

describe('webhook send: a compressed answer', () => {
  it.concurrent.each(['/gzip', '/deflate', '/deflate-raw', '/br', '/gzip-then-br'])(
    '%s: decoded, the reason and run ID shown',
    async (path) => {
      const r = await send(path);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Reason:\s+queued for run 7$/m);
      expect(r.stdout).toMatch(/^Run ID:\s+run-7$/m);
    },
  );

  it.concurrent.each(['/gzip', '/br'])('%s with -o json: the decoded answer', async (path) => {
    const r = await send(path, '-o', 'json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().response).toEqual(JSON.parse(ANSWER));
  });

  it.concurrent('another encoding is named, its bytes not shown', async () => {
    const r = await send('/zstd');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Reason:\s+answer encoded with zstd, 312 bytes, not shown$/m);
    expect(r.stdout).not.toContain('\\xb5');
    const j = await send('/zstd', '-o', 'json');
    expect(j.json()).toMatchObject({ status: 200, response: null, responseEncoding: 'zstd', responseBytes: 312 });
  });

  it.concurrent.each(['/bomb', '/bomb-br'])('%s: a bomb stops at the cap, exit 9', async (path) => {
    const r = await send(path);
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(
      /^agctl: the answer from http:\/\/127\.0\.0\.1:\d+\/bomb(-br)? is too large: decoded \(Content-Encoding: (gzip|br)\) it goes on past 1048576 bytes/,
    );
    expect(r.stdout).toBe('');
  });

  it.concurrent('a body that does not decode as its encoding says: exit 9', async () => {
    const r = await send('/corrupt');
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/says Content-Encoding: gzip, but its body does not decode as that/);
  });

  it('asks for no encoding', async () => {
    await send('/gzip');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((v) => v === undefined)).toBe(true);
  });
});
