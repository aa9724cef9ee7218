// The shape of an embedded-server module: its tables, its demo data and its routes.
import type { Router, ServerOptionsResolved } from './router.js';
import type { Store } from './store/db.js';
import type { Clock } from '../lib/clock.js';

export interface SeedContext {
  store: Store;
  clock: Clock;
  options: ServerOptionsResolved;
}

export interface ServerModule {
  name: string;
  /**
   * Creates the module's tables; must be idempotent (CREATE TABLE IF NOT EXISTS ...).
   * Runs in the start-up write transaction, once the database is known to have
   * this version's storage layout (SCHEMA_VERSION in store/db.ts): changing
   * a table that already exists needs a new SCHEMA_VERSION and its step
   * (LAYOUT_STEPS), which brings databases of the layout before forward.
   */
  migrate(store: Store): void;
  /**
   * Seeds demo data once per data directory and returns the module's part of
   * the ready file's `demo` object (saved, and returned again on later starts).
   */
  seed?(ctx: SeedContext): Record<string, unknown>;
  /**
   * Adds values that are never stored in plain text (secrets opened from sealed
   * storage) to the module's saved demo fragment, on every start.
   */
  reveal?(part: Record<string, unknown>, ctx: SeedContext): Record<string, unknown>;
  routes(router: Router): void;
  /**
   * Called when the server starts (after seed), e.g. to start a pruning timer.
   * Returns a stop function; the store is closed only once every stop has settled.
   */
  start?(ctx: SeedContext): (() => void | Promise<void>) | void;
}
