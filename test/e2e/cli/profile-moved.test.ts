// A profile that config.json points at another server (someone who can write
// the file, or a cut login of an earlier agctl) sends its secret nowhere. The
// login killed after each of its steps: test/stress/login-interrupted.stress.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { CLIENT, one, twoTenants } from '../../helpers/two-tenants.js';
import { tenant as fakeTenant } from '../tenant/helpers.js';

const [t1, t2] = await twoTenants();

/** Points profile "p" of config dir `dir` at `url`, as whoever can write config.json could. */
function moveProfile(dir: string, url: string): void {
  const path = join(dir, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8'));
  config.profiles.p.baseUrl = url;
  writeFileSync(path, JSON.stringify(config));
}

describe('a profile moved to another server', () => {
  it('a profile config.json points at another server sends its secret nowhere: exit 3, "log in again" naming the profile', async () => {
    const dir = join(tempDir('agctl-login-moved-'), 'cfg');
    const cli = cliFor(dir);
    const login = await cli(['login', '--profile', 'p', '--base-url', t1.url, '--client-id', CLIENT, '--client-secret-stdin'], {
      input: one.secret,
    });
    expect(login.code, login.stderr).toBe(0);
    // whoever can write config.json moves the profile to their own server (tenant 2 plays it)
    moveProfile(dir, t2.url);
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
    moveProfile(dir, ft2.baseUrl);
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
