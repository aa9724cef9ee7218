// A tenant whose pages never end: every answer names a fresh next page, with
// new items or none. Every pager stops at MAX_PAGES pages (or MAX_ITEMS items)
// with exit 9 and nothing listed; --limit still stops it earlier; an empty
// nextPageToken is the last page (proto3 leaves an empty string out, or sends
// it). The tenant itself gives up after 1500 pages, so that a pager without a
// bound ends too (and fails the request count).
import { describe, expect, it } from 'vitest';
import { MAX_PAGES } from '../../../src/client/paginate.js';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { hostileTenant } from '../../helpers/hostile-tenant.js';

const RULES = '/api/v1/apps/app/entitlement_configuration_rules';
/** Each listing command, as the user types it. */
const COMMANDS: Record<string, string[]> = {
  'rules list': ['rules', 'list', 'app'],
  'mcp list': ['mcp', 'list', 'app'],
  'task list': ['task', 'list', '--state', 'all', '--limit', '1000000'],
  'api --paginate (GET)': ['api', RULES, '--paginate'],
  'api --paginate (POST)': ['api', '/api/v1/search/tasks', '--paginate', '-X', 'POST', '-f', 'query=x'],
};

async function run(args: string[], items: number) {
  const t = await hostileTenant({ kind: 'endless-pages', items });
  const cli = cliFor(tempDir('agctl-hostile-pages-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok' });
  const r = await cli(args);
  await t.close();
  return { r, requests: t.stats.requests.api };
}

describe('a tenant whose pages never end', () => {
  // Each listing command the issue measured; empty pages or new items on each page, on both pager loops
  // (listAll, and `api --paginate`'s, whose POST form differs only in where the token goes).
  const cases: [string, number][] = [
    ['api --paginate (GET)', 2],
    ['rules list', 2],
    ['task list', 0],
  ];
  for (const [name, items] of cases) {
    it(`${name} stops after ${MAX_PAGES} pages (${items ? 'new items' : 'empty pages'}, each with a new token): exit 9, nothing listed`, async () => {
      const { r, requests } = await run(COMMANDS[name]!, items);
      expect(r.code, r.stderr).toBe(9);
      expect(requests).toBe(MAX_PAGES);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `^agctl: the server's paging does not end: ${MAX_PAGES} pages of .* \\(${MAX_PAGES * items} items\\) read, and it names another page\\n`,
        ),
      );
      expect(r.stderr).toContain('hint: nothing was listed: agctl reads at most 1000 pages or 1000000 items of one listing');
    });
  }

  it('mcp list -o json: the error names the bound (paging_limit)', async () => {
    const { r, requests } = await run([...COMMANDS['mcp list']!, '-o', 'json'], 0);
    expect([r.code, requests, r.stdout]).toEqual([9, MAX_PAGES, '']);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'paging_limit',
      exitCode: 9,
      message: `the server's paging does not end: ${MAX_PAGES} pages of MCP servers (0 items) read, and it names another page`,
    });
  });

  it.concurrent('--limit still wins: the pager stops as soon as it has enough', async () => {
    const { r, requests } = await run([...COMMANDS['rules list']!, '--limit', '5', '-o', 'json'], 2);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toHaveLength(5);
    expect(requests).toBe(3);
  });

  it.concurrent('an empty nextPageToken ends the list, as a missing or null one does', async () => {
    for (const nextPageToken of ['', null]) {
      const t = await hostileTenant({ kind: 'one-page', nextPageToken });
      const cli = cliFor(tempDir('agctl-hostile-pages-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok' });
      for (const args of Object.values(COMMANDS)) {
        const r = await cli([...args, '-o', 'json']);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      }
      expect(t.stats.requests.api).toBe(Object.keys(COMMANDS).length);
      await t.close();
    }
  });
});
