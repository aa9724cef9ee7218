// The SQLite drivers this Node can run, as tests need to know them: the store
// picks node:sqlite from Node 22.15 (and on 23.11+, 24), better-sqlite3 below.
import { createRequire } from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];

/** Whether this Node has node:sqlite with what the store needs (22.15 and later). */
export const hasNodeSqlite = major > 22 || (major === 22 && minor >= 15);

/** Whether the module `name` loads and opens a database in this process's Node. */
export function loads(name: string): boolean {
  try {
    const Database = createRequire(import.meta.url)(name) as new (f: string) => { close(): void };
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

/**
 * A driver AGCTL_STORE_BACKEND can name that this Node cannot load: node:sqlite
 * on Node 20; elsewhere better-sqlite3 when it is missing or built for another
 * Node (as in CI). Undefined when both load.
 */
export function unloadableDriver(): 'node:sqlite' | 'better-sqlite3' | undefined {
  if (!hasNodeSqlite) return 'node:sqlite';
  return loads('better-sqlite3') ? undefined : 'better-sqlite3';
}
