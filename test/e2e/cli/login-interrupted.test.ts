// A login is one step: killed after any of its changes to the config
// directory, the next command uses the old profile with its own secret, or the
// new one with its own, never the profile of one tenant with the secret of the
// other. Two tenants on 127.0.0.1 know the same client ID ("bot"), each with
// its own secret, and record every request. Profile "p" is logged in to
// tenant 1; a login to tenant 2 is then cut short (SIGKILL, from the
// test/helpers/kill-after.mjs preload) after its 1st change, its 2nd, ... until
// it runs to the end; after each cut, `rules list` runs on the profile as the
// directory was left, and neither tenant may have seen the other's secret.
//
// Also: a profile that config.json points at another server (someone who can
// write the file, or a cut login of an earlier agctl) sends its secret nowhere.
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, cliFor, spawnCliProcess, tempDir, type CliResult } from '../../helpers/cli.js';
import { sendJson, tinyServer, type Seen, type TinyServer } from '../../unit/client/tiny-server.js';
import { tenant as fakeTenant } from '../tenant/helpers.js';

const CLIENT = 'bot';
const KILL_AFTER = join(ROOT, 'test', 'helpers', 'kill-after.mjs');

/** A tenant that knows CLIENT with `secret`: a token for it, and an empty rule list for that token. */
async function tenant(secret: string, token: string): Promise<TinyServer> {
  const t = await tinyServer();
  t.reset((req, res) => {
    if (req.path === '/auth/v1/token') {
      const form = new URLSearchParams(req.body);
      if (form.get('client_id') === CLIENT && form.get('client_secret') === secret)
        return sendJson(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
      return sendJson(res, 401, { error: 'invalid_client', error_description: 'unknown client or secret' });
    }
    if (req.headers.authorization !== `Bearer ${token}`) return sendJson(res, 401, { code: 16, message: 'unauthenticated', details: [] });
    sendJson(res, 200, { list: [], nextPageToken: '' });
  });
  return t;
}

const one = { secret: 'secret-of-tenant-one', token: 'token-of-tenant-one' };
const two = { secret: 'secret-of-tenant-two', token: 'token-of-tenant-two' };
const [t1, t2] = await Promise.all([tenant(one.secret, one.token), tenant(two.secret, two.token)]);
const all = (seen: Seen[]) => seen.map((r) => `${r.method} ${r.path}\n${JSON.stringify(r.headers)}\n${r.body}`).join('\n');

/** Neither tenant has seen the other's secret or token. */
function expectNoCrossing() {
  for (const leak of [one.secret, one.token]) expect(all(t2.seen)).not.toContain(leak);
  for (const leak of [two.secret, two.token]) expect(all(t1.seen)).not.toContain(leak);
}

describe('a login cut short at any step', () => {
  it('leaves the old profile with its secret or the new one with its own: the next command never sends a secret to the other tenant', {
    timeout: 240_000,
  }, async () => {
    const base = tempDir('agctl-login-cut-');
    const template = join(base, 'logged-in');
    const first = await cliFor(template)(
      ['login', '--profile', 'p', '--base-url', t1.url, '--client-id', CLIENT, '--client-secret-stdin'],
      { input: one.secret },
    );
    expect(first.code, first.stderr).toBe(0);

    const outcomes: string[] = [];
    for (let n = 1; n <= 40; n++) {
      const dir = join(base, `cut-${n}`);
      cpSync(template, dir, { recursive: true });
      const log = join(base, `cut-${n}.log`);
      const login: CliResult = await spawnCliProcess(
        ['login', '--profile', 'p', '--base-url', t2.url, '--client-id', CLIENT, '--client-secret-stdin', '--force'],
        {
          configDir: dir,
          input: two.secret,
          timeoutMs: 60_000,
          env: {
            NODE_OPTIONS: `--import=${KILL_AFTER}`,
            AGCTL_TEST_KILL_AFTER: String(n),
            AGCTL_TEST_KILL_DIR: dir,
            AGCTL_TEST_KILL_LOG: log,
          },
        },
      );
      const steps = existsSync(log) ? readFileSync(log, 'utf8') : '';
      const cut = login.code === null;
      if (!cut) expect(login.code, login.stderr).toBe(0);
      t1.seen.length = 0;
      t2.seen.length = 0;
      const next = await cliFor(dir)(['rules', 'list', 'app', '-o', 'json', '--profile', 'p']);
      expectNoCrossing();
      // Whatever the cut left, the profile is complete: the command works, against the tenant the profile names.
      expect([n, next.code, next.stderr], steps).toEqual([n, 0, '']);
      const named = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.p.baseUrl;
      const served = t1.seen.length ? t1 : t2;
      expect([n, served.url], steps).toEqual([n, named]);
      expect((served === t1 ? t2 : t1).seen, steps).toEqual([]);
      outcomes.push(`${n}: ${cut ? 'cut' : 'done'}, then ${served === t1 ? 'tenant 1 (old profile)' : 'tenant 2 (new profile)'}`);
      rmSync(dir, { recursive: true, force: true });
      if (!cut) break;
    }
    // The login ran to its end within the bound, and was cut both before and after it switched the profile.
    expect(outcomes.at(-1)).toMatch(/done, then tenant 2/);
    expect(outcomes.some((o) => /cut, then tenant 1/.test(o))).toBe(true);
    expect(outcomes.some((o) => /cut, then tenant 2/.test(o))).toBe(true);
  });

  it('a profile config.json points at another server sends its secret nowhere: exit 3, "log in again" naming the profile', async () => {
    const dir = join(tempDir('agctl-login-moved-'), 'cfg');
    const cli = cliFor(dir);
    const login = await cli(['login', '--profile', 'p', '--base-url', t1.url, '--client-id', CLIENT, '--client-secret-stdin'], {
      input: one.secret,
    });
    expect(login.code, login.stderr).toBe(0);
    // whoever can write config.json moves the profile to their own server (tenant 2 plays it)
    const path = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.profiles.p.baseUrl = t2.url;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, JSON.stringify(config));
    t1.seen.length = 0;
    t2.seen.length = 0;
    for (const args of [
      ['rules', 'list', 'app'],
      ['auth', 'token'],
      ['auth', 'status'],
    ]) {
      const r = await cli([...args, '--profile', 'p']);
      expect([args, r.code]).toEqual([args, 3]);
      expect(r.stdout + r.stderr).not.toContain(one.secret);
      if (args[1] !== 'status') {
        expect(r.stderr).toContain(
          `agctl: profile "p" names ${t2.url}, but its stored secret was saved for ${t1.url}: it is not sent to ${t2.url}; log in again to profile "p"`,
        );
        expect(r.stderr).toContain(`hint: log in again: agctl login --profile p --base-url ${t2.url}`);
      }
    }
    expect(t2.seen).toEqual([]);
    expect(t1.seen).toEqual([]);
  });

  it('against two fake tenants: a profile moved to the other in config.json signs nothing for it, and works again once logged in there', async () => {
    const [ft1, ft2] = await Promise.all([fakeTenant(), fakeTenant()]);
    const dir = join(tempDir('agctl-login-moved-ft-'), 'cfg');
    const cli = cliFor(dir);
    const login = await cli(['login', '--profile', 'p', '--base-url', ft1.baseUrl, '--client-id', ft1.clientId], {
      env: { AGCTL_CLIENT_SECRET: ft1.clientSecret },
    });
    expect(login.code, login.stderr).toBe(0);
    const path = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.profiles.p.baseUrl = ft2.baseUrl;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, JSON.stringify(config));
    const before = ft2.tokens.log.length;
    const r = await cli(['rules', 'list', ft2.seed.rulesApp, '--profile', 'p']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('log in again to profile "p"');
    expect(ft2.tokens.log.length).toBe(before);
    // logged in there (the terminal would ask; --force here), the profile is complete again
    const again = await cli(['login', '--profile', 'p', '--base-url', ft2.baseUrl, '--client-id', ft2.clientId, '--force'], {
      env: { AGCTL_CLIENT_SECRET: ft2.clientSecret },
    });
    expect(again.code, again.stderr).toBe(0);
    const ok = await cli(['rules', 'list', ft2.seed.rulesApp, '--profile', 'p', '-o', 'json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ft2.tokens.log.slice(before).every((rec) => rec.form.client_id === ft2.clientId)).toBe(true);
  });
});
