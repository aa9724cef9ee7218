// The embedded server's SQLite store (WAL mode; node:sqlite or better-sqlite3,
// see sqlite.ts). Each server module brings its own tables (migrate) and demo
// data (seed); this file owns the connection, the sealer for secrets at rest,
// the storage layout (and the steps from earlier ones) and the bookkeeping of
// which module has been seeded in this data directory.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeFsCode } from '../../lib/fs-errors.js';
import { SEAL_KEY_FORMAT, SealKeyError, SealOpenError, Sealer, keepPrivate, loadOrCreateKeyFile, parseKey } from '../../lib/seal.js';
import { StartupError, anotherDataDir, dataDirError, type DataDirNaming } from '../startup.js';
import { openDatabase, sqliteCode, storeBackend, type DB } from './sqlite.js';

export type { DB };

interface StoreOptions extends DataDirNaming {
  /** Data directory; omitted for an in-memory store. */
  dataDir?: string;
  /** 32-byte seal key (otherwise AGCTL_SEAL_KEY, else a key file in dataDir, else random for :memory:). */
  sealKey?: Buffer;
  /** Where AGCTL_SEAL_KEY is read (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
}

/** Where the seal key came from (for messages about a key that does not fit). */
type SealKeySource = 'option' | 'env' | 'file' | 'random';

/** The meta row holding a value sealed with the data directory's key: a wrong key is named at start-up. */
const SEAL_CHECK = 'seal_check';
const SEAL_CHECK_PLACE = 'meta\u0000seal_check';

/**
 * The layout of the tables this version reads and writes, kept in the
 * database's `PRAGMA user_version`. A database of an earlier layout is brought
 * to this one at start-up by the steps in LAYOUT_STEPS; one of a later layout
 * (written by a newer agctl) is refused, untouched.
 */
export const SCHEMA_VERSION = 2;

/**
 * The step from layout n - 1 to layout n, by n: each changes the tables that
 * exist in layout n - 1 (tables new in a layout are created by their module's
 * migrate, which runs next). They run in order, in the start-up write
 * transaction: a step that fails leaves the database as it was. Changing a
 * table means a new SCHEMA_VERSION and its step here, and a test that a
 * database of the layout before keeps its data (test/unit/server/store-layouts.test.ts).
 */
const LAYOUT_STEPS: Record<number, (db: DB) => void> = {
  // Layout 2: MCP catalog entries carry their auth modes.
  2: (db) => {
    if (hasTable(db, 'mcp_catalog') && !hasColumn(db, 'mcp_catalog', 'auth_modes'))
      db.exec(`ALTER TABLE mcp_catalog ADD COLUMN auth_modes TEXT NOT NULL DEFAULT '[]'`);
  },
};

const hasTable = (db: DB, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
const hasColumn = (db: DB, table: string, column: string) =>
  (db.pragma(`table_info(${table})`) as { name: string }[]).some((c) => c.name === column);

export class Store {
  readonly db: DB;
  readonly sealer: Sealer;
  readonly dataDir?: string;
  readonly sealKeySource: SealKeySource;
  readonly #naming: DataDirNaming;

  constructor(opts: StoreOptions = {}) {
    // The SQLite driver first: when none loads, nothing is created.
    storeBackend(opts.env);
    this.dataDir = opts.dataDir;
    this.#naming = { dataDirFlag: opts.dataDirFlag };
    let key = opts.sealKey;
    let source: SealKeySource = 'option';
    const envKey = (opts.env ?? process.env).AGCTL_SEAL_KEY;
    if (!key && envKey) {
      source = 'env';
      try {
        key = parseKey(envKey);
      } catch (err) {
        if (err instanceof SealKeyError)
          throw new StartupError(
            `AGCTL_SEAL_KEY is not a valid seal key: it must be ${SEAL_KEY_FORMAT}`,
            'set it to the key the data directory was sealed with, or unset it to use the key file in the data directory',
          );
        throw err;
      }
    }
    if (opts.dataDir) {
      const dir = opts.dataDir;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        // Also when it existed with looser modes: it holds the seal key and the database.
        keepPrivate(dir, 0o700);
      } catch (err) {
        throw dataDirError(dir, err, this.#naming);
      }
      if (!key) {
        source = 'file';
        const keyFile = join(dir, 'seal.key');
        try {
          key = loadOrCreateKeyFile(keyFile);
        } catch (err) {
          if (err instanceof SealKeyError) {
            throw new StartupError(
              `the seal key file ${keyFile} is damaged: it must hold ${SEAL_KEY_FORMAT}`,
              `restore it from a backup (or set AGCTL_SEAL_KEY to the key); the secrets in this data directory cannot be opened without it. Or ${anotherDataDir(this.#naming)}`,
            );
          }
          const code = (err as NodeJS.ErrnoException).code;
          if (code) throw new StartupError(`cannot read the seal key file ${keyFile}: ${describeFsCode(code)}`);
          throw err;
        }
      }
      const dbFile = join(dir, 'agctl.db');
      let db: DB | undefined;
      try {
        // SQLite creates the log and shared-memory files with the database file's
        // mode: a new database starts 0600, an existing one (and its files) is set so.
        // Two servers started together on one directory may both try: the second finds it made.
        if (!existsSync(dbFile)) createExclusive(dbFile);
        for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) if (existsSync(f)) keepPrivate(f);
        db = openDatabase(dbFile);
        // Before anything that locks: a server starting beside another waits its turn.
        db.pragma('busy_timeout = 5000');
        // A later layout is refused before anything is written (the switch to WAL rewrites the header).
        const version = db.pragma('user_version', { simple: true }) as number;
        if (version > SCHEMA_VERSION) throw newerLayout(dbFile, version, this.#naming);
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        // A small page cache (1 MiB; the OS caches the file anyway). At every
        // commit SQLite drops cached pages past the end of the database, and when
        // a B-tree split has renumbered a page during the transaction (as the
        // random event-ID inserts of webhook ingest do constantly) that walks the
        // whole cache: with the default 16 MiB it cost more than a third of each commit.
        db.pragma('cache_size = -1024');
        db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
      } catch (err) {
        if (db?.open) db.close();
        if (err instanceof StartupError) throw err;
        throw databaseError(dbFile, err, this.#naming);
      }
      this.db = db;
    } else {
      source = key ? source : 'random';
      key ??= Buffer.from(crypto.getRandomValues(new Uint8Array(32)));
      this.db = openDatabase(':memory:');
      this.db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    }
    this.sealKeySource = source;
    this.db.pragma('foreign_keys = ON');
    this.sealer = new Sealer(key);
    try {
      this.verifySealKey();
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /**
   * Checks the seal key against the value sealed when the data directory was
   * first used; throws a StartupError naming the key's source when it does not open.
   */
  verifySealKey(): void {
    const check = this.getMeta(SEAL_CHECK);
    if (check === undefined) return;
    try {
      this.sealer.open(check, SEAL_CHECK_PLACE);
    } catch (err) {
      if (err instanceof SealOpenError) throw this.wrongKeyError();
      throw err;
    }
  }

  /** Records the check value once the key is known to fit (a fresh directory, or one whose secrets opened). */
  rememberSealKey(): void {
    if (this.getMeta(SEAL_CHECK) === undefined) this.setMeta(SEAL_CHECK, this.sealer.seal('agctl', SEAL_CHECK_PLACE));
  }

  /** How the user names the data directory (for messages). */
  get naming(): DataDirNaming {
    return this.#naming;
  }

  /** The StartupError for a seal key that does not open this data directory's secrets. */
  wrongKeyError(): StartupError {
    const dir = this.dataDir ?? ':memory:';
    const other = anotherDataDir(this.#naming);
    if (this.sealKeySource === 'env') {
      const file = this.dataDir ? join(this.dataDir, 'seal.key') : undefined;
      return new StartupError(
        `the data directory ${dir} holds secrets sealed with another key than AGCTL_SEAL_KEY`,
        `set AGCTL_SEAL_KEY to the key used before${file && existsSync(file) ? ` (or unset it to use ${file})` : ''}, or ${other}`,
      );
    }
    if (this.sealKeySource === 'file') {
      return new StartupError(
        `the data directory ${dir} holds secrets sealed with another key than its key file ${join(dir, 'seal.key')}`,
        `restore the seal.key the data was written with, or set AGCTL_SEAL_KEY to that key, or ${other}`,
      );
    }
    return new StartupError(`the data directory ${dir} holds secrets sealed with another key`, other);
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /**
   * Runs `fn` in a write transaction that takes the database's write lock at
   * its start (BEGIN IMMEDIATE). Another server on the same data directory
   * then waits for the lock (the busy timeout) instead of failing: a
   * transaction that read first and wrote later would meet a newer database
   * than it read, which SQLite answers with "database is locked" at once.
   */
  write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /**
   * Brings a database of an earlier table layout to SCHEMA_VERSION (a new
   * one is marked with it), and refuses one of a later layout, untouched.
   * Called in the start-up write transaction, before the modules create their tables.
   */
  adoptSchema(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    const file = this.dataDir ? join(this.dataDir, 'agctl.db') : ':memory:';
    if (version > SCHEMA_VERSION) throw newerLayout(file, version, this.#naming);
    if (version === 0 && this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name <> 'meta'").get() !== undefined) {
      // Tables but no layout number: written before layouts were numbered, by a development build.
      throw new StartupError(
        `the database ${file} was written by a development version of agctl before storage layouts were numbered, which this version cannot convert`,
        `move the data directory away to start with fresh demo data, or ${anotherDataDir(this.#naming)}`,
      );
    }
    if (version > 0) for (let n = version + 1; n <= SCHEMA_VERSION; n++) LAYOUT_STEPS[n]?.(this.db);
    this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
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

/** The StartupError for a database written by a newer agctl (a later storage layout). */
function newerLayout(file: string, version: number, n: DataDirNaming): StartupError {
  return new StartupError(
    `the database ${file} has storage layout ${version}, written by a newer version of agctl (this one reads layouts up to ${SCHEMA_VERSION}); nothing was changed`,
    `use that newer version of agctl, or ${anotherDataDir(n)}`,
  );
}

/** Creates an empty 0600 file; one that already exists (made by another server meanwhile) is left as it is. */
function createExclusive(file: string): void {
  try {
    writeFileSync(file, '', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** The StartupError for a database file that cannot be opened or is not an SQLite database (other errors as they are). */
export function databaseError(file: string, err: unknown, n: DataDirNaming): unknown {
  const code = sqliteCode(err);
  const message = (err as Error).message;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new StartupError(
      `the database ${file} is damaged or not an agctl database (SQLite: ${message})`,
      `restore it from a backup, or move it away to start with fresh demo data, or ${anotherDataDir(n)}`,
    );
  }
  if (code) return new StartupError(`cannot open the database ${file}: ${message}`, anotherDataDir(n));
  return err;
}
