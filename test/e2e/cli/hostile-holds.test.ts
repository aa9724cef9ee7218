// What already held against a hostile tenant, kept: no redirect is followed
// (so neither the bearer token nor the client secret reaches another origin),
// retries stop, and a Retry-After of days is not waited for.
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { hostileTenant } from '../../helpers/hostile-tenant.js';

describe('a hostile tenant cannot', () => {
  it.concurrent('send the token or the client secret to another origin with a redirect', async () => {
    const other = await hostileTenant({ kind: 'one-page', nextPageToken: '' });
    const t = await hostileTenant({ kind: 'status', status: 307, headers: { location: `${other.url}/steal` } });
    const dir = tempDir('agctl-hostile-holds-');
    const withToken = await cliFor(dir, { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok' })(['rules', 'list', 'app']);
    const withSecret = await cliFor(dir, { AGCTL_BASE_URL: t.url, AGCTL_CLIENT_ID: 'bot', AGCTL_CLIENT_SECRET: 'shh' })([
      'rules',
      'list',
      'app',
    ]);
    for (const r of [withToken, withSecret]) {
      expect(r.code, r.stderr).toBe(9);
      expect(r.stderr).toContain(`agctl: the server redirected to ${other.url}/steal (HTTP 307); agctl does not follow redirects`);
    }
    expect(other.stats.requests).toEqual({ token: 0, api: 0 });
    expect(t.stats.requests).toEqual({ token: 1, api: 1 });
  });

  it.concurrent('keep agctl retrying: 429 and 503 are retried 3 times, then the answer stands', async () => {
    for (const [status, code] of [
      [429, 8],
      [503, 9],
    ] as const) {
      const t = await hostileTenant({ kind: 'status', status, headers: {} });
      const r = await cliFor(tempDir('agctl-hostile-holds-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok' })([
        'rules',
        'list',
        'app',
      ]);
      expect(r.code, r.stderr).toBe(code);
      expect(t.stats.requests.api).toBe(4);
      await t.close();
    }
  });

  it.concurrent('make agctl sleep: Retry-After: 999999 is not waited for, the answer stands at once', async () => {
    const t = await hostileTenant({ kind: 'status', status: 503, headers: { 'retry-after': '999999' } });
    const started = performance.now();
    const r = await cliFor(tempDir('agctl-hostile-holds-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok' })(['rules', 'list', 'app']);
    expect(r.code, r.stderr).toBe(9);
    // Not retried (the in-process clock would shorten a wait, so the count is what shows it was not waited for).
    expect(t.stats.requests.api).toBe(1);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
