// The OS keyring for real, on Linux: the Secret Service of gnome-keyring in a
// D-Bus session of its own (dbus-run-session), its keyring unlocked with a
// password on stdin, with HOME and the XDG directories in a temporary
// directory (a session starts with an empty keyring and leaves nothing in the
// user's). The real bin/agctl.js runs in it (CI unset: with CI set no keyring
// is touched). Skipped only where dbus-run-session or gnome-keyring-daemon is
// missing; .ci/run installs both. macOS Keychain and Windows Credential
// Manager are not run here (the same binding, behind the same interface).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Vault } from '../../../src/config/vault.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnCliProcess, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

const hasKeyring = ['dbus-run-session', 'gnome-keyring-daemon'].every((p) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0);
const work = tempDir('agctl-keyring-');

/** A D-Bus session with an unlocked, empty keyring; `close()` ends it (as does this process ending: the session's shell waits on our pipe). */
async function keyringSession(name: string): Promise<{ env: Record<string, string>; close: () => Promise<void> }> {
  const home = join(work, name);
  mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 });
  const env = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_RUNTIME_DIR: join(home, 'run'),
  };
  const script =
    'printf %s agctl-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; echo "$DBUS_SESSION_BUS_ADDRESS"; read _';
  const child: ChildProcess = spawn('dbus-run-session', ['--', 'sh', '-c', script], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const closed = new Promise<void>((r) => child.on('close', () => r()));
  const address = await new Promise<string>((resolveAddress, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no D-Bus session within 10 s')), 10_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolveAddress(out.trim());
      }
    });
    child.on('error', reject);
  });
  return {
    env: {
      HOME: home,
      XDG_DATA_HOME: env.XDG_DATA_HOME,
      XDG_CACHE_HOME: env.XDG_CACHE_HOME,
      XDG_CONFIG_HOME: env.XDG_CONFIG_HOME,
      XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR,
      DBUS_SESSION_BUS_ADDRESS: address,
    },
    close: () => {
      child.stdin!.end();
      return closed;
    },
  };
}

/** The keyring entry agctl keeps for a profile of a config directory, read with the binding in a process of the session. */
function keyringEntry(sessionEnv: Record<string, string>, configDir: string, profile: string): string | null {
  const account = `${createHash('sha256')
    .update(realpathSync(resolve(configDir)))
    .digest('hex')
    .slice(0, 16)}:${profile}`;
  const r = spawnSync(
    process.execPath,
    [
      '-e',
      `const { Entry } = require('@napi-rs/keyring'); process.stdout.write(JSON.stringify(new Entry('agctl', ${JSON.stringify(account)}, { linux: { store: 'secret-service' } }).getPassword()))`,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, ...sessionEnv },
      encoding: 'utf8',
      timeout: 10_000,
    },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as string | null;
}

