// Pure helpers of the webhook commands: captured-request parsing, curl output, load-mode summaries.
import { describe, expect, it } from 'vitest';
import { parseHeaderFlags, parseSendHeaderFlags } from '../../../src/cli/commands/webhook/common.js';
import { loadExitCode, undelivered, type LoadSummary } from '../../../src/cli/commands/webhook/load.js';
import { LatencyHistogram, histogramLines } from '../../../src/cli/commands/webhook/latency.js';
import { CaptureError, parseCapturedRequest } from '../../../src/cli/commands/webhook/request-file.js';
import { curlCommand } from '../../../src/cli/commands/webhook/send/run.js';

describe('parseCapturedRequest', () => {
  it('reads the request line, headers (joined when repeated) and the exact body, CRLF or LF', () => {
    for (const eol of ['\r\n', '\n']) {
      const raw = Buffer.from(
        [
          'POST /api/v1/webhooks/incoming/L1 HTTP/1.1',
          'Host: acme.example.com',
          'Webhook-Event-Id: abc',
          'X-Forwarded-For: 10.0.0.1',
          'x-forwarded-for: 10.0.0.2',
          'Content-Length: 7',
          '',
          '{"a":1}',
        ].join(eol),
      );
      const r = parseCapturedRequest(raw);
      expect(r.method).toBe('POST');
      expect(r.target).toBe('/api/v1/webhooks/incoming/L1');
      expect(r.headers).toMatchObject({ host: 'acme.example.com', 'webhook-event-id': 'abc', 'x-forwarded-for': '10.0.0.1, 10.0.0.2' });
      expect(r.body.toString()).toBe('{"a":1}');
    }
  });

  it('keeps body bytes as they are (CRLF inside the body, non-UTF-8)', () => {
    const body = Buffer.concat([Buffer.from('{"a":"x\r\n\r\ny'), Buffer.from([0xc3, 0xa9]), Buffer.from('"}')]);
    const raw = Buffer.concat([Buffer.from(`Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`), body]);
    const r = parseCapturedRequest(raw);
    expect(r.method).toBeUndefined();
    expect(r.body.equals(body)).toBe(true);
  });

  it('uses Content-Length to cut trailing bytes, and says so', () => {
    const r = parseCapturedRequest(Buffer.from('POST / HTTP/1.1\nContent-Length: 2\n\n{}\n'));
    expect(r.body.toString()).toBe('{}');
    expect(r.notes.join()).toMatch(/1 bytes after the Content-Length of 2 were ignored/);
  });

  it('decodes a chunked body', () => {
    const r = parseCapturedRequest(
      Buffer.from('POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n3;ext=1\r\n:1}\r\n0\r\n\r\n'),
    );
    expect(r.body.toString()).toBe('{"a":1}');
  });

  it('combines repeated headers as node:http does: first wins for single-value headers, others joined', () => {
    const r = parseCapturedRequest(
      Buffer.from(
        'POST / HTTP/1.1\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\nCookie: a=1\r\nCookie: b=2\r\nX-A: 1\r\nX-A: 2\r\nContent-Length: 2\r\n\r\n{}',
      ),
    );
    expect(r.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer a', cookie: 'a=1; b=2', 'x-a': '1, 2' });
    expect(r.refused).toBeUndefined();
  });

  it('says when a capture uses bare LF line endings', () => {
    expect(parseCapturedRequest(Buffer.from('POST / HTTP/1.1\nContent-Length: 2\n\n{}')).notes.join()).toMatch(/bare LF/);
    expect(parseCapturedRequest(Buffer.from('POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}')).notes.join()).not.toMatch(/bare LF/);
  });

  it.each([
    [
      'both Content-Length and Transfer-Encoding',
      'POST / HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      /both Transfer-Encoding and Content-Length/,
    ],
    ['a repeated Content-Length', 'POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}', /Content-Length is repeated/],
    ['a Content-Length that is not a number', 'POST / HTTP/1.1\nContent-Length: ten\n\n{}', /"ten" is not a number/],
    [
      'a Transfer-Encoding that does not end with chunked',
      'POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n{}',
      /does not end with chunked/,
    ],
    [
      'a space before the colon',
      'POST / HTTP/1.1\r\nWebhook-Signature : abc\r\nContent-Length: 2\r\n\r\n{}',
      /no space is allowed before the colon/,
    ],
    ['a folded header line', 'X-Long: part one\r\n  part two\r\nContent-Length: 2\r\n\r\n{}', /obsolete line folding/],
  ])('marks a request the server would refuse with 400: %s', (_name, text, reason) => {
    const r = parseCapturedRequest(Buffer.from(text));
    expect(r.refused?.status).toBe(400);
    expect(r.refused?.reason).toMatch(reason);
  });

  it('marks a header section larger than node:http accepts as 431', () => {
    const head = (n: number) => `POST / HTTP/1.1\r\nX-Pad: ${'a'.repeat(n)}\r\nContent-Length: 2\r\n\r\n{}`;
    const fits = 16 * 1024 - 'POST / HTTP/1.1\r\nX-Pad: \r\nContent-Length: 2'.length;
    expect(parseCapturedRequest(Buffer.from(head(fits))).refused).toBeUndefined();
    expect(parseCapturedRequest(Buffer.from(head(fits + 1))).refused).toMatchObject({
      status: 431,
      reason: expect.stringMatching(/16385 bytes, more than the 16384/),
    });
  });

  it('names bad header lines by number and never quotes them (they may carry a credential)', () => {
    expect(() => parseCapturedRequest(Buffer.from('POST / HTTP/1.1\r\nAuthorization Bearer SECRET-9\r\n\r\n{}'))).toThrow(
      /^line 2 is not a header line \(it has no colon\)$/,
    );
    const folded = parseCapturedRequest(
      Buffer.from('POST / HTTP/1.1\r\nAuthorization: Bearer\r\n SECRET-9\r\nContent-Length: 2\r\n\r\n{}'),
    );
    expect(folded.refused?.reason).toBe('header line 3 continues the previous one (obsolete line folding)');
  });

  it.each([
    ['Content-Type: application/json', /no blank line/],
    ['POST / HTTP/1.1\nnot a header\n\n{}', /not a header line/],
    ['POST / HTTP/1.1\nContent-Length: 10\n\n{}', /fewer than its Content-Length 10/],
    ['POST / HTTP/1.1\nTransfer-Encoding: chunked\n\nzz\n', /not a chunk size/],
    ['POST / HTTP/1.1\nTransfer-Encoding: chunked\n\nff\nshort', /shorter than its size/],
  ])('refuses %j', (text, reason) => {
    expect(() => parseCapturedRequest(Buffer.from(text))).toThrow(CaptureError);
    expect(() => parseCapturedRequest(Buffer.from(text))).toThrow(reason);
  });
});

describe('curl output and flags', () => {
  it('prints headers and the body as --data-binary, or @file for a file body', () => {
    const inline = curlCommand(
      'https://x.example.com/h?q=1',
      { 'Content-Type': 'application/json', 'Webhook-Signature': 'abc' },
      Buffer.from('{"a":"b c"}'),
    );
    expect(inline).toBe(
      `curl -sS -X POST 'https://x.example.com/h?q=1' \\\n  -H 'Content-Type: application/json' \\\n  -H 'Webhook-Signature: abc' \\\n  --data-binary '{"a":"b c"}'`,
    );
    expect(curlCommand('https://x.example.com/h', {}, Buffer.from('{}'), 'my body.json')).toMatch(/--data-binary @'my body.json'$/);
  });

  it('parses -H flags into lower-case names', () => {
    expect(parseHeaderFlags(['Content-Type: text/plain', 'X-A:b:c'])).toEqual([
      ['content-type', 'text/plain'],
      ['x-a', 'b:c'],
    ]);
    expect(() => parseHeaderFlags(['no colon'])).toThrow(/not of the form/);
    expect(() => parseHeaderFlags([': empty name'])).toThrow(
      /^--header number 1 is not of the form 'Name: value' \(it has no name before the colon\)$/,
    );
    expect(() => parseHeaderFlags(['  : blank name'])).toThrow(/\(it has no name before the colon\)$/);
    // A credential with its colon missing is never repeated in the message.
    expect(() => parseHeaderFlags(['X-A: 1', 'Authorization Bearer SECRET-123'])).toThrow(
      /^--header number 2 is not of the form 'Name: value' \(it has no colon\)$/,
    );
  });

  it('refuses control characters in -H values, without quoting the value', () => {
    expect(parseHeaderFlags(['X-A: a\tb'])).toEqual([['x-a', 'a\tb']]);
    for (const v of ['a\r\nX-B: b', 'a\nb', 'a\rb', 'a\u0000b', 'a\u001bb', 'a\u007fb']) {
      expect(() => parseHeaderFlags([`X-A: ${v}`]), JSON.stringify(v)).toThrow(
        '--header X-A: a header value cannot contain CR, LF or other control characters',
      );
    }
  });

  it('refuses framing and connection headers, and non-Latin-1 values, in headers agctl sends', () => {
    expect(parseSendHeaderFlags(['X-Trace: 1', 'Content-Type: text/plain', 'X-Name: é'])).toEqual([
      ['x-trace', '1'],
      ['content-type', 'text/plain'],
      ['x-name', 'é'],
    ]);
    for (const name of [
      'Content-Length',
      'Transfer-Encoding',
      'Host',
      'Connection',
      'Keep-Alive',
      'Upgrade',
      'TE',
      'Trailer',
      'Expect',
      'transfer-encoding',
    ]) {
      expect(() => parseSendHeaderFlags([`${name}: x`]), name).toThrow(
        `--header ${name}: agctl sets the framing and connection headers itself`,
      );
    }
    expect(() => parseSendHeaderFlags(['X-A: \u2603'])).toThrow(
      '--header X-A: a header value cannot contain characters outside ISO-8859-1',
    );
    // verify describes a captured request, where framing headers matter
    expect(parseHeaderFlags(['Transfer-Encoding: chunked'])).toEqual([['transfer-encoding', 'chunked']]);
  });
});

describe('load-mode summaries', () => {
  const summary = (statuses: Record<string, number>, errors: Record<string, number> = {}): LoadSummary => ({
    url: 'http://x',
    count: 0,
    durationLimitS: null,
    sent: 0,
    delivered: 0,
    timed: false,
    interrupted: false,
    stopped: null,
    concurrency: 1,
    rate: null,
    dueNotSent: null,
    bodyBytes: 0,
    events: null,
    durationMs: 1,
    throughput: 1,
    statuses,
    errors,
    latencyFrom: 'sent',
    latencyMs: { p50: 0, p95: 0, p99: 0, max: 0, mean: 0, min: 0 },
    latencyBuckets: [],
  });

  it('nearest-rank percentiles within 1% in constant memory, exact min, max and mean', () => {
    const h = new LatencyHistogram();
    for (let i = 1; i <= 100; i++) h.record(i);
    for (const [p, want] of [
      [50, 50],
      [95, 95],
      [99, 99],
      [100, 100],
    ] as const) {
      expect(h.percentile(p)).toBeGreaterThanOrEqual(want);
      expect(h.percentile(p)).toBeLessThanOrEqual(want * 1.01);
    }
    expect([h.min, h.max, h.mean]).toEqual([1, 100, 50.5]);
    expect(new LatencyHistogram().percentile(99)).toBe(0);
    const one = new LatencyHistogram();
    one.record(0.1234);
    expect(one.percentile(1)).toBeCloseTo(0.1234, 3);
    // Sub-millisecond values to the microsecond; an hour is clamped, not lost.
    one.record(3_600_000);
    expect(one.count).toBe(2);
    expect(one.max).toBe(3_600_000);
  });

  it('ten buckets of equal width from the fastest to the slowest, drawn as bars fitted to the width', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 90; i++) h.record(1 + (i % 9) / 100);
    for (let i = 0; i < 10; i++) h.record(10);
    const b = h.buckets();
    expect(b).toHaveLength(10);
    expect(b[0]).toMatchObject({ fromMs: 1, count: 90 });
    expect(b[9]).toMatchObject({ toMs: 10, count: 10 });
    expect(b.reduce((n, x) => n + x.count, 0)).toBe(100);
    const lines = histogramLines(b, 60);
    expect(lines[0]).toMatch(/^ +1\.000 - 1\.900 ms +90 +█+$/);
    expect(lines[9]).toMatch(/^ +9\.100 - 10\.00 ms +10 +█+$/);
    expect(lines[1]).toMatch(/ms +0$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(59);
    const bars = (l: string) => l.split('█').length - 1;
    expect(bars(lines[0]!) / bars(lines[9]!)).toBeGreaterThanOrEqual(8);
    expect(bars(lines[0]!) / bars(lines[9]!)).toBeLessThanOrEqual(12);
    const same = new LatencyHistogram();
    same.record(2);
    same.record(2);
    expect(same.buckets()).toEqual([{ fromMs: 2, toMs: 2, count: 2 }]);
  });

  it('exits 0 only when every event got a 2xx, else with the most frequent failure', () => {
    expect(loadExitCode(summary({ '200': 10 }))).toBe(0);
    expect(loadExitCode(summary({ '200': 5, '409': 3, '401': 1 }))).toBe(6);
    expect(loadExitCode(summary({ '200': 5, '401': 2 }, { reset: 3 }))).toBe(9);
    expect(loadExitCode(summary({ '413': 1 }))).toBe(7);
  });

  it('says how many were delivered and why the others were not, most frequent first', () => {
    const s = { ...summary({ '200': 5, '202': 1, '401': 2, '503': 4 }, { reset: 3 }), count: 15, sent: 15, delivered: 6 };
    expect(undelivered(s)).toBe('6 of 15 delivered; 4 HTTP 503, 3 no answer (reset), 2 HTTP 401');
  });
});
