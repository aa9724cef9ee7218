// What a CI job gives is what is used: a client secret from AGCTL_CLIENT_SECRET
// never rides on a token cached under another secret. A wrong one fails at
// once (exit 3), and `auth status` says the same; a rotated one is used at
// once. The cache keeps a keyed fingerprint of the secret (an HMAC under the
// seal key), never the secret. Against the embedded server, a tenant that
// rotates its secret, and the fake tenant (key secrets).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { sendJson, tinyServer } from '../../unit/client/tiny-server.js';
import { tenant } from '../tenant/helpers.js';

const s = await startTestServer();
const app = s.demo.rules.appId as string;

describe('AGCTL_CLIENT_SECRET and the token cache', () => {
  it('a wrong secret after a token was cached with the right one: exit 3 for every command, and auth status agrees', async () => {
    const dir = tempDir();
    const cli = cliFor(dir, { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_ID: s.plainClient.clientId });
    const right = await cli(['rules', 'list', app, '--limit', '1', '-o', 'json'], {
      env: { AGCTL_CLIENT_SECRET: s.plainClient.clientSecret },
    });
    expect(right.code, right.stderr).toBe(0);
    const wrong = { env: { AGCTL_CLIENT_SECRET: 'wrong' } };
    const list = await cli(['rules', 'list', app], wrong);
    expect(list.code).toBe(3);
    expect(list.stderr).toMatch(/^agctl: authentication failed/m);
    const token = await cli(['auth', 'token'], wrong);
    expect([token.code, token.stdout]).toEqual([3, '']);
    const status = await cli(['auth', 'status', '-o', 'json'], wrong);
    expect(status.code).toBe(3);
    expect(status.json()).toMatchObject({ loggedIn: false, token: { state: 'none' }, server: { state: 'refused' } });
    const offline = await cli(['auth', 'status', '-o', 'json', '--offline'], wrong);
    expect(offline.json().token).toEqual({ state: 'none' });
    // the right secret still finds its own token, and the files hold neither secret
    const again = await cli(['auth', 'status', '-o', 'json', '--offline'], { env: { AGCTL_CLIENT_SECRET: s.plainClient.clientSecret } });
    expect(again.json().token.state).toBe('valid');
    for (const name of readdirSync(join(dir, 'tokens'))) {
      const text = readFileSync(join(dir, 'tokens', name), 'utf8');
      expect(text).not.toContain(s.plainClient.clientSecret);
      expect(text).not.toContain('wrong');
    }
  });

  it('a wrong AGCTL_CLIENT_SECRET wins over a logged-in profile: exit 3, not its cached token', async () => {
    const cli = cliFor(tempDir());
    const login = await cli(['login', '--base-url', s.baseUrl, '--client-id', s.plainClient.clientId, '--client-secret-stdin'], {
      input: s.plainClient.clientSecret,
    });
    expect(login.code, login.stderr).toBe(0);
    const r = await cli(['rules', 'list', app], { env: { AGCTL_CLIENT_SECRET: 'wrong' } });
    expect(r.code).toBe(3);
    const ok = await cli(['rules', 'list', app, '--limit', '1']);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('a rotated secret is used at once, though the token of the old one is still valid', async () => {
    const t = await tinyServer();
    let current = 'secret-1';
    let issued = 0;
    const valid = new Set<string>();
    t.reset((req, res) => {
      if (req.path === '/auth/v1/token') {
        if (new URLSearchParams(req.body).get('client_secret') !== current) return sendJson(res, 401, { error: 'invalid_client' });
        const token = `tok-${++issued}`;
        valid.add(token);
        return sendJson(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
      }
      if (!valid.has(String(req.headers.authorization).replace(/^Bearer /, '')))
        return sendJson(res, 401, { code: 16, message: 'unauthenticated', details: [] });
      sendJson(res, 200, { list: [], nextPageToken: '', auth: req.headers.authorization });
    });
    const cli = cliFor(tempDir(), { AGCTL_BASE_URL: t.url, AGCTL_CLIENT_ID: 'bot' });
    expect((await cli(['auth', 'token'], { env: { AGCTL_CLIENT_SECRET: 'secret-1' } })).stdout.trim()).toBe('tok-1');
    current = 'secret-2'; // rotated: tok-1 stays valid until it expires
    expect((await cli(['auth', 'token'], { env: { AGCTL_CLIENT_SECRET: 'secret-2' } })).stdout.trim()).toBe('tok-2');
    expect(issued).toBe(2);
    // the old secret no longer works, and says so at once
    const old = await cli(['rules', 'list', 'app'], { env: { AGCTL_CLIENT_SECRET: 'secret-1' } });
    expect(old.code).toBe(3);
  });

  it('against the fake tenant: a key secret of another client given for this one fails at once (exit 3)', async () => {
    const ft = await tenant();
    const cli = cliFor(tempDir(), { AGCTL_BASE_URL: ft.baseUrl, AGCTL_CLIENT_ID: ft.clientId });
    const right = await cli(['rules', 'list', ft.seed.rulesApp, '-o', 'json'], { env: { AGCTL_CLIENT_SECRET: ft.clientSecret } });
    expect(right.code, right.stderr).toBe(0);
    const before = ft.tokens.log.length;
    const wrong = await cli(['rules', 'list', ft.seed.rulesApp], { env: { AGCTL_CLIENT_SECRET: ft.otherClient.clientSecret } });
    expect(wrong.code).toBe(3);
    expect(ft.tokens.log.slice(before).map((r) => r.ok)).toEqual([false]);
    const status = await cli(['auth', 'status', '-o', 'json'], { env: { AGCTL_CLIENT_SECRET: ft.otherClient.clientSecret } });
    expect([status.code, status.json().loggedIn]).toEqual([3, false]);
  });
});
