// Stress: a full disk under login, logout and a token refresh (a tiny tmpfs
// in a private mount namespace, seen from here through /proc/<pid>/root),
// and the fsyncs of each write (strace). Skipped, saying why, where the
// machine allows no private mount or has no strace.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tokenUrlFor } from '../../src/client/auth.js';
import { Vault } from '../../src/config/vault.js';
import { spawnCliProcess, tempDir, type CliResult } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer();
const app = s.demo.rules.appId as string;
const issued = () => (s.server.store.db.prepare('SELECT count(*) AS n FROM access_tokens').get() as { n: number }).n;

/** unshare -m as root, unshare -rm otherwise; nsenter to run in it. */
const asRoot = process.getuid?.() === 0;
function privateMountWay(): string | undefined {
  const r = spawnSync(
    'unshare',
    [asRoot ? '-m' : '-rm', '--propagation', 'private', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d"'],
    { timeout: 10_000 },
  );
  if (r.status !== 0) return `no private mount namespace with a tmpfs (unshare: ${r.stderr?.toString().trim() || `exit ${r.status}`})`;
  const n = spawnSync('nsenter', ['--version'], { timeout: 10_000 });
  return n.status === 0 ? undefined : 'no nsenter';
}
const noMount = privateMountWay();
if (noMount) console.warn(`disk-full stress skipped: ${noMount}`);
const noStrace = spawnSync('strace', ['-V'], { timeout: 10_000 }).status === 0 ? undefined : 'no strace';
if (noStrace) console.warn(`fsync test skipped: ${noStrace}`);

/** Every file under `dir`, relative, with its content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir, { recursive: true }) as string[]) {
    try {
      out[f] = readFileSync(join(dir, f), 'utf8');
    } catch {
      out[f] = '<dir>';
    }
  }
  return out;
}

describe.skipIf(noMount)('a full disk', () => {
  let holder: ChildProcess;
  afterAll(() => holder?.kill());

  it('login, logout and a token refresh fail or go on without writing, leave the old state whole and no lock, and the next command does not wait', {
    timeout: 120_000,
  }, async () => {
    const dir = join(tempDir('agctl-full-'), 'config');
    // A process in a mount namespace of its own, where `dir` is a 256 KiB tmpfs.
    holder = spawn(
      'unshare',
      [
        asRoot ? '-m' : '-rm',
        '--propagation',
        'private',
        'sh',
        '-c',
        'mkdir -p "$1" && mount -t tmpfs -o size=256k,mode=0700 tmpfs "$1" && echo ready && exec sleep 600',
        'sh',
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((ok, fail) => {
      holder.stdout!.once('data', () => ok());
      holder.once('exit', (code) => fail(new Error(`unshare exited ${code}`)));
    });
    const inside = `/proc/${holder.pid}/root${dir}`;
    const launcher = ['nsenter', '-t', String(holder.pid), '-m', ...(asRoot ? [] : ['-U', '--preserve-credentials']), '--'];
    const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
      spawnCliProcess(args, { configDir: dir, env, launcher, timeoutMs: 30_000 });
    const loginEnv = { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret };
    const login = (profile: string) => cli(['login', '--profile', profile, '--client-id', s.plainClient.clientId], loginEnv);

    const first = await login('p');
    expect(first.code, first.stderr).toBe(0);
    // An expired cached token, so that the next command renews it.
    const vault = new Vault(inside, {});
    const tokenUrl = tokenUrlFor(s.baseUrl);
    vault.saveToken(
      'p',
      tokenUrl,
      s.plainClient.clientId,
      { accessToken: 'agt_expired_0123456789', expiresAt: Math.floor(Date.now() / 1000) - 10 },
      s.plainClient.clientSecret,
    );

    // Fill the disk.
    const fd = openSync(join(inside, 'filler'), 'w');
    try {
      const chunk = Buffer.alloc(4096, 1);
      for (;;) writeSync(fd, chunk);
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(fd);
    }
    const full = snapshot(inside);
    delete full.filler;

    const failed = await login('q');
    expect(failed.code, failed.stderr).toBe(2);
    expect(failed.stderr).toContain('no space left on the device');
    const logout = await cli(['logout', '--profile', 'p']);
    expect(logout.code, logout.stderr).toBe(2);
    expect(logout.stderr).toContain('no space left on the device');
    const tokens = issued();
    const refresh = await cli(['rules', 'list', app, '--limit', '1', '-o', 'json']);
    expect(refresh.code, refresh.stderr).toBe(0);
    expect(refresh.stderr).toContain('note: the new token is used for this run only');
    expect(issued() - tokens).toBe(1);
    // The old state whole: the same files, the same bytes, no lock, no temporary file.
    const after = snapshot(inside);
    delete after.filler;
    expect(after).toEqual(full);

    // Space again: the next commands go on at once (no lock to wait for, none older to judge).
    rmSync(join(inside, 'filler'));
    const started = Date.now();
    const again = await login('q');
    expect(again.code, again.stderr).toBe(0);
    const out = await cli(['logout', '--profile', 'p']);
    expect(out.code, out.stderr).toBe(0);
    console.log(`disk full: the next login and logout took ${Date.now() - started} ms (a lock left behind would have cost 10 s each)`);
    expect(readdirSync(inside).filter((f) => f.includes('lock') || f.endsWith('.tmp'))).toEqual([]);
    // q's credential (credentials/q+<hash of its base URL and client>.json) is whole.
    expect(readdirSync(join(inside, 'credentials')).filter((f) => f.startsWith('q+') && f.endsWith('.json'))).toHaveLength(1);
  });
});

describe.skipIf(noStrace)('fsync', () => {
  it('the key, a credential, a token and the profiles are fsynced before their rename, and their directories after', {
    timeout: 60_000,
  }, async () => {
    const dir = join(tempDir('agctl-fsync-'), 'config');
    const trace = join(tempDir('agctl-fsync-trace-'), 'trace');
    const launcher = ['strace', '-f', '-y', '-e', 'trace=fsync,fdatasync', '-o', trace];
    const login = await spawnCliProcess(['login', '--profile', 'p', '--client-id', s.plainClient.clientId], {
      configDir: dir,
      env: { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret },
      launcher,
      timeoutMs: 30_000,
    });
    expect(login.code, login.stderr).toBe(0);
    let synced = readFileSync(trace, 'utf8');
    const list = await spawnCliProcess(['rules', 'list', app, '--limit', '1'], { configDir: dir, launcher, timeoutMs: 30_000 });
    expect(list.code, list.stderr).toBe(0);
    synced += readFileSync(trace, 'utf8');
    /** The paths fsynced (strace -y prints the path of each descriptor). */
    const paths = [...synced.matchAll(/f(?:data)?sync\(\d+<([^>]+)>\) = 0/g)].map((m) => m[1]!);
    const fileSynced = (re: RegExp) => paths.some((p) => re.test(p));
    expect(fileSynced(new RegExp(`^${dir}/\\.key\\.[0-9a-f]+\\.tmp$`)), paths.join('\n')).toBe(true);
    expect(fileSynced(new RegExp(`^${dir}/credentials/\\.p\\+[0-9a-f]+\\.json\\.[0-9a-f]+\\.tmp$`)), paths.join('\n')).toBe(true);
    expect(fileSynced(new RegExp(`^${dir}/\\.config\\.json\\.[0-9a-f]+\\.tmp$`)), paths.join('\n')).toBe(true);
    expect(fileSynced(new RegExp(`^${dir}/tokens/\\.[0-9a-f]+\\.json\\.[0-9a-f]+\\.tmp$`)), paths.join('\n')).toBe(true);
    for (const d of [dir, join(dir, 'credentials'), join(dir, 'tokens')]) expect(paths, d).toContain(d);
  });
});
