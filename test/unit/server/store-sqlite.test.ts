// The SQLite connection under the store: the same behaviour from either driver
// (node:sqlite on Node 22.15 and later, better-sqlite3 on Node 20; CI runs this
// file on each line), the driver named by storeBackend(), node:sqlite's one
// warning kept out of the output, and a driver that cannot load named in one line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StartupError } from '../../../src/server/startup.js';
import { StoreUnavailableError, betterLoadProblem, isSqliteWarning, openDatabase, storeBackend } from '../../../src/server/store/sqlite.js';
import { BIN, baseEnv } from '../../helpers/cli.js';
import { hasNodeSqlite, unloadableDriver } from '../../helpers/sqlite-drivers.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-sqlite-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the SQLite driver', () => {
  it('is node:sqlite where Node has it, better-sqlite3 otherwise, with its versions', () => {
    const b = storeBackend();
    expect(b.name).toBe(hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
    expect(b.version).toMatch(/^\d+\.\d+\.\d+/);
    if (b.name === 'node:sqlite') expect(b.version).toBe(process.versions.node);
    expect(b.sqliteVersion).toMatch(/^3\.\d+\.\d+$/);
  });

  it('answers rows, first columns, BLOBs, pragmas and parameters as the store expects', () => {
    const db = openDatabase(':memory:');
    expect(db.memory).toBe(true);
    db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c BLOB)');
    const ins = db.prepare('INSERT INTO t (a, b, c) VALUES (?, ?, ?)');
    expect(ins.run(1, 'one', Buffer.from([0, 255])).changes).toBe(1);
    // An array among the parameters is spread; named parameters the statement does not use are ignored.
    ins.run([2, 'two', new Uint8Array([1])]);
    db.prepare('INSERT INTO t (a, b, c) VALUES (@a, @b, @c)').run({ a: 3, b: 'three', c: Buffer.alloc(0), unused: 1 });
    expect({ ...(db.prepare('SELECT a, b FROM t WHERE a = ?').get(1) as object) }).toEqual({ a: 1, b: 'one' });
    expect(db.prepare('SELECT a FROM t WHERE a = ?').get(9)).toBeUndefined();
    const c = db.prepare('SELECT c FROM t WHERE a = 1').pluck().get();
    expect(c).toBeInstanceOf(Uint8Array);
    expect([...(c as Uint8Array)]).toEqual([0, 255]);
    expect(db.prepare('SELECT b FROM t ORDER BY a').pluck().all()).toEqual(['one', 'two', 'three']);
    expect([...db.prepare('SELECT a FROM t WHERE a > ? ORDER BY a').pluck().iterate(1)]).toEqual([2, 3]);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    db.pragma('user_version = 7');
    expect(db.pragma('user_version')).toEqual([{ user_version: 7 }]);
    db.close();
    expect(db.open).toBe(false);
  });

  it('runs a transaction with BEGIN IMMEDIATE: committed, or undone when it throws; one inside another is a savepoint', () => {
    const file = join(root, 'tx.db');
    const db = openDatabase(file);
    expect(db.memory).toBe(false);
    db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY)');
    const add = db.transaction((...ns: number[]) => {
      for (const n of ns) db.prepare('INSERT INTO t (a) VALUES (?)').run(n);
      return ns.length;
    });
    expect(add.immediate(1, 2)).toBe(2);
    expect(() => add.immediate(3, 1)).toThrow(/UNIQUE/);
    const rows = () => db.prepare('SELECT a FROM t ORDER BY a').pluck().all();
    expect(rows()).toEqual([1, 2]);
    db.transaction(() => {
      add.immediate(4);
      expect(() => add.immediate(5, 4)).toThrow(/UNIQUE/);
      add.immediate(6);
    }).immediate();
    expect(rows()).toEqual([1, 2, 4, 6]);
    // The write lock is taken at BEGIN: a second connection waiting for it finds it held.
    const other = openDatabase(file);
    other.pragma('busy_timeout = 0');
    db.transaction(() => {
      expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(/locked|busy/i);
    }).immediate();
    other.close();
    db.close();
  });

  it('creates the database file 0600, and its log and shared-memory files too, whatever the umask', async () => {
    // serve under umask 000: SQLite alone would make the files 0644 (its default mode, as the umask leaves it).
    const dir = join(root, 'private');
    const ready = join(root, 'private-ready.json');
    const env = { ...baseEnv(join(root, 'cfg-private')), AGCTL_SEAL_KEY: 'a'.repeat(64) };
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        'umask 000 && exec "$0" "$@"',
        process.execPath,
        BIN,
        'serve',
        '--quiet',
        '--port',
        '0',
        '--data-dir',
        dir,
        '--ready-file',
        ready,
      ],
      { env, stdio: 'ignore' },
    );
    try {
      const deadline = Date.now() + 30_000;
      while (!existsSync(ready) || !existsSync(join(dir, 'agctl.db-shm'))) {
        expect(Date.now() < deadline && child.exitCode === null, 'serve did not start').toBe(true);
        await new Promise((r) => setTimeout(r, 50));
      }
      for (const f of ['agctl.db', 'agctl.db-wal', 'agctl.db-shm']) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    }
  });
});

