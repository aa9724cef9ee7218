// Apps: the owners of rules, MCP servers and tasks. The service API has no
// app routes in scope; the embedded server keeps a table so other modules can
// answer 404 for an unknown app and show app names.
import { notFound } from '../../api/errors.js';
import type { ServerModule } from '../module.js';
import type { Store } from '../store/db.js';

export const DEMO_APPS = {
  crm: { id: 'crm-app', displayName: 'Demo CRM', description: 'A demo app with entitlement configuration rules' },
  empty: { id: 'empty-app', displayName: 'Empty App', description: 'A demo app with no rules' },
} as const;

export const appsModule: ServerModule = {
  name: 'apps',
  migrate(store) {
    store.db.exec(`CREATE TABLE IF NOT EXISTS apps (
      id TEXT PRIMARY KEY, display_name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL
    )`);
  },
  seed({ store, clock }) {
    const ins = store.db.prepare('INSERT OR IGNORE INTO apps (id, display_name, description, created_at) VALUES (?, ?, ?, ?)');
    for (const a of Object.values(DEMO_APPS)) ins.run(a.id, a.displayName, a.description, new Date(clock.now()).toISOString());
    return { apps: { withRules: DEMO_APPS.crm.id, empty: DEMO_APPS.empty.id } };
  },
  routes() {},
};

interface AppRow {
  id: string;
  display_name: string;
  description: string;
}

/** Returns the app or throws NotFound. */
export function requireApp(store: Store, appId: string): AppRow {
  const app = store.db.prepare('SELECT id, display_name, description FROM apps WHERE id = ?').get(appId) as AppRow | undefined;
  if (!app) throw notFound(`app ${appId} not found`);
  return app;
}
