// A token endpoint handing out tokens no header can carry, or lifetimes that
// make no sense. A token longer than MAX_TOKEN_CHARS is refused (exit 9, a bad
// answer) and nothing is cached, so the next command fetches a good token
// instead of failing for the bad one's lifetime; a lifetime is kept at most a
// day; a cached token an older agctl accepted is not sent.
import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_CHARS, MAX_TOKEN_LIFETIME_S, tokenUrlFor } from '../../../src/client/auth.js';
import { Vault } from '../../../src/config/vault.js';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { hostileTenant } from '../../helpers/hostile-tenant.js';

const CLIENT = { AGCTL_CLIENT_ID: 'bot', AGCTL_CLIENT_SECRET: 'shh' };

async function setUp(chars: number, expiresIn?: unknown) {
  const t = await hostileTenant({ kind: 'token', chars, expiresIn });
  const dir = tempDir('agctl-hostile-tokens-');
  const cli = cliFor(dir, { AGCTL_BASE_URL: t.url, ...CLIENT });
  const vault = () => new Vault(dir, {});
  const cached = () => vault().loadToken('default', tokenUrlFor(t.url), 'bot');
  return { t, cli, cached, vault };
}

describe('a token endpoint handing out unusable tokens', () => {
  it.concurrent(`a token longer than ${MAX_TOKEN_CHARS} characters is exit 9, nothing cached; the next command gets a good token`, async () => {
    const { t, cli, cached } = await setUp(MAX_TOKEN_CHARS + 1);
    const r = await cli(['rules', 'list', 'app']);
    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toContain(
      `agctl: unexpected response from ${t.url}/auth/v1/token: "access_token" is ${MAX_TOKEN_CHARS + 1} characters long, more than the ${MAX_TOKEN_CHARS} agctl accepts\n`,
    );
    expect(t.stats.requests.api).toBe(0);
    expect(cached()).toBeUndefined();

    t.behave({ kind: 'one-page', nextPageToken: '' });
    const next = await cli(['rules', 'list', 'app', '-o', 'json']);
    expect(next.code, next.stderr).toBe(0);
    expect(t.stats.lastHeaders.authorization).toBe('Bearer hostile-token');
  });

  it.concurrent(`a token of ${MAX_TOKEN_CHARS} characters is used`, async () => {
    const { t, cli } = await setUp(MAX_TOKEN_CHARS);
    const r = await cli(['rules', 'list', 'app']);
    expect(r.code, r.stderr).toBe(0);
    expect(t.stats.lastHeaders.authorization).toBe(`Bearer ${'t'.repeat(MAX_TOKEN_CHARS)}`);
  });

  it.concurrent('a token answer of megabytes is cut at the token cap: exit 9, nothing cached', async () => {
    const { t, cli, cached } = await setUp(4_000_000);
    const r = await cli(['rules', 'list', 'app']);
    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toContain('/auth/v1/token is too large: it announces');
    expect(cached()).toBeUndefined();
    expect(t.stats.requests.api).toBe(0);
  });

  it.concurrent('a cached token no header can carry (accepted by an older agctl) is not sent: a new one is fetched', async () => {
    const { t, cli, vault } = await setUp(MAX_TOKEN_CHARS);
    vault().saveToken(
      'default',
      tokenUrlFor(t.url),
      'bot',
      { accessToken: 'x'.repeat(MAX_TOKEN_CHARS + 1), expiresAt: Math.floor(Date.now() / 1000) + 3600 },
      CLIENT.AGCTL_CLIENT_SECRET,
    );
    const r = await cli(['rules', 'list', 'app']);
    expect(r.code, r.stderr).toBe(0);
    expect(t.stats.requests.token).toBe(1);
    expect(t.stats.lastHeaders.authorization).toBe(`Bearer ${'t'.repeat(MAX_TOKEN_CHARS)}`);
  });

  it.concurrent('expires_in: a huge lifetime is cached a day at most; a negative or non-number one is exit 9, nothing cached', async () => {
    const huge = await setUp(10, 1e300);
    expect((await huge.cli(['rules', 'list', 'app'])).code).toBe(0);
    const expiresAt = huge.cached()!.expiresAt;
    expect(expiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + MAX_TOKEN_LIFETIME_S);
    expect(expiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000) + MAX_TOKEN_LIFETIME_S - 60);

    for (const bad of [-5, '3600', null, { s: 1 }]) {
      const s = await setUp(10, bad);
      const r = await s.cli(['rules', 'list', 'app']);
      expect(r.code, `${JSON.stringify(bad)}: ${r.stderr}`).toBe(9);
      expect(r.stderr).toContain('"expires_in" is');
      expect(s.cached()).toBeUndefined();
      await s.t.close();
    }
  });
});
