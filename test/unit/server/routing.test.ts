// The request-target split of the embedded server and its router: the fast
// path must give exactly what the WHATWG URL parser gives, and route matching
// (params, 404, 405, registration order) must not depend on how routes are indexed.
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../../src/server/app.js';
import { Router } from '../../../src/server/router.js';

const TARGETS = [
  '/',
  '/a/b',
  '/a/b/',
  '/a//b',
  '//evil/x',
  '/a/./b',
  '/a/../b',
  '/a/%2e%2e/b',
  '/a/.',
  '/a/..',
  '/.well-known/x',
  '/a/b.',
  '/a%20b',
  '/a b',
  '/a\\b',
  '/ä',
  '/a/%41',
  '/a?x=1&y=2',
  '/a?x=%41&y=+z',
  '/a?x=1#frag',
  '/a#f',
  '/a?',
  '/a??b=1',
  '/a?x=1?y=2',
  "/a?q='x'",
  '/a?x=<b>',
  '/a?ä=1',
  '/a?x=%zz',
  '*',
  'http://h/p?q=1',
  '/api/v1/webhooks/incoming/3MRJSiNqzSxqc2vBkoDFfmWsEGd',
  '/_embedded/v1/demo/jwks.json',
  '/_embedded/v1/webhook_listeners/x/runs?limit=5&event_id=ABC',
];

describe('parseTarget', () => {
  it.each(TARGETS)('%j splits as the URL parser does', (target) => {
    const url = new URL(target, 'http://x');
    const got = parseTarget(target);
    expect(got.path).toBe(url.pathname);
    expect([...new URLSearchParams(got.search)]).toEqual([...url.searchParams]);
  });
});

describe('Router.match', () => {
  const r = new Router();
  const h = () => ({ body: {} });
  r.get('/v1/apps', h);
  r.post('/v1/apps', h);
  r.get('/v1/apps/:id', h);
  r.delete('/v1/apps/:id', h);
  r.get('/v1/apps/special', h);
  r.post('/v1/apps/:id/rules/:rule', h);

  it('matches literal and parameter segments, decoding parameters', () => {
    const m = r.match('GET', '/v1/apps/a%2Fb');
    expect(m && 'route' in m && m.params).toEqual({ id: 'a/b' });
    const two = r.match('POST', '/v1/apps/x/rules/y%20z');
    expect(two && 'route' in two && two.params).toEqual({ id: 'x', rule: 'y z' });
  });

  it('keeps registration order: the parameter route registered first wins', () => {
    const m = r.match('GET', '/v1/apps/special');
    expect(m && 'route' in m && m.route.segments).toEqual(['v1', 'apps', ':id']);
  });

  it('answers 405 with the allowed methods, 404 when nothing matches', () => {
    expect(r.match('PUT', '/v1/apps')).toEqual({ allowed: ['GET', 'POST'] });
    expect(r.match('POST', '/v1/apps/x')).toEqual({ allowed: ['GET', 'DELETE'] });
    expect(r.match('POST', '/v1/apps/special')).toEqual({ allowed: ['GET', 'DELETE', 'GET'] });
    expect(r.match('GET', '/v1/nothing')).toBeNull();
    expect(r.match('GET', '/v1/apps/x/rules')).toBeNull();
    expect(r.match('GET', '/v1/apps/%E0%A4%A')).toBeNull();
  });

  it('serves HEAD with the GET route', () => {
    const m = r.match('HEAD', '/v1/apps');
    expect(m && 'route' in m && m.route.method).toBe('GET');
  });
});
