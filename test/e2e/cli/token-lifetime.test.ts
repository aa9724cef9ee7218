// A token is reused for most of its lifetime, however short: the refresh
// margin is the lesser of 60 s and a quarter of the lifetime, so a list of
// 20 pages makes one token request when the tenant issues tokens of 30 s or
// 60 s (the README's `serve --token-ttl 60`), not one per page. Real HTTP on
// 127.0.0.1: a tenant that counts token requests and pages by one rule.
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { sendJson, tinyServer } from '../../unit/client/tiny-server.js';

const PAGES = 20;
const t = await tinyServer();
let ttl = 3600;
let issued = 0;
t.reset((req, res) => {
  if (req.path === '/auth/v1/token') return sendJson(res, 200, { access_token: `tok-${++issued}`, token_type: 'Bearer', expires_in: ttl });
  if (!String(req.headers.authorization).startsWith('Bearer tok-'))
    return sendJson(res, 401, { code: 16, message: 'unauthenticated', details: [] });
  const page = Number(new URL(req.path, t.url).searchParams.get('page_token') || '1');
  sendJson(res, 200, { list: [{ id: `r-${String(page).padStart(2, '0')}` }], nextPageToken: page < PAGES ? String(page + 1) : '' });
});

describe('a short-lived token is reused for most of its lifetime', () => {
  for (const lifetime of [30, 60]) {
    it(`a ${PAGES}-page list with tokens of ${lifetime} s makes one token request`, async () => {
      ttl = lifetime;
      issued = 0;
      const cli = cliFor(tempDir(), { AGCTL_BASE_URL: t.url, AGCTL_CLIENT_ID: 'bot', AGCTL_CLIENT_SECRET: 'shh' });
      const r = await cli(['rules', 'list', 'app', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toHaveLength(PAGES);
      expect(t.seen.filter((s) => s.path.startsWith('/api/')).length).toBeGreaterThanOrEqual(PAGES);
      expect(issued).toBe(1);
    });
  }
});
