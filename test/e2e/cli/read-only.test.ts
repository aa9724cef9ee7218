// A config directory agctl cannot write (a read-only mount in a container, a
// mounted secret): commands that only read work, a token renewed is used for
// the run only (one note), credentials from the environment work with an
// empty directory, and the commands that must write say why, exit 2.
//
// As root, mode bits do not make a directory read-only: each CLI process runs
// in a mount namespace of its own (unshare) where the directory is bind-mounted
// read-only. Where that is not allowed, the process runs as nobody (setpriv)
// against a directory it cannot write; where neither is possible the tests are
// skipped, saying why.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenUrlFor } from '../../../src/client/auth.js';
import { Vault } from '../../../src/config/vault.js';
import { BIN, ROOT, cliFor, spawnCliProcess, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

interface ReadOnly {
  /** How: `a read-only mount` or `another user`. */
  how: string;
  /** The launcher running a process with `dir` read-only. */
  launcher(dir: string): string[];
  /** Readies `dir`, a directory in a temporary one (for another user: readable by all, writable by root alone). */
  prepare(dir: string): void;
  /** The cause in the error message. */
  cause: string;
}

const MOUNT_RO = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1"';

function readableByAll(path: string): void {
  const st = statSync(path);
  chmodSync(path, st.isDirectory() ? 0o755 : 0o644);
  if (st.isDirectory()) for (const f of readdirSync(path)) readableByAll(join(path, f));
}

/** A way to run the CLI with a directory it cannot write, or why there is none. */
function readOnlyWay(): ReadOnly | string {
  const probe = tempDir('agctl-ro-probe-');
  const mounted = spawnSync('unshare', ['-rm', 'sh', '-c', `${MOUNT_RO} && ! touch "$1/x" 2>/dev/null`, 'sh', probe], { timeout: 10_000 });
  if (mounted.status === 0 && !existsSync(join(probe, 'x'))) {
    return {
      how: 'a read-only mount',
      launcher: (dir) => ['unshare', '-rm', 'sh', '-c', `${MOUNT_RO} && shift && exec "$@"`, 'sh', dir],
      prepare: () => {},
      cause: 'the file system is read-only',
    };
  }
  if (process.getuid?.() === 0) {
    const setpriv = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'];
    // nobody must be able to run the CLI from where it lies (a clone in a private home may not be readable).
    const other = spawnSync(setpriv[0]!, [...setpriv.slice(1), process.execPath, BIN, '--version'], { timeout: 10_000, cwd: ROOT });
    if (other.status === 0) {
      return {
        how: 'another user',
        launcher: () => setpriv,
        prepare: (dir) => {
          readableByAll(dir);
          chmodSync(dirname(dir), 0o755);
        },
        cause: 'permission denied',
      };
    }
  }
  return `no private read-only mount (unshare -rm: ${mounted.stderr?.toString().trim() || `exit ${mounted.status}`}) and no other user to run the CLI as (setpriv as nobody, as root, with ${ROOT} readable by all)`;
}

const way = readOnlyWay();
const ro = typeof way === 'string' ? undefined : way;
if (!ro) console.warn(`read-only config tests skipped: ${way}`);

const s = await startTestServer();
const work = tempDir('agctl-ro-');
const app = s.demo.rules.appId as string;
const tokenUrl = tokenUrlFor(s.baseUrl);
/** Tokens the server has issued so far. */
const issued = () => (s.server.store.db.prepare('SELECT count(*) AS n FROM access_tokens').get() as { n: number }).n;
const envCredentials = {
  AGCTL_BASE_URL: s.baseUrl,
  AGCTL_CLIENT_ID: s.plainClient.clientId,
  AGCTL_CLIENT_SECRET: s.plainClient.clientSecret,
};

/** Runs the real CLI with `dir` read-only. */
function readOnly(dir: string) {
  return (args: string[], env: Record<string, string> = {}): Promise<CliResult> => {
    ro!.prepare(dir);
    return spawnCliProcess(args, { configDir: dir, env, launcher: ro!.launcher(dir), timeoutMs: 20_000 });
  };
}

/** stderr's lines, with no stack trace among them. */
function lines(r: CliResult): string[] {
  expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  return r.stderr.split('\n').filter(Boolean);
}

describe.skipIf(!ro)(`a config directory agctl cannot write (${ro?.how ?? 'skipped'})`, () => {
  it('a logged-in profile: the cached token is used, an expired one renewed for the run only with one note; login, logout and switch fail (exit 2) naming the directory', {
    timeout: 60_000,
  }, async () => {
    const dir = join(work, 'profile');
    const login = await cliFor(dir, { AGCTL_BASE_URL: s.baseUrl })(['login', '--profile', 'p', '--client-id', s.plainClient.clientId], {
      env: { AGCTL_CLIENT_SECRET: s.plainClient.clientSecret },
    });
    expect(login.code, login.stderr).toBe(0);
    const cli = readOnly(dir);

    // A valid cached token: used, no token request, nothing on stderr.
    let before = issued();
    const [list, status, token] = await Promise.all([
      cli(['rules', 'list', app, '--limit', '2', '-o', 'json']),
      cli(['auth', 'status', '--offline', '-o', 'json']),
      cli(['auth', 'token']),
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json().map((r: { id: string }) => r.id)).toEqual(['ecr-001', 'ecr-002']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json()).toMatchObject({
      profile: 'p',
      loggedIn: true,
      credentials: 'plain client secret stored (sealed)',
      token: { state: 'valid' },
    });
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout).toMatch(/^agt_/);
    for (const r of [list, status, token]) expect(r.stderr).toBe('');
    expect(issued()).toBe(before);

    // An expired one: renewed once in memory for all the run's requests (3 pages), one note, the cache left as it was.
    const vault = new Vault(dir, {});
    vault.saveToken(
      'p',
      tokenUrl,
      s.plainClient.clientId,
      { accessToken: 'agt_expired_0123456789', expiresAt: Math.floor(Date.now() / 1000) - 10 },
      s.plainClient.clientSecret,
    );
    const expiredFile = readFileSync(vault.tokenPath('p', tokenUrl, s.plainClient.clientId), 'utf8');
    before = issued();
    const renewed = await cli(['rules', 'list', app, '--page-size', '10', '-o', 'json']);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(renewed.json()).toHaveLength(26);
    expect(issued() - before).toBe(1);
    expect(lines(renewed)).toEqual([
      `note: the new token is used for this run only: it could not be cached (AGCTL_CONFIG_DIR ${dir}: ${ro!.cause} (${join(dir, 'tokens')}))`,
    ]);
    expect(readFileSync(vault.tokenPath('p', tokenUrl, s.plainClient.clientId), 'utf8')).toBe(expiredFile);

    // The commands that must write: exit 2, the directory and the cause, before anything is sent.
    const files = readdirSync(dir, { recursive: true }).sort();
    before = issued();
    const writes = await Promise.all([
      cli(['login', '--profile', 'q', '--client-id', s.plainClient.clientId], {
        AGCTL_BASE_URL: s.baseUrl,
        AGCTL_CLIENT_SECRET: s.plainClient.clientSecret,
      }),
      cli(['logout', '--profile', 'p']),
      cli(['auth', 'switch', 'p']),
    ]);
    for (const r of writes) {
      expect(r.code, r.stderr).toBe(2);
      const [first, ...rest] = lines(r);
      expect(first).toBe(`agctl: AGCTL_CONFIG_DIR ${dir}: ${ro!.cause}`);
      expect(rest).toEqual(['hint: AGCTL_CONFIG_DIR must name a directory agctl can write (it is created when missing)']);
    }
    expect(issued()).toBe(before);
    expect(readdirSync(dir, { recursive: true }).sort()).toEqual(files);
  });

  it('credentials from the environment work with an empty directory, and nothing is written there', { timeout: 30_000 }, async () => {
    const dir = join(work, 'empty');
    mkdirSync(dir);
    const cli = readOnly(dir);
    const accessToken = await s.token();
    const before = issued();
    const [viaSecret, viaToken, status] = await Promise.all([
      cli(['rules', 'list', app, '--page-size', '10', '-o', 'json'], envCredentials),
      cli(['rules', 'list', app, '--limit', '1', '-o', 'json'], { AGCTL_BASE_URL: s.baseUrl, AGCTL_ACCESS_TOKEN: accessToken }),
      cli(['auth', 'status', '-o', 'json'], envCredentials),
    ]);
    for (const r of [viaSecret, viaToken, status]) {
      expect(r.code, r.stderr).toBe(0);
      // A directory that cannot be written is the usual case here: no note.
      expect(r.stderr).toBe('');
    }
    expect(viaSecret.json()).toHaveLength(26);
    expect(status.json()).toMatchObject({ loggedIn: true, server: { state: 'accepted' } });
    // One token for each of the two runs with a secret (the list's three pages share one).
    expect(issued() - before).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });
});
