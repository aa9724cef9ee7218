// Two tenants on 127.0.0.1 that know the same client ID (CLIENT), each with
// its own secret, and record every request: a token for the right secret, and
// an empty rule list for that token. For the tests that a secret saved for one
// tenant never reaches the other.
import { expect } from 'vitest';
import { sendJson, tinyServer, type Seen, type TinyServer } from '../unit/client/tiny-server.js';

export const CLIENT = 'bot';

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

export const one = { secret: 'secret-of-tenant-one', token: 'token-of-tenant-one' };
export const two = { secret: 'secret-of-tenant-two', token: 'token-of-tenant-two' };

/** Tenant 1 (knows `one`) and tenant 2 (knows `two`), started. */
export async function twoTenants(): Promise<[TinyServer, TinyServer]> {
  return Promise.all([tenant(one.secret, one.token), tenant(two.secret, two.token)]);
}

const all = (seen: Seen[]) => seen.map((r) => `${r.method} ${r.path}\n${JSON.stringify(r.headers)}\n${r.body}`).join('\n');

/** Neither tenant has seen the other's secret or token. */
export function expectNoCrossing(t1: TinyServer, t2: TinyServer): void {
  for (const leak of [one.secret, one.token]) expect(all(t2.seen)).not.toContain(leak);
  for (const leak of [two.secret, two.token]) expect(all(t1.seen)).not.toContain(leak);
}
