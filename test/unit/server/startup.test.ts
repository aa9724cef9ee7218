// Start-up failures of the embedded server that are the user's or the
// machine's (an address in use, a data directory that is a file, a damaged
// database, a seal key that does not fit): StartupErrors with a plain message.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedServer, StartupError, startEmbeddedServer } from '../../../src/server/app.js';
import { SCHEMA_VERSION } from '../../../src/server/store/db.js';
import { openDatabase } from '../../../src/server/store/sqlite.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-startup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function startupError(p: Promise<unknown>): Promise<StartupError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StartupError);
  return err as StartupError;
}

describe('listening', () => {
  it('names an address in use and a host name that does not resolve', async () => {
    const first = await startEmbeddedServer();
    try {
      const port = Number(new URL(first.baseUrl).port);
      const e = await startupError(startEmbeddedServer({ port }));
      expect(e.message).toBe(`cannot listen on 127.0.0.1:${port}: the address is already in use`);
      expect(e.hint).toMatch(/--port 0/);
    } finally {
      await first.close();
    }
    expect((await startupError(startEmbeddedServer({ host: 'not a host' }))).message).toBe(
      'cannot listen on "not a host": no such host name',
    );
  });
});

describe('the data directory', () => {
  it('keeps the directory 0700 and the key and database files 0600, also when they were loosened', () => {
    const dir = join(root, 'modes');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const mode = (p: string) => statSync(p).mode & 0o777;
    const files = ['seal.key', 'agctl.db', 'agctl.db-wal', 'agctl.db-shm'].map((f) => join(dir, f));
    const open = () => {
      const s = new EmbeddedServer({ dataDir: dir });
      // The log and shared-memory files exist while the store is open.
      const modes = [mode(dir), ...files.map(mode)];
      s.store.close();
      return modes;
    };
    expect(open()).toEqual([0o700, 0o600, 0o600, 0o600, 0o600]);
    // A key restored from a backup, a directory and database copied with default modes.
    chmodSync(dir, 0o755);
    for (const f of files.slice(0, 2)) chmodSync(f, 0o644);
    expect(open()).toEqual([0o700, 0o600, 0o600, 0o600, 0o600]);
  });

  it('names a regular file where the directory (or a parent) should be', () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    expect(() => new EmbeddedServer({ dataDir: file, dataDirFlag: '--data-dir' })).toThrow(
      `data directory ${file}: it is a file, not a directory`,
    );
    expect(() => new EmbeddedServer({ dataDir: join(file, 'sub') })).toThrow(
      `data directory ${join(file, 'sub')}: ${file} is a file, not a directory`,
    );
  });

  it('names a database file that is not one', () => {
    const dir = join(root, 'corrupt');
    mkdirSync(dir);
    writeFileSync(join(dir, 'agctl.db'), randomBytes(8192));
    let err: unknown;
    try {
      new EmbeddedServer({ dataDir: dir, sealKey: randomBytes(32) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toBe(
      `the database ${join(dir, 'agctl.db')} is damaged or not an agctl database (SQLite: file is not a database)`,
    );
  });

  it('refuses a database of a later storage layout or of an unnumbered one, and leaves it as it was', async () => {
    const dir = join(root, 'layouts');
    const server = new EmbeddedServer({ dataDir: dir });
    await server.close();
    const file = join(dir, 'agctl.db');
    const setVersion = (v: number) => {
      const db = openDatabase(file);
      db.pragma(`user_version = ${v}`);
      db.close();
    };
    setVersion(0);
    const earlier = await startupError(startEmbeddedServer({ dataDir: dir, dataDirFlag: '--data-dir' }));
    expect(earlier.message).toBe(
      `the database ${file} was written by a development version of agctl before storage layouts were numbered, which this version cannot convert`,
    );
    expect(earlier.hint).toBe(
      'move the data directory away to start with fresh demo data, or choose another data directory with --data-dir',
    );
    setVersion(99);
    const unknown = await startupError(startEmbeddedServer({ dataDir: dir }));
    expect(unknown.message).toBe(
      `the database ${file} has storage layout 99, written by a newer version of agctl (this one reads layouts up to ${SCHEMA_VERSION}); nothing was changed`,
    );
    expect(unknown.hint).toBe('use that newer version of agctl, or choose another data directory');
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(99);
    db.close();
    // Back at this version's layout, the data directory starts again, with its data.
    setVersion(SCHEMA_VERSION);
    const again = new EmbeddedServer({ dataDir: dir });
    expect(again.demo).toEqual(server.demo);
    await again.close();
  });

  it('names a damaged seal key file', () => {
    const dir = join(root, 'short-key');
    mkdirSync(dir);
    writeFileSync(join(dir, 'seal.key'), 'abc\n');
    expect(() => new EmbeddedServer({ dataDir: dir })).toThrow(
      `the seal key file ${join(dir, 'seal.key')} is damaged: it must hold 32 bytes`,
    );
  });

  it('says when the key is not the one the secrets were sealed with, also for a directory written before the key check', async () => {
    const dir = join(root, 'sealed');
    const key = randomBytes(32);
    await (await startEmbeddedServer({ dataDir: dir, sealKey: key })).close();
    const wrong = () => new EmbeddedServer({ dataDir: dir, sealKey: randomBytes(32) });
    expect(wrong).toThrow(StartupError);
    expect(wrong).toThrow(`the data directory ${dir} holds secrets sealed with another key`);
    // Written before the check value existed: the secrets themselves tell.
    const db = openDatabase(join(dir, 'agctl.db'));
    db.prepare("DELETE FROM meta WHERE key = 'seal_check'").run();
    db.close();
    expect(wrong).toThrow(`the data directory ${dir} holds secrets sealed with another key`);
    // The right key still opens it (and records the check again).
    const ok = new EmbeddedServer({ dataDir: dir, sealKey: key });
    expect(ok.store.getMeta('seal_check')).toBeDefined();
    await ok.close();
    expect(wrong).toThrow(StartupError);
  });
});
