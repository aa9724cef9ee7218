// agctl rules list / delete against a tenant whose rules list has no paging
// parameters (service-notes.md §4): it pages by its own size whatever
// page_size says, may answer everything in one page, or repeat a token.
import { describe, expect, it } from 'vitest';
import { tenant, tenantCli } from './helpers.js';

const ids = (rules: { id: string }[]) => rules.map((r) => r.id);

describe('rules against the fake tenant', async () => {
  const t = await tenant();
  const { cli } = tenantCli(t);
  const app = t.seed.rulesApp;

  it('rules list shows every rule of every page once, in evaluation order', async () => {
    const r = await cli(['rules', 'list', app, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.json())).toEqual(t.seed.ruleIds);
    expect(t.seed.ruleIds).toHaveLength(7);
  });

  it('rules list does not rely on page_size: --page-size and --limit give the same rules', async () => {
    const sized = await cli(['rules', 'list', app, '--page-size', '5', '-o', 'json']);
    expect(sized.code, sized.stderr).toBe(0);
    expect(ids(sized.json())).toEqual(t.seed.ruleIds);
    const limited = await cli(['rules', 'list', app, '--limit', '3', '-o', 'json']);
    expect(limited.code, limited.stderr).toBe(0);
    expect(ids(limited.json())).toEqual(t.seed.ruleIds.slice(0, 3));
  });

  it('rules list as a table names each rule once', async () => {
    const r = await cli(['rules', 'list', app]);
    expect(r.code, r.stderr).toBe(0);
    for (const id of t.seed.ruleIds) expect(r.stdout.split(id).length - 1, id).toBe(1);
  });

  it("rules list and rules get show a name's control characters as escapes, in the table and in the fields", async () => {
    t.rules.add('odd-names-app', { id: 'rule-odd', priority: 1, displayName: 'Sales\u001b]0;pwned\u0007\u001b[2J\u009b31m\nrule' });
    const shown = 'Sales\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\nrule';
    const list = await cli(['rules', 'list', 'odd-names-app']);
    const get = await cli(['rules', 'get', 'odd-names-app', 'rule-odd']);
    for (const r of [list, get]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(shown);
      expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    }
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('rules delete --yes deletes on the tenant; the list no longer shows them', async () => {
    const r = await cli(['rules', 'delete', app, 'rule-b', 'rule-f', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(ids(t.rules.active(app))).toEqual(['rule-a', 'rule-c', 'rule-d', 'rule-e', 'rule-g']);
    const list = await cli(['rules', 'list', app, '-o', 'json']);
    expect(ids(list.json())).toEqual(['rule-a', 'rule-c', 'rule-d', 'rule-e', 'rule-g']);
  });

  it('rules delete of a rule that does not exist: exit 5, and the message-less error body is shown', async () => {
    const r = await cli(['rules', 'delete', app, 'rule-nope', '--yes']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('not_found');
    expect(ids(t.rules.active(app))).toHaveLength(5);
  });

  it('rules delete --dry-run reads each rule and shows it, deletes nothing, exit 0', async () => {
    const rule = t.rules.find(app, 'rule-c')!;
    const r = await cli(['rules', 'delete', app, 'rule-c', 'rule-e', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+PRIORITY\s+CONDITION$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      ['rule-c', rule.displayName, String(rule.priority), rule.condition],
      [
        'rule-e',
        t.rules.find(app, 'rule-e')!.displayName,
        String(t.rules.find(app, 'rule-e')!.priority),
        t.rules.find(app, 'rule-e')!.condition,
      ],
    ]);
    expect(r.stderr).toBe(`Dry run: would delete 2 rules from app ${app}; nothing was deleted\n`);
    expect(ids(t.rules.active(app))).toEqual(['rule-a', 'rule-c', 'rule-d', 'rule-e', 'rule-g']);

    const json = await cli(['rules', 'delete', app, 'rule-a', '--dry-run', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json()).toEqual([JSON.parse(JSON.stringify(t.rules.find(app, 'rule-a')))]);
    expect(json.stderr).toBe('');
    expect(ids(t.rules.active(app))).toHaveLength(5);
  });

  it('rules delete --dry-run of a rule that does not exist: exit 5, the others still shown', async () => {
    const r = await cli(['rules', 'delete', app, 'rule-nope', 'rule-d', '--dry-run', '-o', 'json']);
    expect(r.code).toBe(5);
    // As the delete reports it: the rules found on stdout, an error object for the missing one on stderr.
    expect(r.json()).toEqual([JSON.parse(JSON.stringify(t.rules.find(app, 'rule-d')))]);
    const errors = r.stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(errors).toEqual([
      {
        error: {
          id: 'rule-nope',
          status: 404,
          exitCode: 5,
          code: expect.any(String),
          message: expect.stringMatching(/not.found/i),
          hint: null,
          details: expect.any(Array),
        },
      },
    ]);
    const real = await cli(['rules', 'delete', app, 'rule-nope', '--yes', '-o', 'json']);
    expect(real.code).toBe(5);
    expect(real.json()).toEqual([]);
    expect(Object.keys(JSON.parse(real.stderr).error).sort()).toEqual(Object.keys(errors[0].error).sort());
    expect(ids(t.rules.active(app))).toHaveLength(5);
  });

  it('rules delete --dry-run without -o json: the missing rule as one line on stderr, exit 5', async () => {
    const r = await cli(['rules', 'delete', app, 'rule-nope', 'rule-d', '--dry-run']);
    expect(r.code).toBe(5);
    expect(r.stdout).toMatch(/^rule-d\s/m);
    expect(r.stderr).toMatch(/^✗ rule rule-nope: .*not_found/m);
    expect(ids(t.rules.active(app))).toHaveLength(5);
  });
});

describe('rules list against tenants that page differently', () => {
  it('a tenant that answers everything in one page', async () => {
    const t = await tenant({ rules: { pageSize: 'all' } });
    const r = await tenantCli(t).cli(['rules', 'list', t.seed.rulesApp, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.json())).toEqual(t.seed.ruleIds);
  });

  it('a tenant that repeats a page token: a clear error, nothing printed as a result', async () => {
    const t = await tenant({ rules: { repeatToken: true } });
    for (const args of [['-o', 'json'], []]) {
      const r = await tenantCli(t).cli(['rules', 'list', t.seed.rulesApp, ...args]);
      expect(r.code, r.stdout).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/token/i);
    }
  });
});