describe.skipIf(!hasKeyring)('the OS keyring (Linux Secret Service, gnome-keyring)', () => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let session: Awaited<ReturnType<typeof keyringSession>>;
  let empty: Awaited<ReturnType<typeof keyringSession>>;
  beforeAll(async () => {
    [s, session, empty] = await Promise.all([startTestServer(), keyringSession('session'), keyringSession('empty')]);
  });
  afterAll(async () => {
    await Promise.all([session?.close(), empty?.close()]);
  });

  /** The real CLI on a config dir, in a session (CI unset, so the keyring is used). */
  const agctl = (
    dir: string,
    sessionEnv: Record<string, string>,
    args: string[],
    opts: { input?: string; env?: Record<string, string> } = {},
  ) =>
    spawnCliProcess(args, { configDir: dir, input: opts.input, env: { ...sessionEnv, CI: undefined, AGCTL_CONFIG_DIR: dir, ...opts.env } });
  const login = (dir: string, sessionEnv: Record<string, string>, extra: string[] = []) =>
    agctl(dir, sessionEnv, ['login', '--base-url', s.baseUrl, '--client-id', s.plainClient.clientId, '--client-secret-stdin', ...extra], {
      input: s.plainClient.clientSecret,
    });

  it.concurrent('keeps the key in the keyring: the config directory alone, copied or used from another session, yields no token; logout leaves no entry', async () => {
    const dir = join(work, 'cfg');
    const r = await login(dir, session.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/no OS keyring/);
    expect(r.stderr).toContain(`credentials saved in ${dir}, sealed with a key in the OS keyring`);
    expect(existsSync(join(dir, 'key'))).toBe(false);
    expect(
      JSON.parse(
        readFileSync(
          new Vault(dir, {}).credentialPath({ profile: 'default', baseUrl: s.baseUrl, clientId: s.plainClient.clientId }),
          'utf8',
        ),
      ).keptIn,
    ).toBe('keyring');
    expect(keyringEntry(session.env, dir, 'default')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(keyringEntry(empty.env, dir, 'default')).toBeNull();

    const copy = join(work, 'cfg-copy');
    cpSync(dir, copy, { recursive: true });
    const [status, list, token, copied, elsewhere] = await Promise.all([
      agctl(dir, session.env, ['auth', 'status', '--offline']),
      agctl(dir, session.env, ['auth', 'list', '-o', 'json']),
      agctl(dir, session.env, ['auth', 'token']),
      agctl(copy, session.env, ['auth', 'token']),
      agctl(copy, empty.env, ['auth', 'token']),
    ]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Secret kept in:\s+keyring \(its key is in the OS keyring\)$/m);
    expect(status.stdout).toMatch(/^Token:\s+valid until/m);
    expect(list.json()).toMatchObject([{ name: 'default', secretKeptIn: 'keyring', token: { state: 'valid' } }]);
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout).toMatch(/^agt_\S+\n$/);
    // the copy: under another path (another keyring account), or in a session whose keyring is empty
    for (const r of [copied, elsewhere]) {
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^agctl: the stored client secret of profile "default" cannot be unsealed: its key is not in the OS keyring \(service "agctl", account "[0-9a-f]{16}:default"\)/m,
      );
      expect(r.stderr).toContain('hint: run `agctl login` again');
    }

    const out = await agctl(dir, session.env, ['logout']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toMatch(/could not be removed/);
    expect(keyringEntry(session.env, dir, 'default')).toBeNull();
    expect((await agctl(dir, session.env, ['auth', 'token'])).code).toBe(3);
  });

  it.concurrent('with --insecure-storage seals with the key file on purpose: no keyring entry, no warning', async () => {
    const dir = join(work, 'insecure');
    const r = await login(dir, session.env, ['--insecure-storage', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ secretKeptIn: 'file' });
    expect(r.stderr).toBe('');
    expect(keyringEntry(session.env, dir, 'default')).toBeNull();
    expect(existsSync(join(dir, 'key'))).toBe(true);
    const status = await agctl(dir, session.env, ['auth', 'status', '--offline']);
    expect(status.stdout).toMatch(
      new RegExp(`^Secret kept in:\\s+file \\(sealed with the key file ${join(dir, 'key').replace(/[.]/g, '\\.')}\\)$`, 'm'),
    );
  });

  it.concurrent('without a session bus falls back to the key file with one warning line at login, naming it', async () => {
    const dir = join(work, 'no-bus');
    const noBus = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(work, 'no-such-bus')}` };
    const r = await login(dir, noBus);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('! '));
    expect(warnings, r.stderr).toHaveLength(1);
    expect(warnings[0]).toMatch(/^! no OS keyring \(.+\): /);
    expect(warnings[0]).toContain(`the secret is sealed with the key file ${join(dir, 'key')} instead`);
    expect(
      JSON.parse(
        readFileSync(
          new Vault(dir, {}).credentialPath({ profile: 'default', baseUrl: s.baseUrl, clientId: s.plainClient.clientId }),
          'utf8',
        ),
      ).keptIn,
    ).toBe('file');
    // later commands say nothing of it, and work
    const token = await agctl(dir, noBus, ['auth', 'token']);
    expect(token.code, token.stderr).toBe(0);
    expect(token.stderr).toBe('');
    const status = await agctl(dir, noBus, ['auth', 'status', '--offline', '-o', 'json']);
    expect(status.json()).toMatchObject({ secretKeptIn: 'file', token: { state: 'valid' } });
  });
});
