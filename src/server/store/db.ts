// The embedded server's SQLite store (better-sqlite3, WAL mode). Each server
// module brings its own tables (migrate) and demo data (seed); this file owns
// the connection, the sealer for secrets at rest and the bookkeeping of which
// module has been migrated and seeded in this data directory.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Sealer, loadOrCreateKeyFile, parseKey } from '../../lib/seal.js';

export type DB = Database.Database;

export interface StoreOptions {
  /** Data directory; omitted for an in-memory store. */
  dataDir?: string;
  /** 32-byte seal key (otherwise AGCTL_SEAL_KEY, else a key file in dataDir, else random for :memory:). */
  sealKey?: Buffer;
}

export class Store {
  readonly db: DB;
  readonly sealer: Sealer;
  readonly dataDir?: string;

  constructor(opts: StoreOptions = {}) {
    this.dataDir = opts.dataDir;
    let key = opts.sealKey;
    if (!key && process.env.AGCTL_SEAL_KEY) key = parseKey(process.env.AGCTL_SEAL_KEY);
    if (opts.dataDir) {
      mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
      key ??= loadOrCreateKeyFile(join(opts.dataDir, 'seal.key'));
      this.db = new Database(join(opts.dataDir, 'agctl.db'));
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('busy_timeout = 5000');
      // A small page cache (1 MiB; the OS caches the file anyway). At every
      // commit SQLite drops cached pages past the end of the database, and when
      // a B-tree split has renumbered a page during the transaction (as the
      // random event-ID inserts of webhook ingest do constantly) that walks the
      // whole cache: with the default 16 MiB it cost more than a third of each commit.
      this.db.pragma('cache_size = -1024');
    } else {
      key ??= Buffer.from(crypto.getRandomValues(new Uint8Array(32)));
      this.db = new Database(':memory:');
    }
    this.db.pragma('foreign_keys = ON');
    this.sealer = new Sealer(key);
    this.db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** Seals a secret for a given place (the additional data names the row and field). */
  seal(plaintext: string, ...place: string[]): string {
    return this.sealer.seal(plaintext, place.join('\u0000'));
  }

  open(sealed: string, ...place: string[]): string {
    return this.sealer.open(sealed, place.join('\u0000'));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
