// Apps: the owners of rules, MCP servers and tasks. The service API has no
// app routes in scope; the embedded server keeps a table so other modules can
// answer 404 for an unknown app and show app names.
import { invalidArgument, notFound } from '../../api/errors.js';
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

// --- paging of the list routes ---------------------------------------------

/** Page tokens are opaque to clients: base64url JSON of the last item's sort key. */
const encodePageToken = (key: unknown): string => Buffer.from(JSON.stringify(key)).toString('base64url');

/** The sort key a token names; InvalidArgument naming `member` when it is not one this server issued. */
export function decodePageToken<T>(token: string, valid: (v: unknown) => v is T, member: string): T {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (valid(v)) return v;
  } catch {
    // fall through
  }
  throw invalidArgument(`${member} is not a valid page token`);
}

/** `page_size` of a GET list: absent or 0 is `dflt`, more than `max` is `max`. */
export function parsePageSize(raw: string | null, dflt: number, max: number): number {
  if (raw === null || raw === '') return dflt;
  if (!/^\d+$/.test(raw)) throw invalidArgument('page_size must be a non-negative integer');
  const n = Number(raw);
  return n === 0 ? dflt : Math.min(n, max);
}

/** One page of `rows` fetched with one extra row: the page and the token of the next (from its last row), '' at the end. */
export function pageOf<R>(rows: R[], size: number, keyOf: (row: R) => unknown): { page: R[]; nextPageToken: string } {
  const page = rows.slice(0, size);
  return { page, nextPageToken: rows.length > size ? encodePageToken(keyOf(page.at(-1)!)) : '' };
}
