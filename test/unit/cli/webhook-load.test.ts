// Load mode stopped with Ctrl-C (a fake interrupt): no new events, the requests
// in flight finish or are aborted after the grace period, the summary says so.
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LOAD_MAX_BODY_BYTES, runLoad, type LoadOptions } from '../../../src/cli/commands/webhook/load.js';
import { hostileTenant } from '../../helpers/hostile-tenant.js';
import { fakeIO } from '../../helpers/io.js';
import { tinyServer } from '../client/tiny-server.js';

const srv = await tinyServer();
const until = async (ok: () => boolean) => {
  for (const end = Date.now() + 10_000; !ok(); await new Promise((r) => setTimeout(r, 5)))
    if (Date.now() > end) throw new Error('timed out');
};

function load(o: Partial<LoadOptions>) {
  const f = fakeIO({ tty: true });
  const progress = f.io.stderr as PassThrough & { columns?: number };
  progress.columns = 80;
  const run = runLoad({
    url: srv.url + '/hook',
    count: 100_000,
    concurrency: 4,
    body: Buffer.from('{}'),
    headersFor: async () => ({}),
    timeoutMs: 10_000,
    progress,
    onInterrupt: (l) => f.io.onInterrupt(l),
    ...o,
  });
  return { ...f, run };
}

describe('load mode and Ctrl-C', () => {
  it('stops sending, waits for the requests in flight, clears the bar and unsubscribes', async () => {
    srv.reset((_r, res) => void setTimeout(() => res.end('{}'), 30));
    const t = load({});
    await until(() => srv.seen.length >= 10);
    expect(t.interruptListeners()).toBe(1);
    t.interrupt();
    const sum = await t.run;
    expect(sum).toMatchObject({ count: 100_000, interrupted: true, errors: {} });
    expect(sum.statuses).toEqual({ '200': sum.sent });
    expect(sum.sent).toBe(srv.seen.length);
    expect(sum.sent).toBeLessThan(100);
    expect(sum.throughput).toBeGreaterThan(0);
    expect(sum.latencyMs!.p50).toBeGreaterThanOrEqual(25);
    expect(t.interruptListeners()).toBe(0);
    expect(t.err().endsWith('\r\x1b[K')).toBe(true);
  });

  it('aborts what is still unanswered after the grace period, or at a second Ctrl-C', async () => {
    srv.reset(() => {}); // never answers
    const t = load({ concurrency: 3, interruptGraceMs: 150 });
    await until(() => srv.seen.length >= 3);
    let started = Date.now();
    t.interrupt();
    let sum = await t.run;
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(sum).toMatchObject({ interrupted: true, sent: 3, statuses: {}, errors: { aborted: 3 } });
    expect(sum.latencyMs).toBeNull();
    expect(sum.latencyBuckets).toEqual([]);
    expect(t.interruptListeners()).toBe(0);

    srv.reset(() => {});
    const t2 = load({ concurrency: 2, rate: 1000, interruptGraceMs: 60_000 });
    await until(() => srv.seen.length >= 2);
    started = Date.now();
    t2.interrupt();
    t2.interrupt();
    sum = await t2.run;
    // The second Ctrl-C did not wait out the 60 s grace period (half of it is a bound no busy machine misses).
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(sum).toMatchObject({ interrupted: true, sent: 2, errors: { aborted: 2 } });
  });

  it('a run that is not interrupted says so', async () => {
    srv.reset((_r, res) => res.end('{}'));
    const t = load({ count: 20 });
    const sum = await t.run;
    expect(sum).toMatchObject({ count: 20, sent: 20, interrupted: false, statuses: { '200': 20 } });
    expect(t.interruptListeners()).toBe(0);
    expect(t.err().endsWith('\n')).toBe(true);
  });
});

describe('load mode and huge answers', () => {
  it(`reads at most LOAD_MAX_BODY_BYTES of each answer (announced or chunked), counting its status`, async () => {
    for (const announce of [true, false]) {
      const t = await hostileTenant({ kind: 'huge-body', on: 'api', bytes: 4 * 1024 ** 3, announce });
      const sum = await runLoad({
        url: `${t.url}/hook`,
        count: 3,
        concurrency: 1,
        body: Buffer.from('{}'),
        headersFor: async () => ({}),
        timeoutMs: 10_000,
      });
      expect(sum.statuses, String(announce)).toEqual({ '200': 3 });
      // What the loopback's socket buffers hold besides (a few MB a connection), far from the 4 GiB announced.
      expect(t.stats.bodyBytes).toBeLessThan(3 * (LOAD_MAX_BODY_BYTES + 8 * 1024 ** 2));
      await t.close();
    }
  });
});
