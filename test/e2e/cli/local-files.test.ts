// Local files that others can write, or links planted where agctl keeps a
// file: refused (exit 2, naming the path and the fix) or replaced, never
// read or written through. Another user is real: the CLI runs as nobody
// (setpriv, as root) against files of root's, daemon's or its own; where that
// is not possible those tests are skipped, saying why.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenUrlFor } from '../../../src/client/auth.js';
import { Vault } from '../../../src/config/vault.js';
import { BIN, ROOT, cliFor, spawnCliProcess, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

/** The credential file of `profile` (credentials/<profile>+<hash of base URL and client>.json): there is one after a login. */
function credentialOf(dir: string, profile: string): string {
  const files = readdirSync(join(dir, 'credentials')).filter((f) => f.startsWith(`${profile}+`) && f.endsWith('.json'));
  expect(files).toHaveLength(1);
  return join(dir, 'credentials', files[0]!);
}

const s = await startTestServer();
const work = tempDir('agctl-files-');
const app = s.demo.rules.appId as string;
const issued = () => (s.server.store.db.prepare('SELECT count(*) AS n FROM access_tokens').get() as { n: number }).n;
const loginEnv = { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret };
const envCredentials = {
  AGCTL_BASE_URL: s.baseUrl,
  AGCTL_CLIENT_ID: s.plainClient.clientId,
  AGCTL_CLIENT_SECRET: s.plainClient.clientSecret,
};
const mode = (p: string) => statSync(p).mode & 0o777;

const SETPRIV = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'];
function otherUserWay(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: no other user to run the CLI as';
  const r = spawnSync(SETPRIV[0]!, [...SETPRIV.slice(1), process.execPath, BIN, '--version'], { timeout: 10_000, cwd: ROOT });
  return r.status === 0 ? undefined : `setpriv as nobody cannot run ${BIN} (${r.stderr?.toString().trim() || `exit ${r.status}`})`;
}
const noOtherUser = otherUserWay();
if (noOtherUser) console.warn(`local files tests as another user skipped: ${noOtherUser}`);

/** Lets nobody reach `dir` (its parents: the temporary directories of this run). */
function reachable(dir: string): void {
  for (let d = dirname(dir); basename(d).startsWith('agctl-'); d = dirname(d)) chmodSync(d, 0o755);
}

/** Runs the real CLI as nobody with `dir` as its config directory. */
const asNobody = (dir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  spawnCliProcess(args, { configDir: dir, env, launcher: SETPRIV, timeoutMs: 20_000 });

/** A logged-in config directory (profile p, key in the key file). */
async function loggedIn(name: string): Promise<string> {
  const dir = join(work, name);
  const r = await cliFor(dir, loginEnv)(['login', '--profile', 'p', '--client-id', s.plainClient.clientId]);
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

const firstLine = (r: CliResult) => {
  expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  return r.stderr.split('\n')[0];
};

describe('a config directory others can write', () => {
  it('is refused before anything is read or sent (exit 2, the fix named); once fixed it works; credentials from the environment work where nothing is stored', {
    timeout: 60_000,
  }, async () => {
    const dir = await loggedIn('loose');
    const cli = cliFor(dir, {});
    for (const [m, who] of [
      [0o777, 'group and others'],
      [0o770, 'its group'],
    ] as const) {
      chmodSync(dir, m);
      const before = issued();
      const r = await cli(['rules', 'list', app, '--limit', '1']);
      expect(r.code, r.stderr).toBe(2);
      expect(firstLine(r)).toBe(`agctl: the directory ${dir} is not safe to use: it is writable by ${who} (mode 0${m.toString(8)})`);
      expect(r.stderr).toContain(`hint: chmod 700 ${dir}`);
      expect(issued()).toBe(before);
    }
    chmodSync(dir, 0o700);
    expect((await cli(['rules', 'list', app, '--limit', '1'])).code).toBe(0);

    // A file in it that others can write: refused too.
    chmodSync(join(dir, 'config.json'), 0o666);
    const r = await cli(['rules', 'list', app, '--limit', '1']);
    expect(r.code).toBe(2);
    expect(firstLine(r)).toBe(
      `agctl: the file ${join(dir, 'config.json')} is not safe to read: it is writable by group and others (mode 0666)`,
    );
    expect(r.stderr).toContain(`hint: chmod 600 ${join(dir, 'config.json')}`);

    // Nothing stored: credentials from the environment work (the token is not cached there).
    const empty = join(work, 'loose-empty');
    mkdirSync(empty);
    chmodSync(empty, 0o777);
    const env = await cliFor(empty, envCredentials)(['rules', 'list', app, '--limit', '1', '-o', 'json']);
    expect(env.code, env.stderr).toBe(0);
  });
});

describe.skipIf(noOtherUser)('files of another user (the CLI runs as nobody)', () => {
  it('a config directory or a file in it owned by another user is refused (exit 2) before anything is sent; a directory of its own works', {
    timeout: 60_000,
  }, async () => {
    const dir = await loggedIn('daemons');
    // Readable by all, owned by daemon: nobody could read it, and must not trust it.
    execFileSync('chmod', ['-R', 'a+rX', dir]);
    execFileSync('chown', ['-R', 'daemon:daemon', dir]);
    reachable(dir);
    const before = issued();
    const r = await asNobody(dir, ['rules', 'list', app, '--limit', '1']);
    expect(r.code, r.stderr).toBe(2);
    expect(firstLine(r)).toBe(
      `agctl: the file ${join(dir, 'config.json')} is not safe to read: it is owned by daemon, not by nobody who runs agctl`,
    );
    expect(r.stderr).toContain(`hint: use a file of your own, or have ${join(dir, 'config.json')} owned by you (chown)`);

    // nobody's own directory, where daemon planted a credential file.
    execFileSync('chown', ['-R', 'nobody:nogroup', dir]);
    execFileSync('chmod', ['-R', 'go-rwx', dir]);
    chmodSync(dir, 0o700);
    const cred = credentialOf(dir, 'p');
    execFileSync('chown', ['daemon:daemon', cred]);
    chmodSync(cred, 0o644);
    const planted = await asNobody(dir, ['rules', 'list', app, '--limit', '1']);
    expect(planted.code, planted.stderr).toBe(2);
    expect(firstLine(planted)).toBe(`agctl: the file ${cred} is not safe to read: it is owned by daemon, not by nobody who runs agctl`);
    expect(issued()).toBe(before);

    execFileSync('chown', ['nobody:nogroup', cred]);
    chmodSync(cred, 0o600);
    const ok = await asNobody(dir, ['rules', 'list', app, '--limit', '1', '-o', 'json']);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('serve and --embedded refuse a data directory of another user, or one others can write (exit 2), before opening anything in it', {
    timeout: 60_000,
  }, async () => {
    const data = join(work, 'shared-data');
    mkdirSync(data);
    chmodSync(data, 0o777);
    writeFileSync(join(data, 'agctl.db'), '');
    chmodSync(join(data, 'agctl.db'), 0o666);
    reachable(data);
    const config = join(work, 'nobody-config');
    mkdirSync(config);
    execFileSync('chown', ['nobody:nogroup', config]);
    reachable(config);
    const serve = await asNobody(config, ['serve', '--port', '0', '--data-dir', data]);
    expect(serve.code, serve.stderr).toBe(2);
    expect(firstLine(serve)).toBe(`agctl: data directory ${data} is not safe to use: it is owned by root, not by nobody who runs agctl`);
    const embedded = await asNobody(config, ['--embedded', 'rules', 'list', app], { AGCTL_DATA_DIR: data });
    expect(embedded.code, embedded.stderr).toBe(2);
    expect(firstLine(embedded)).toBe(
      `agctl: --embedded: data directory ${data} is not safe to use: it is owned by root, not by nobody who runs agctl`,
    );
    // As its owner, a directory others can write is refused too, with the fix.
    const own = await spawnCliProcess(['serve', '--port', '0', '--data-dir', data], {
      configDir: join(work, 'root-config'),
      timeoutMs: 20_000,
    });
    expect(own.code, own.stderr).toBe(2);
    expect(firstLine(own)).toBe(`agctl: data directory ${data} is not safe to use: it is writable by group and others (mode 0777)`);
    expect(own.stderr).toContain(`hint: chmod 700 ${data} (it holds the seal key and the database)`);
    expect(readdirSync(data)).toEqual(['agctl.db']);
    expect(mode(join(data, 'agctl.db'))).toBe(0o666);
  });
});

describe('links planted where agctl keeps a file', () => {
  it('are replaced (the lock) or refused (config.json, the key, a credential, a cached token, the seal key), never written or chmodded through', {
    timeout: 60_000,
  }, async () => {
    const dir = join(work, 'links');
    mkdirSync(dir, { mode: 0o700 });
    const target = (name: string) => {
      const t = join(work, `target-${name}`);
      writeFileSync(t, `precious ${name}\n`, { mode: 0o644 });
      chmodSync(t, 0o644);
      return t;
    };
    const untouched = (t: string, name: string) => {
      expect(readFileSync(t, 'utf8')).toBe(`precious ${name}\n`);
      expect(mode(t)).toBe(0o644);
    };
    const cli = cliFor(dir, loginEnv);
    const login = (profile: string) => cli(['login', '--profile', profile, '--client-id', s.plainClient.clientId]);

    // config.json: refused (read before it is written); config.lock: replaced by agctl's own lock.
    const tConfig = target('config');
    const tLock = target('lock');
    symlinkSync(tConfig, join(dir, 'config.json'));
    symlinkSync(tLock, join(dir, 'config.lock'));
    const linked = await login('p');
    expect(linked.code).toBe(2);
    expect(firstLine(linked)).toBe(
      `agctl: the file ${join(dir, 'config.json')} is a symbolic link: agctl does not follow links inside its directory`,
    );
    untouched(tConfig, 'config');
    rmSync(join(dir, 'config.json'));
    const first = await login('p');
    expect(first.code, first.stderr).toBe(0);
    expect(lstatSync(join(dir, 'config.json')).isFile()).toBe(true);
    expect(existsSync(join(dir, 'config.lock'))).toBe(false);
    untouched(tLock, 'lock');

    // The key: refused, neither read nor chmodded through.
    const tKey = target('key');
    renameSync(join(dir, 'key'), join(work, 'real-key'));
    symlinkSync(tKey, join(dir, 'key'));
    const refused = await login('q');
    expect(refused.code).toBe(2);
    expect(firstLine(refused)).toBe(
      `agctl: the key file ${join(dir, 'key')} is a symbolic link: agctl does not follow links inside its directory`,
    );
    untouched(tKey, 'key');
    rmSync(join(dir, 'key'));
    renameSync(join(work, 'real-key'), join(dir, 'key'));

    // A credential: refused by the next login (which reads it first), and by a command.
    const tCred = target('credential');
    const credFile = credentialOf(dir, 'p');
    renameSync(credFile, join(work, 'real-credential'));
    symlinkSync(tCred, credFile);
    for (const r of [await login('p'), await cli(['rules', 'list', app, '--limit', '1'])]) {
      expect(r.code).toBe(2);
      expect(firstLine(r)).toBe(`agctl: the file ${credFile} is a symbolic link: agctl does not follow links inside its directory`);
    }
    untouched(tCred, 'credential');
    rmSync(credFile);
    renameSync(join(work, 'real-credential'), credFile);

    // A cached token: refused when read, naming it.
    const tokenFile = new Vault(dir, {}).tokenPath('p', tokenUrlFor(s.baseUrl), s.plainClient.clientId);
    const tToken = target('token');
    mkdirSync(dirname(tokenFile), { recursive: true });
    rmSync(tokenFile, { force: true });
    symlinkSync(tToken, tokenFile);
    const list = await cli(['rules', 'list', app, '--limit', '1']);
    expect(list.code).toBe(2);
    expect(firstLine(list)).toBe(`agctl: the file ${tokenFile} is a symbolic link: agctl does not follow links inside its directory`);
    untouched(tToken, 'token');

    // The embedded server's seal key.
    const data = join(work, 'links-data');
    mkdirSync(data, { mode: 0o700 });
    const tSeal = target('seal');
    symlinkSync(tSeal, join(data, 'seal.key'));
    const embedded = await cliFor(join(work, 'links-config'), { AGCTL_DATA_DIR: data })(['--embedded', 'rules', 'list', app]);
    expect(embedded.code).toBe(2);
    expect(embedded.stderr).toContain(`${join(data, 'seal.key')} is a symbolic link`);
    untouched(tSeal, 'seal');
  });
});
