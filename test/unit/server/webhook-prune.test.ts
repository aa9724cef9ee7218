// Pruning of webhook event records older than 7 days: on a timer, where a
// database error must not become an uncaught exception that stops the server,
// and past one batch.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OffsetClock } from '../../../src/lib/clock.js';
import { Store } from '../../../src/server/store/db.js';
import { webhooksModule } from '../../../src/server/routes/webhooks.js';
import { pruneWebhookEvents } from '../../../src/server/webhooks/ingest.js';

afterEach(() => {
  vi.useRealTimers();
});

const DAY = 86400_000;

function storeWithEvents(times: number[]): Store {
  const store = new Store();
  webhooksModule.migrate(store);
  const ins = store.db.prepare('INSERT INTO webhook_events (listener, event, received_at) VALUES (1, ?, ?)');
  store.write(() => times.forEach((t, i) => ins.run(Buffer.from(i.toString(16).padStart(32, '0'), 'hex'), t)));
  return store;
}

const count = (store: Store) => store.db.prepare('SELECT COUNT(*) FROM webhook_events').pluck().get() as number;

describe('webhook event pruning', () => {
  it('survives a database error on a later run and prunes again once the database allows it', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setImmediate'] });
    const clock = new OffsetClock();
    // An event record older than the 7-day retention window, a current one, and a database that refuses to delete.
    const store = storeWithEvents([clock.now() - 8 * DAY, clock.now()]);
    store.db.exec(`CREATE TRIGGER no_delete BEFORE DELETE ON webhook_events BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    const stop = webhooksModule.start!({
      store,
      clock,
      options: { tokenTtlSeconds: 3600, frontendUrl: '', trustProxy: false, allowInsecureJwks: false },
    });
    expect(() => vi.advanceTimersByTime(3600_000)).not.toThrow();
    expect(count(store)).toBe(2);
    store.db.exec('DROP TRIGGER no_delete');
    vi.advanceTimersByTime(3600_000);
    expect(count(store)).toBe(1);
    await stop?.();
    store.close();
  });

  it('deletes every record received 7 days ago or earlier, past one batch, and keeps the others', () => {
    const now = Date.now();
    const expired = Array.from({ length: 5003 }, (_, i) => now - 7 * DAY - i);
    const store = storeWithEvents([...expired, now - 7 * DAY + 1, now]);
    expect(pruneWebhookEvents(store, now)).toBe(5003);
    expect(store.db.prepare('SELECT received_at FROM webhook_events ORDER BY received_at').pluck().all()).toEqual([now - 7 * DAY + 1, now]);
    store.close();
  });
});
