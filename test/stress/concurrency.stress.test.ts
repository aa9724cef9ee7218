// CLI processes started at once on one config dir: logins, a switch and a
// logout lose no profile and orphan no secret; commands on an empty token
// cache all succeed with one token request per client and leave one valid,
// openable cache file per client. The key file race itself is pinned down
// without timing luck in test/unit/config/vault.test.ts (createKeyFile keeps a
// key created meanwhile), the lock's waiting and stale takeover in
// test/unit/config/lock.test.ts.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenUrlFor } from '../../src/client/auth.js';
import { Vault } from '../../src/config/vault.js';
import { cliFor, spawnCliProcess, tempDir } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer();
const work = tempDir('agctl-concurrency-');
const app = s.demo.rules.appId as string;
/** Tokens the server has issued so far (each one a token request that succeeded). */
const issued = () => (s.server.store.db.prepare('SELECT count(*) AS n FROM access_tokens').get() as { n: number }).n;

describe('concurrent CLI processes', () => {
  it('on an empty cache all succeed with one token request per client and leave valid cache files', { timeout: 60_000 }, async () => {
    const dir = join(work, 'cache', 'config');
    const cli = cliFor(dir, { AGCTL_BASE_URL: s.baseUrl }, spawnCliProcess);
    const clients = [s.plainClient, s.keyClient];
    const before = issued();
    const runs = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const c = clients[i % 2]!;
        return cli(['rules', 'list', app, '--limit', '2', '-o', 'json'], {
          env: { AGCTL_CLIENT_ID: c.clientId, AGCTL_CLIENT_SECRET: c.clientSecret },
          timeoutMs: 30_000,
        });
      }),
    );
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.json().map((x: { id: string }) => x.id)).toEqual(['ecr-001', 'ecr-002']);
    }
    // One process per client asked for a token; the others waited for it and used it.
    expect(issued() - before).toBe(clients.length);

    // One key file, one token file per client, no temporary or lock files left behind.
    expect(readdirSync(dir).sort()).toEqual(['key', 'tokens']);
    const files = readdirSync(join(dir, 'tokens'));
    expect(files).toHaveLength(2);
    expect(files.every((f) => /^[0-9a-f]{32}\.json$/.test(f))).toBe(true);
    expect(statSync(join(dir, 'key')).mode & 0o777).toBe(0o600);

    const vault = new Vault(dir, {});
    for (const c of clients) {
      const path = vault.tokenPath('default', tokenUrlFor(s.baseUrl), c.clientId);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
        tokenUrl: tokenUrlFor(s.baseUrl),
        clientId: c.clientId,
        expiresAt: expect.any(Number),
      });
      const token = vault.loadToken('default', tokenUrlFor(s.baseUrl), c.clientId);
      expect(token?.accessToken).toMatch(/^agt_/);
      // the cached token is one the server issued and still accepts
      const use = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=1`, {
        auth: false,
        headers: { authorization: `Bearer ${token!.accessToken}` },
      });
      expect(use.status).toBe(200);
    }

    // The next run reuses the cache: no new token.
    const cachedBefore = issued();
    const again = await cli(['rules', 'list', app, '--limit', '1'], {
      env: { AGCTL_CLIENT_ID: s.keyClient.clientId, AGCTL_CLIENT_SECRET: s.keyClient.clientSecret },
    });
    expect(again.code).toBe(0);
    expect(issued()).toBe(cachedBefore);
  });

  it('20 logins, a switch and a logout at once: every profile saved, every secret with its profile, nothing orphaned', {
    timeout: 60_000,
  }, async () => {
    const dir = join(work, 'logins', 'config');
    const inProcess = cliFor(dir, { AGCTL_BASE_URL: s.baseUrl });
    const spawned = cliFor(dir, { AGCTL_BASE_URL: s.baseUrl }, spawnCliProcess);
    const clients = [s.plainClient, s.keyClient];
    const login = (profile: string, c: { clientId: string; clientSecret: string }, run = spawned) =>
      run(['login', '--profile', profile, '--no-switch', '--client-id', c.clientId], {
        env: { AGCTL_CLIENT_SECRET: c.clientSecret },
        timeoutMs: 30_000,
      });
    // Two profiles before the rush: "first" (the current one) and "gone", logged out during it.
    for (const p of ['first', 'gone']) expect((await login(p, s.plainClient, inProcess)).code).toBe(0);

    const names = Array.from({ length: 20 }, (_, i) => `p${i}`);
    const runs = await Promise.all([
      ...names.map((p, i) => login(p, clients[i % 2]!)),
      spawned(['auth', 'switch', 'gone'], { timeoutMs: 30_000 }),
      spawned(['logout', '--profile', 'gone'], { timeoutMs: 30_000 }),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);

    const list = await inProcess(['auth', 'list', '-o', 'json']);
    expect(list.code).toBe(0);
    const rows = list.json() as { name: string; current: boolean; clientId: string; secretStored: boolean }[];
    expect(rows.map((r) => r.name).sort()).toEqual(['first', 'gone', ...names].sort());
    expect(rows.find((r) => r.current)?.name).toBe('gone');
    expect(rows.find((r) => r.name === 'gone')?.secretStored).toBe(false);
    for (const [i, p] of names.entries()) {
      expect(rows.find((r) => r.name === p)).toMatchObject({ clientId: clients[i % 2]!.clientId, secretStored: true });
    }
    // One credentials file per logged-in profile, no other file (nothing orphaned, nothing left half-written).
    const vault = new Vault(dir, {});
    const credentialFile = (n: string, c = s.plainClient) =>
      basename(vault.credentialPath({ profile: n, baseUrl: s.baseUrl, clientId: c.clientId }));
    expect(readdirSync(join(dir, 'credentials')).sort()).toEqual(
      [credentialFile('first'), ...names.map((n, i) => credentialFile(n, clients[i % 2]))].sort(),
    );
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'credentials', 'key', 'tokens']);

    // Every profile works: its stored secret opens and gets a token from the server.
    for (const p of names) {
      const r = await inProcess(['auth', 'token', '--profile', p]);
      expect(r.code, `${p}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/^agt_/);
    }
  });
});