describe("node:sqlite's warning", () => {
  it('is recognised exactly: its type and its message, no other', () => {
    const text = 'SQLite is an experimental feature and might change at any time';
    expect(isSqliteWarning(text, 'ExperimentalWarning')).toBe(true);
    expect(isSqliteWarning(text, { type: 'ExperimentalWarning' })).toBe(true);
    expect(isSqliteWarning(text, 'Warning')).toBe(false);
    expect(isSqliteWarning('WASI is an experimental feature and might change at any time', 'ExperimentalWarning')).toBe(false);
    expect(isSqliteWarning('Importing JSON modules is an experimental feature', 'ExperimentalWarning')).toBe(false);
  });

  it('does not reach the output of a command that starts the embedded server; other warnings still do', () => {
    const warn = join(root, 'warn.cjs');
    writeFileSync(warn, "process.emitWarning('a test warning');\n");
    const env = { ...baseEnv(join(root, 'cfg')), AGCTL_DATA_DIR: join(root, 'warn-data'), NODE_OPTIONS: `--require=${warn}` };
    const r = spawnSync(process.execPath, [BIN, '--embedded', 'rules', 'list', 'crm-app', '-o', 'json'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/ExperimentalWarning|SQLite is an experimental/);
    expect(r.stderr).toContain('a test warning');
  });
});

describe('a driver that cannot load', () => {
  it('is an environment fault in one line naming the fix', () => {
    const abi = new Error(
      "The module '/x/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 137. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
    );
    const line = betterLoadProblem(abi);
    expect(line).toBe(
      `the embedded server's SQLite module better-sqlite3 was built for another Node.js version than ${process.version}; fix: run \`npm rebuild better-sqlite3\` where agctl is installed (or use Node 22.15 or later, which needs no native module)`,
    );
    expect(new StoreUnavailableError(line)).toBeInstanceOf(StartupError);
    expect(line).not.toContain('\n');
  });

  it('stops `--embedded` with exit 11 and one line, before anything is created', (ctx) => {
    // A driver this Node cannot load: on Node 20 node:sqlite; elsewhere better-sqlite3 when it is
    // missing or built for another Node (as in CI, where it is built for Node 20).
    const wanted = unloadableDriver();
    if (!wanted) return ctx.skip();
    const data = join(root, 'never');
    const env = { ...baseEnv(join(root, 'cfg2')), AGCTL_DATA_DIR: data, AGCTL_STORE_BACKEND: wanted };
    const r = spawnSync(process.execPath, [BIN, '--embedded', 'rules', 'list', 'crm-app'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(11);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(wanted === 'node:sqlite' ? 'AGCTL_STORE_BACKEND' : 'npm rebuild better-sqlite3');
    expect(r.stderr).not.toMatch(/unexpected|report it|\\n/);
    const json = spawnSync(process.execPath, [BIN, '--embedded', 'rules', 'list', 'crm-app', '-o', 'json'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(json.status).toBe(11);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'store_unavailable', exitCode: 11 });
    expect(() => statSync(data)).toThrow();
  });

  it('a driver named wrongly is a usage error (exit 2)', () => {
    const env = { ...baseEnv(join(root, 'cfg3')), AGCTL_DATA_DIR: join(root, 'never2'), AGCTL_STORE_BACKEND: 'sqlite3' };
    const r = spawnSync(process.execPath, [BIN, '--embedded', 'rules', 'list', 'crm-app'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('AGCTL_STORE_BACKEND must be node:sqlite or better-sqlite3');
  });
});
