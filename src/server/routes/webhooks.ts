// Inbound webhooks (service-api.md §2.5, §3, §4.5, §5.2, §6): the incoming
// endpoint, and the embedded-only routes under /_embedded/v1/ (not part of the
// service API) that create and list listeners and list their runs. The parts live in
// src/server/webhooks/: schema, ingest, listeners, runs, demo.
import { MAX_BODY_BYTES } from '../../webhook/verify.js';
import type { ServerModule } from '../module.js';
import { startCheckpointer } from '../store/checkpointer.js';
import { DEMO_JWKS_PATH, demoJwks, revealWebhookSecrets, seedWebhooks } from '../webhooks/demo.js';
import { incoming, prunePeriodically } from '../webhooks/ingest.js';
import { createListener, listListeners } from '../webhooks/listeners.js';
import { listRuns } from '../webhooks/runs.js';
import { INCOMING_PATH } from '../../api/webhook-listeners.js';
import { createWebhookTables } from '../webhooks/schema.js';

export const webhooksModule: ServerModule = {
  name: 'webhooks',
  migrate: (store) => createWebhookTables(store.db),
  seed: seedWebhooks,
  reveal: revealWebhookSecrets,
  routes(router) {
    router.post(`${INCOMING_PATH}:listener_id`, incoming, { auth: false, maxBody: MAX_BODY_BYTES });
    router.get(DEMO_JWKS_PATH, (ctx) => ({ body: demoJwks(ctx.store) }), { auth: false });
    router.post('/_embedded/v1/webhook_listeners', createListener, { maxBody: 64 * 1024 });
    router.get('/_embedded/v1/webhook_listeners', listListeners);
    router.get('/_embedded/v1/webhook_listeners/:id/runs', listRuns);
  },
  start({ store, clock }) {
    const stopPruning = prunePeriodically(store, () => clock.now());
    // Webhook ingest is the write-heavy path of the server: keep WAL checkpoints off the event loop.
    const stopCheckpoints = startCheckpointer(store.db);
    return async () => {
      stopPruning();
      await stopCheckpoints();
    };
  },
};
