// The CLI's token cache (src/cli/token-cache.ts): flows of separate processes
// (separate vaults on one directory) needing the same token ask for it once;
// a token that cannot be cached is kept in memory for the run, with one note.
// The real read-only directory: test/e2e/cli/read-only.test.ts.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/client/api.js';
import { ClientCredentialsFlow } from '../../../src/client/auth.js';
import { HttpClient } from '../../../src/client/http.js';
import { VaultTokenCache } from '../../../src/cli/token-cache.js';
import { ConfigDirError } from '../../../src/config/secure-file.js';
import { Vault, type CachedToken } from '../../../src/config/vault.js';
import { systemClock } from '../../../src/lib/clock.js';
import { sendJson, tinyServer } from '../client/tiny-server.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-token-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `d${n++}`);

const srv = await tinyServer();
const http = new HttpClient({ sleep: async () => {} });
afterAll(() => http.close());
let issued = 0;
beforeEach(() => {
  issued = 0;
  srv.reset((req, res) => {
    if (req.path === '/auth/v1/token') {
      // A token endpoint taking its time: the others must wait for it, not ask too.
      const t = `tok-${++issued}`;
      return void setTimeout(() => sendJson(res, 200, { access_token: t, token_type: 'Bearer', expires_in: 3600 }), 30);
    }
    sendJson(res, 200, { ok: true, token: String(req.headers.authorization).slice('Bearer '.length) });
  });
});
const tokenRequests = () => srv.seen.filter((s) => s.path === '/auth/v1/token').length;
const creds = { clientId: 'ci-bot', clientSecret: 'plain-secret-1' };
const noNote = () => {
  throw new Error('no note expected');
};

/** A vault whose directory cannot be written, as on a read-only mount. */
class ReadOnlyVault extends Vault {
  override saveToken(): void {
    throw new ConfigDirError(this.dir, 'EROFS', `config directory ${this.dir}: the file system is read-only`, 'fix it');
  }
  override removeToken(): boolean {
    throw new ConfigDirError(this.dir, 'EROFS', `config directory ${this.dir}: the file system is read-only`, 'fix it');
  }
}

describe('token cache shared by processes', () => {
  it('flows needing the same token at once ask for it once, the others use it from the cache', async () => {
    const dir = fresh();
    // Each flow with a vault of its own, as separate processes have.
    const flows = Array.from(
      { length: 6 },
      () => new ClientCredentialsFlow(http, srv.url, creds, new VaultTokenCache(new Vault(dir, {}), 'default', noNote), systemClock),
    );
    const tokens = await Promise.all(flows.map((f) => f.token()));
    expect(tokenRequests()).toBe(1);
    expect(new Set(tokens)).toEqual(new Set(['tok-1']));
    // the token file, and no lock left behind
    expect(readdirSync(join(dir, 'tokens'))).toEqual([
      new Vault(dir, {}).tokenPath('default', flows[0]!.tokenUrl, creds.clientId).split('/').pop(),
    ]);
  });
});

describe('token cache and logout', () => {
  it('a token fetched with a stored secret that a logout removed meanwhile is used for the run, not left cached', async () => {
    const dir = fresh();
    const env = { CI: '1' };
    const place = { profile: 'p', baseUrl: srv.url, clientId: creds.clientId };
    await new Vault(dir, env).saveCredential(place, creds.clientSecret);
    // the logout (another process) runs while the token is asked for
    srv.reset(async (_req, res) => {
      const other = new Vault(dir, env);
      await other.removeCredential('p');
      other.removeTokensOf('p');
      sendJson(res, 200, { access_token: 'tok-late', token_type: 'Bearer', expires_in: 3600 });
    });
    const vault = new Vault(dir, env);
    const flow = new ClientCredentialsFlow(
      http,
      srv.url,
      creds,
      new VaultTokenCache(vault, 'p', noNote, { storedSecret: place }),
      systemClock,
    );
    expect(await flow.token()).toBe('tok-late');
    expect(await flow.token()).toBe('tok-late');
    expect(tokenRequests()).toBe(1);
    expect(vault.loadToken('p', flow.tokenUrl, creds.clientId)).toBeUndefined();
    // with a secret from the environment (no stored one), the token is cached as ever
    const envFlow = new ClientCredentialsFlow(http, srv.url, creds, new VaultTokenCache(vault, 'p', noNote), systemClock);
    expect(await envFlow.token()).toBe('tok-late');
    expect(vault.loadToken('p', flow.tokenUrl, creds.clientId)?.accessToken).toBe('tok-late');
  });
});

