import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../helpers/server.js';

describe('rules API (embedded server over HTTP)', async () => {
  const s = await startTestServer();
  const app = s.demo.rules.appId as string;

  it('lists every live rule in evaluation order across pages', async () => {
    const seen: any[] = [];
    let token = '';
    let pages = 0;
    do {
      const q = new URLSearchParams({ page_size: '7', ...(token ? { page_token: token } : {}) });
      const res = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?${q}`);
      expect(res.status).toBe(200);
      expect(res.body.list.length).toBeLessThanOrEqual(7);
      seen.push(...res.body.list);
      token = res.body.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(Math.ceil(s.demo.rules.count / 7));
    expect(seen.map((r) => r.id).sort()).toEqual(s.demo.rules.ids);
    const sorted = [...seen].sort((a, b) => a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    expect(seen.map((r) => r.id)).toEqual(sorted.map((r) => r.id));
    expect(new Set(seen.map((r) => r.priority)).size).toBeLessThan(seen.length);
    expect(seen.some((r) => r.id === s.demo.rules.deletedId)).toBe(false);
  });

  it('clamps page_size and rejects bad paging input', async () => {
    const big = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=100000`);
    expect(big.status).toBe(200);
    expect(big.body.list).toHaveLength(s.demo.rules.count);
    expect(big.body.nextPageToken).toBe('');
    const bad = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_token=nope`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(3);
    const neg = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=-1`);
    expect(neg.status).toBe(400);
  });

  it('answers 404 for an unknown app and 401 without a token', async () => {
    expect((await s.api('/api/v1/apps/nope/entitlement_configuration_rules')).status).toBe(404);
    const anon = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules`, { auth: false });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(anon.body.code).toBe(16);
  });

  it('soft-deletes a rule once', async () => {
    const id = s.demo.rules.ids[3];
    const del = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules/${id}`, { method: 'DELETE', json: {} });
    expect(del).toMatchObject({ status: 200, body: {} });
    const again = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules/${id}`, { method: 'DELETE', json: {} });
    expect(again.status).toBe(404);
    const list = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=250`);
    expect(list.body.list.map((r: any) => r.id)).not.toContain(id);
    const row = s.server.store.db.prepare('SELECT deleted_at FROM rules WHERE id = ?').get(id) as { deleted_at: string };
    expect(row.deleted_at).toMatch(/^\d{4}-/);
  });

  it('answers 405, 404 and 413 like the rest of the API', async () => {
    const wrong = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules`, { method: 'PUT', json: {} });
    expect(wrong.status).toBe(405);
    expect((await s.api('/api/v1/nothing-here')).status).toBe(404);
    const big = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules/x`, {
      method: 'DELETE',
      body: '{"a":"' + 'x'.repeat(1024 * 1024) + '"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
    const bad = await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules/x`, {
      method: 'DELETE',
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
  });
});
