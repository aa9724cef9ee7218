// The SQLite connection under the store, over one of two drivers: Node's
// built-in node:sqlite where the running Node has it unflagged with what the
// store needs (22.15 and later, 24: nothing to compile, nothing to rebuild
// when Node is upgraded), else better-sqlite3, an optional native dependency
// (Node 20). DB is the small
// part of better-sqlite3's interface the store's users call; a better-sqlite3
// connection is one as it is, a node:sqlite one is wrapped to match.
import { createRequire } from 'node:module';
import { StartupError } from '../startup.js';

interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/**
 * A prepared statement. Parameters are positional (an array is spread, as
 * better-sqlite3 does) or one object of named ones. Rows are plain objects;
 * a BLOB reads as a Uint8Array (a Buffer under better-sqlite3).
 */
export interface Statement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): RunResult;
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** The same statement answering the first column's value instead of a row. */
  pluck(): Statement;
}

export interface DB {
  readonly open: boolean;
  readonly memory: boolean;
  /** The database file (`:memory:` for an in-memory database). */
  readonly name: string;
  prepare(sql: string): Statement;
  exec(sql: string): void;
  /** `PRAGMA <source>`: the rows, or with `simple` the first column of the first row. */
  pragma(source: string, opts?: { simple: boolean }): unknown;
  /** `fn` as a function that runs it in a transaction begun with BEGIN IMMEDIATE (a savepoint inside another transaction). */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): { immediate(...args: A): T };
  close(): void;
}

type BackendName = 'node:sqlite' | 'better-sqlite3';

/** The driver in use and its versions (for `agctl doctor` and error reports). */
interface StoreBackend {
  name: BackendName;
  /** The driver's version: Node's for node:sqlite, the package's for better-sqlite3. */
  version: string;
  /** The SQLite library's version. */
  sqliteVersion: string;
}

/** The environment variable that chooses a driver instead of the default (node:sqlite where it exists); in `agctl help environment`. */
const STORE_BACKEND_ENV = 'AGCTL_STORE_BACKEND';

/**
 * No SQLite driver loads: a fault of the installation or of Node, not of the
 * user's input nor of agctl. The message is one line naming the fix; the CLI
 * exits 11 (Exit.Environment) with it.
 */
export class StoreUnavailableError extends StartupError {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

interface Driver {
  backend: StoreBackend;
  /** The module the checkpoint worker loads (a path for better-sqlite3). */
  module: string;
  open(file: string): DB;
}

let driver: Driver | undefined;

/** Opens a connection to `file` (`:memory:` for an in-memory database) with the driver in use. */
export function openDatabase(file: string): DB {
  return loadDriver().open(file);
}

/**
 * The store backend this process uses (its name and versions), loading the
 * driver if not yet loaded; throws StoreUnavailableError when none can load.
 */
export function storeBackend(env: NodeJS.ProcessEnv = process.env): StoreBackend {
  return loadDriver(env).backend;
}

/** What the checkpoint worker needs to open its own connection with the same driver. */
export function workerDriver(): { backend: BackendName; module: string } {
  const d = loadDriver();
  return { backend: d.backend.name, module: d.module };
}

function loadDriver(env: NodeJS.ProcessEnv = process.env): Driver {
  if (driver) return driver;
  const wanted = env[STORE_BACKEND_ENV] || undefined;
  if (wanted !== undefined && wanted !== 'node:sqlite' && wanted !== 'better-sqlite3') {
    throw new StartupError(`${STORE_BACKEND_ENV} must be node:sqlite or better-sqlite3 (or unset, to use node:sqlite where Node has it)`);
  }
  if (wanted !== 'better-sqlite3') {
    const sqlite = nodeSqlite();
    if (sqlite) return (driver = nodeDriver(sqlite));
    if (wanted === 'node:sqlite') {
      throw new StoreUnavailableError(
        `${STORE_BACKEND_ENV} is node:sqlite, which Node ${process.version} does not have (unflagged, with what agctl needs): use Node 22.15 or later, or unset ${STORE_BACKEND_ENV}`,
      );
    }
  }
  return (driver = betterDriver());
}

// --- node:sqlite -----------------------------------------------------------

/** The part of node:sqlite used here (typed locally: the Node 20 types have no node:sqlite). */
interface NodeStatementSync {
  /** Named parameters the statement does not use are ignored, as better-sqlite3 does (Node 22.15, 23.11). */
  setAllowUnknownNamedParameters(enabled: boolean): void;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): RunResult;
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface NodeDatabaseSync {
  prepare(sql: string): NodeStatementSync;
  exec(sql: string): void;
  close(): void;
}
interface NodeSqlite {
  DatabaseSync: new (file: string) => NodeDatabaseSync;
  StatementSync: { prototype: object };
}

/**
 * node:sqlite when this Node has it unflagged with what the store calls
 * (statement iterators, unknown named parameters ignored: 22.15, 23.11), else undefined. Node 22 announces it
 * with an ExperimentalWarning on stderr: that one warning is kept out of
 * agctl's output, every other warning passes.
 */
function nodeSqlite(): NodeSqlite | undefined {
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteWarning(warning, rest[0])) return;
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    const m = process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined;
    const proto = m?.StatementSync.prototype as Partial<NodeStatementSync> | undefined;
    return typeof m?.DatabaseSync === 'function' &&
      typeof proto?.iterate === 'function' &&
      typeof proto.setAllowUnknownNamedParameters === 'function'
      ? m
      : undefined;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emit;
  }
}