describe('a token is bound to the secret that fetched it', () => {
  it('a flow with another secret (a wrong or rotated AGCTL_CLIENT_SECRET) does not use it: it asks for its own, and the file holds no secret', async () => {
    const dir = fresh();
    const flow = (clientSecret: string) =>
      new ClientCredentialsFlow(
        http,
        srv.url,
        { ...creds, clientSecret },
        new VaultTokenCache(new Vault(dir, {}), 'default', noNote),
        systemClock,
      );
    expect(await flow(creds.clientSecret).token()).toBe('tok-1');
    expect(await flow(creds.clientSecret).token()).toBe('tok-1');
    expect(tokenRequests()).toBe(1);
    // rotated: the new secret is used at once (a new token), and the token it fetched replaces the old one
    expect(await flow('plain-secret-2').token()).toBe('tok-2');
    expect(tokenRequests()).toBe(2);
    expect(await flow('plain-secret-2').token()).toBe('tok-2');
    // the old secret no longer finds a token of its own
    expect(await flow(creds.clientSecret).token()).toBe('tok-3');
    expect(tokenRequests()).toBe(3);
    // the file records a keyed fingerprint of the secret, never the secret itself
    const vault = new Vault(dir, {});
    const text = readFileSync(vault.tokenPath('default', `${srv.url}/auth/v1/token`, creds.clientId), 'utf8');
    expect(text).not.toContain(creds.clientSecret);
    expect(JSON.parse(text).secretFingerprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(text).secretFingerprint).not.toBe(createHash('sha256').update(creds.clientSecret).digest('base64url'));
    // keyed: the same secret under another config directory's key has another fingerprint
    const other = fresh();
    new Vault(other, {}).saveToken(
      'default',
      `${srv.url}/auth/v1/token`,
      creds.clientId,
      { accessToken: 'x', expiresAt: 2_000_000_000 },
      creds.clientSecret,
    );
    const otherText = readFileSync(new Vault(other, {}).tokenPath('default', `${srv.url}/auth/v1/token`, creds.clientId), 'utf8');
    expect(JSON.parse(otherText).secretFingerprint).not.toBe(
      JSON.parse(readFileSync(vault.tokenPath('default', `${srv.url}/auth/v1/token`, creds.clientId), 'utf8')).secretFingerprint,
    );
    // and a token cached by an earlier agctl (no fingerprint) is not used with any secret
    const legacy = JSON.parse(otherText);
    delete legacy.secretFingerprint;
    writeFileSync(new Vault(other, {}).tokenPath('default', `${srv.url}/auth/v1/token`, creds.clientId), JSON.stringify(legacy));
    expect(new Vault(other, {}).loadToken('default', `${srv.url}/auth/v1/token`, creds.clientId, creds.clientSecret)).toBeUndefined();
  });
});

describe('token cache that cannot be written', () => {
  it('keeps the new token in memory for the run: one token request for all its calls, one note', async () => {
    const notes: string[] = [];
    const cache = new VaultTokenCache(new ReadOnlyVault(fresh(), {}), 'default', (err) => notes.push(err.message));
    const api = new ApiClient(srv.url, http, new ClientCredentialsFlow(http, srv.url, creds, cache, systemClock));
    for (let i = 0; i < 3; i++) expect(await api.call('GET', '/api/v1/things')).toEqual({ ok: true, token: 'tok-1' });
    expect(tokenRequests()).toBe(1);
    expect(notes).toEqual([expect.stringMatching(/: the file system is read-only$/)]);
  });

  it('still uses a valid token cached before the directory became read-only, and replaces a refused one in memory', async () => {
    const dir = fresh();
    const flow = new ClientCredentialsFlow(http, srv.url, creds, new VaultTokenCache(new Vault(dir, {}), 'default', noNote), systemClock);
    const old: CachedToken = { accessToken: 'tok-cached', expiresAt: Math.floor(Date.now() / 1000) + 3600 };
    new Vault(dir, {}).saveToken('default', flow.tokenUrl, creds.clientId, old, creds.clientSecret);
    const notes: string[] = [];
    const cache = new VaultTokenCache(new ReadOnlyVault(dir, {}), 'default', (err) => notes.push(err.message));
    const readOnlyFlow = new ClientCredentialsFlow(http, srv.url, creds, cache, systemClock);
    expect(await readOnlyFlow.token()).toBe('tok-cached');
    expect(tokenRequests()).toBe(0);
    // refused by the server: dropped (in memory: the file cannot go) and renewed
    expect(readOnlyFlow.invalidate('tok-cached')).toBe(true);
    expect(await readOnlyFlow.token()).toBe('tok-1');
    expect(await readOnlyFlow.token()).toBe('tok-1');
    expect(tokenRequests()).toBe(1);
    expect(notes).toHaveLength(1);
  });
});
