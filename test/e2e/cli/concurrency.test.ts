// CLI processes started at once on an empty config dir (no key file, no token
// cache) all succeed and leave one valid, openable cache file per client. The
// key file race itself is pinned down without timing luck in
// test/unit/config/vault.test.ts (createKeyFile keeps a key created meanwhile).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenUrlFor } from '../../../src/client/auth.js';
import { Vault } from '../../../src/config/vault.js';
import { cliFor, spawnCliProcess, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

const s = await startTestServer();
const dir = join(tempDir('agctl-concurrency-'), 'config');
const app = s.demo.rules.appId as string;
const PROCESSES = 8;

describe('concurrent CLI processes', () => {
  it('all succeed on an empty cache and leave valid cache files', { timeout: 60_000 }, async () => {
    const cli = cliFor(dir, { AGCTL_BASE_URL: s.baseUrl }, spawnCliProcess);
    const clients = [s.plainClient, s.keyClient];
    const started = Date.now();
    const runs = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) => {
        const c = clients[i % 2]!;
        return cli(['rules', 'list', app, '--limit', '2', '-o', 'json'], { env: { AGCTL_CLIENT_ID: c.clientId, AGCTL_CLIENT_SECRET: c.clientSecret }, timeoutMs: 30_000 });
      }),
    );
    const elapsed = Date.now() - started;
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().map((x: { id: string }) => x.id)).toEqual(['ecr-001', 'ecr-002']);
    }
    expect(elapsed).toBeLessThan(30_000);

    // One key file, one token file per client, no temporary files left behind.
    expect(readdirSync(dir).sort()).toEqual(['key', 'tokens']);
    const files = readdirSync(join(dir, 'tokens'));
    expect(files).toHaveLength(2);
    expect(files.every((f) => /^[0-9a-f]{32}\.json$/.test(f))).toBe(true);
    expect(statSync(join(dir, 'key')).mode & 0o777).toBe(0o600);

    const vault = new Vault(dir, {});
    for (const c of clients) {
      const path = vault.tokenPath('default', tokenUrlFor(s.baseUrl), c.clientId);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ tokenUrl: tokenUrlFor(s.baseUrl), clientId: c.clientId, expiresAt: expect.any(Number) });
      const token = vault.loadToken('default', tokenUrlFor(s.baseUrl), c.clientId);
      expect(token?.accessToken).toMatch(/^agt_/);
      // the cached token is one the server issued and still accepts
      const use = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=1`, { auth: false, headers: { authorization: `Bearer ${token!.accessToken}` } });
      expect(use.status).toBe(200);
    }

    // The next run reuses the cache: no new token.
    const issued = () => (s.server.store.db.prepare('SELECT count(*) AS n FROM access_tokens').get() as { n: number }).n;
    const before = issued();
    const again = await cli(['rules', 'list', app, '--limit', '1'], { env: { AGCTL_CLIENT_ID: s.keyClient.clientId, AGCTL_CLIENT_SECRET: s.keyClient.clientSecret } });
    expect(again.code).toBe(0);
    expect(issued()).toBe(before);
  });
});
