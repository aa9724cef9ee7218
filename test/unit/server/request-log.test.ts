// The server's request log: a line per request while there are few, one line
// a second with the count of each status under load (times from an injected clock).
import { describe, expect, it } from 'vitest';
import { REQUEST_LOG_PER_SECOND, RequestLog } from '../../../src/server/request-log.js';
import type { Clock } from '../../../src/lib/clock.js';
import { startTestServer } from '../../helpers/server.js';

function logAt() {
  const lines: string[] = [];
  const clock = { ms: 1_000_000 };
  const log = new RequestLog(
    (l) => lines.push(l),
    () => clock.ms,
  );
  return { lines, clock, log };
}

describe('RequestLog', () => {
  it('logs each request while there are no more than a few a second', () => {
    const { lines, clock, log } = logAt();
    for (let s = 0; s < 3; s++) {
      for (let i = 0; i < REQUEST_LOG_PER_SECOND; i++) log.request(`GET /x ${s}.${i}`, 200);
      clock.ms += 1000;
      log.tick();
    }
    expect(lines).toHaveLength(3 * REQUEST_LOG_PER_SECOND);
    expect(lines.every((l) => l.startsWith('GET /x'))).toBe(true);
  });

  it('under load writes one line a second with the count of each status', () => {
    const { lines, clock, log } = logAt();
    // 10 seconds of 10,000 requests each: 200s, some 409s, a 500.
    for (let s = 0; s < 10; s++) {
      for (let i = 0; i < 10_000; i++) log.request(`POST /hook ${i}`, i % 100 === 0 ? 409 : i === 1 ? 500 : 200);
      clock.ms += 1000;
    }
    log.tick();
    // The first second logs its first few alone, then counts; every later second is one line.
    expect(lines.length).toBe(REQUEST_LOG_PER_SECOND + 10);
    // (the first few, logged alone, were a 409, a 500 and 200s)
    expect(lines[REQUEST_LOG_PER_SECOND]).toBe(
      `${10_000 - REQUEST_LOG_PER_SECOND} more requests in 1 s, not logged one by one (200: ${9899 - REQUEST_LOG_PER_SECOND + 2}, 409: 99)`,
    );
    expect(lines.at(-1)).toBe('10000 requests in 1 s, not logged one by one (200: 9899, 409: 100, 500: 1)');
  });

  it('goes back to a line per request once the load is over, and sums up a burst when the second is over', () => {
    const { lines, clock, log } = logAt();
    for (let i = 0; i < 50; i++) log.request('GET /busy', 200);
    clock.ms += 1000;
    log.request('GET /busy', 200); // a busy second follows: counted
    log.tick(); // the same second: nothing yet
    expect(lines).toHaveLength(REQUEST_LOG_PER_SECOND + 1);
    clock.ms += 1000;
    log.tick(); // that second is over: its count
    expect(lines.at(-1)).toBe('1 request in 1 s, not logged one by one (200: 1)');
    clock.ms += 1000;
    log.request('GET /quiet', 404); // the second before was quiet: logged alone
    expect(lines.at(-1)).toBe('GET /quiet');
  });

  it('flush writes what was counted', () => {
    const { lines, log } = logAt();
    for (let i = 0; i < REQUEST_LOG_PER_SECOND + 2; i++) log.request('GET /x', 204);
    log.flush();
    expect(lines.at(-1)).toBe('2 more requests in 1 s, not logged one by one (204: 2)');
  });
});

describe('the server under load', () => {
  it('logs a summary, not a line per request, when many requests come within one second of its clock', async () => {
    const lines: string[] = [];
    let ms = 5_000_000;
    const clock: Clock = { now: () => ms, sleep: async () => {} };
    const s = await startTestServer({ clock, log: (l) => lines.push(l), logPerSecond: REQUEST_LOG_PER_SECOND, autoClose: false });
    try {
      const get = () => fetch(`${s.baseUrl}/api/v1/no-such-route`).then((r) => r.arrayBuffer());
      for (let i = 0; i < 200; i++) await get();
      ms += 1000;
      await get(); // the busy second is summed up; this one is counted
      const requestLines = lines.filter((l) => l.startsWith('GET '));
      expect(requestLines).toHaveLength(REQUEST_LOG_PER_SECOND);
      expect(lines).toContain(
        `${200 - REQUEST_LOG_PER_SECOND} more requests in 1 s, not logged one by one (404: ${200 - REQUEST_LOG_PER_SECOND})`,
      );
    } finally {
      await s.close();
    }
    // Closing writes what was still counted.
    expect(lines.at(-1)).toBe('1 request in 1 s, not logged one by one (404: 1)');
  });
});
