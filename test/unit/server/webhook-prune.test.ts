// The hourly pruning of webhook event records runs on a timer: a database
// error there must not become an uncaught exception that stops the server.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OffsetClock } from '../../../src/lib/clock.js';
import { Store } from '../../../src/server/store/db.js';
import { pruneWebhookEvents, webhooksModule } from '../../../src/server/routes/webhooks.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('webhook event pruning', () => {
  it('survives a database error on a later run and prunes again once the database allows it', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setImmediate'] });
    const store = new Store();
    const clock = new OffsetClock();
    webhooksModule.migrate(store);
    const stop = webhooksModule.start!({ store, clock, options: { tokenTtlSeconds: 3600, frontendUrl: '', trustProxy: false, allowInsecureJwks: false } });
    // An event record older than the 7-day retention window, and a database that refuses to delete it.
    const log = store.db.prepare('INSERT INTO webhook_event_log (listener, event, received_at) VALUES (1, ?, ?)');
    log.run(Buffer.alloc(16, 1), clock.now() - 8 * 86400_000);
    // A current record after it (the log always keeps its newest entry).
    log.run(Buffer.alloc(16, 2), clock.now());
    store.db.exec(`CREATE TRIGGER no_delete BEFORE DELETE ON webhook_event_log BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    expect(() => vi.advanceTimersByTime(3600_000)).not.toThrow();
    const count = () => (store.db.prepare('SELECT COUNT(*) AS n FROM webhook_event_log').get() as { n: number }).n;
    expect(count()).toBe(2);
    store.db.exec('DROP TRIGGER no_delete');
    vi.advanceTimersByTime(3600_000);
    expect(count()).toBe(1);
    await stop?.();
    store.close();
  });
});

describe('webhook event log pruning', () => {
  it('keeps the newest entry even when every entry has expired, so entry IDs never repeat', () => {
    const store = new Store();
    webhooksModule.migrate(store);
    const now = Date.now();
    const log = store.db.prepare('INSERT INTO webhook_event_log (listener, event, received_at) VALUES (1, ?, ?)');
    for (let i = 1; i <= 3; i++) log.run(Buffer.alloc(16, i), now - 9 * 86400_000 + i);
    expect(pruneWebhookEvents(store, now)).toBe(2);
    const ids = () => store.db.prepare('SELECT id FROM webhook_event_log ORDER BY id').pluck().all();
    expect(ids()).toEqual([3]);
    expect(Number(log.run(Buffer.alloc(16, 4), now).lastInsertRowid)).toBe(4);
    store.close();
  });
});