/** node:sqlite's load-time warning (exactly that one: its type and its message). */
export function isSqliteWarning(warning: unknown, typeOrOptions: unknown): boolean {
  const type = typeof typeOrOptions === 'string' ? typeOrOptions : (typeOrOptions as { type?: unknown } | undefined)?.type;
  const message = warning instanceof Error ? warning.message : warning;
  return type === 'ExperimentalWarning' && typeof message === 'string' && /^SQLite is an experimental feature\b/.test(message);
}

function nodeDriver(sqlite: NodeSqlite): Driver {
  const probe = new sqlite.DatabaseSync(':memory:');
  const sqliteVersion = (probe.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  probe.close();
  return {
    backend: { name: 'node:sqlite', version: process.versions.node, sqliteVersion },
    module: 'node:sqlite',
    open: (file) => new NodeDb(new sqlite.DatabaseSync(file), file),
  };
}

/** Positional parameters as better-sqlite3 takes them: an array among them is spread. */
const spread = (params: unknown[]): unknown[] => (params.some(Array.isArray) ? params.flat() : params);

class NodeStatement implements Statement {
  readonly #st: NodeStatementSync;
  readonly #first: boolean;
  constructor(st: NodeStatementSync, first = false) {
    this.#st = st;
    this.#first = first;
  }
  get(...params: unknown[]): unknown {
    const row = this.#st.get(...spread(params));
    return this.#first ? firstColumn(row) : row;
  }
  all(...params: unknown[]): unknown[] {
    const rows = this.#st.all(...spread(params));
    return this.#first ? rows.map(firstColumn) : rows;
  }
  run(...params: unknown[]): RunResult {
    return this.#st.run(...spread(params));
  }
  *iterate(...params: unknown[]): IterableIterator<unknown> {
    for (const row of this.#st.iterate(...spread(params))) yield this.#first ? firstColumn(row) : row;
  }
  pluck(): Statement {
    return new NodeStatement(this.#st, true);
  }
}

function firstColumn(row: unknown): unknown {
  if (row === undefined) return undefined;
  for (const k in row as object) return (row as Record<string, unknown>)[k];
  return undefined;
}

class NodeDb implements DB {
  readonly #db: NodeDatabaseSync;
  readonly name: string;
  #open = true;
  #depth = 0;
  constructor(db: NodeDatabaseSync, name: string) {
    this.#db = db;
    this.name = name;
  }
  get open(): boolean {
    return this.#open;
  }
  get memory(): boolean {
    return this.name === ':memory:';
  }
  prepare(sql: string): Statement {
    const st = this.#db.prepare(sql);
    st.setAllowUnknownNamedParameters(true);
    return new NodeStatement(st);
  }
  exec(sql: string): void {
    this.#db.exec(sql);
  }
  pragma(source: string, opts?: { simple: boolean }): unknown {
    const st = this.#db.prepare(`PRAGMA ${source}`);
    return opts?.simple ? firstColumn(st.get()) : st.all();
  }
  transaction<A extends unknown[], T>(fn: (...args: A) => T): { immediate(...args: A): T } {
    return {
      immediate: (...args: A): T => {
        const outer = this.#depth === 0;
        this.#db.exec(outer ? 'BEGIN IMMEDIATE' : 'SAVEPOINT agctl');
        this.#depth++;
        try {
          const result = fn(...args);
          this.#db.exec(outer ? 'COMMIT' : 'RELEASE agctl');
          return result;
        } catch (err) {
          // As better-sqlite3 does: the transaction (or savepoint) is undone, then the error goes on.
          // (SQLite may have ended the transaction itself, e.g. on a full disk: nothing left to undo.)
          try {
            this.#db.exec(outer ? 'ROLLBACK' : 'ROLLBACK TO agctl; RELEASE agctl');
          } catch {}
          throw err;
        } finally {
          this.#depth--;
        }
      },
    };
  }
  close(): void {
    if (!this.#open) return;
    this.#db.close();
    this.#open = false;
  }
}

// --- better-sqlite3 --------------------------------------------------------

function betterDriver(): Driver {
  const require = createRequire(import.meta.url);
  let path: string;
  let Database: new (file: string) => DB & { prepare(sql: string): Statement };
  try {
    path = require.resolve('better-sqlite3');
  } catch {
    throw new StoreUnavailableError(
      `the embedded server needs SQLite: Node ${process.version} has no node:sqlite and the optional better-sqlite3 is not installed; fix: run \`npm install better-sqlite3\` where agctl is installed (a compiler may be needed), or use Node 22.15 or later`,
    );
  }
  let sqliteVersion: string;
  try {
    Database = require(path) as typeof Database;
    // The probe that it loads (its native part is only loaded by a first connection) also reads SQLite's version.
    const probe = new Database(':memory:');
    sqliteVersion = (probe.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
    probe.close();
  } catch (err) {
    throw new StoreUnavailableError(betterLoadProblem(err));
  }
  const pkg = require('better-sqlite3/package.json') as { version: string };
  return { backend: { name: 'better-sqlite3', version: pkg.version, sqliteVersion }, module: path, open: (file) => new Database(file) };
}

/** One line on why better-sqlite3 did not load, with the command that fixes it. */
export function betterLoadProblem(err: unknown): string {
  const message = String((err as Error)?.message ?? err).split('\n')[0]!;
  const fix = 'fix: run `npm rebuild better-sqlite3` where agctl is installed (or use Node 22.15 or later, which needs no native module)';
  if (/NODE_MODULE_VERSION|compiled against a different Node\.js version/.test(String((err as Error)?.message))) {
    return `the embedded server's SQLite module better-sqlite3 was built for another Node.js version than ${process.version}; ${fix}`;
  }
  return `the embedded server's SQLite module better-sqlite3 cannot be loaded (${message.slice(0, 200)}); ${fix}`;
}

/**
 * The SQLite result code name of an error from either driver (`SQLITE_CORRUPT`,
 * `SQLITE_NOTADB`, ...; the primary code), or undefined for other errors.
 */
export function sqliteCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; errcode?: unknown };
  if (typeof e?.code === 'string' && e.code.startsWith('SQLITE_')) return e.code.replace(/^(SQLITE_[A-Z]+)_.*/, '$1');
  if (e?.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') return PRIMARY_CODES[e.errcode & 0xff] ?? 'SQLITE_ERROR';
  return undefined;
}

const PRIMARY_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  19: 'SQLITE_CONSTRAINT',
  26: 'SQLITE_NOTADB',
};
