// Stress: a login is one step. Killed after any of its changes to the config
// directory, the next command uses the old profile with its own secret, or the
// new one with its own, never the profile of one tenant with the secret of the
// other. Two tenants on 127.0.0.1 know the same client ID, each with its own
// secret, and record every request. Profile "p" is logged in to tenant 1; a
// login to tenant 2 is then cut short (SIGKILL, from the
// test/helpers/kill-after.mjs preload) after its 1st change, its 2nd, ... until
// it runs to the end; after each cut, `rules list` runs on the profile as the
// directory was left, and neither tenant may have seen the other's secret.
// Bounded: 40 cuts at most. The same without a kill: test/e2e/cli/profile-moved.test.ts.
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, cliFor, spawnCliProcess, tempDir, type CliResult } from '../helpers/cli.js';
import { CLIENT, expectNoCrossing, one, two, twoTenants } from '../helpers/two-tenants.js';

const KILL_AFTER = join(ROOT, 'test', 'helpers', 'kill-after.mjs');
const [t1, t2] = await twoTenants();

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
      expectNoCrossing(t1, t2);
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
});
