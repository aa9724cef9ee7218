// The read commands against the fake tenant (service-notes.md §2–§4): the
// task search with the page token in the body and the service's page sizes
// (under 10 raised to 10), --mine through the caller's identity, task get,
// rules get with a message-less 404, mcp list and the MCP catalog.
import { describe, expect, it } from 'vitest';
import { tenant, tenantCli } from './helpers.js';

describe('read commands against the fake tenant', async () => {
  const t = await tenant();
  const { cli } = tenantCli(t);
  const mine = t.tasks.addStepUpTask({ displayName: 'Salesforce admin for Ada', approverIds: [t.userId] }).taskId;
  const theirs = t.tasks.addStepUpTask({ displayName: 'Jira admin for Bob', approverIds: [t.otherClient.userId] }).taskId;
  // Closed, approved by the caller: the service's filter finds it, --mine must not list it.
  const approved = t.tasks.addClosedTask({ displayName: 'Slack admin for Cy', approvedBy: t.userId });
  const bulk = Array.from(
    { length: 14 },
    (_, i) => t.tasks.addStepUpTask({ displayName: `Bulk grant ${i}`, approverIds: ['user-nobody'] }).taskId,
  );
  const searches = () => t.tasks.approveRequests.length; // unchanged: the read commands approve nothing

  it('task list follows every page (the token in the body) and lists each task once', async () => {
    const r = await cli(['task', 'list', '--state', 'all', '--page-size', '3', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const ids = r.json().map((v: any) => v.task.id);
    expect(ids).toHaveLength(17);
    expect(new Set(ids)).toEqual(new Set([mine, theirs, approved, ...bulk]));
    const open = await cli(['task', 'list', '--limit', '11']);
    expect(open.stdout.trim().split('\n')).toHaveLength(12);
    expect(open.stdout).not.toContain(approved);
    expect(open.stderr).toMatch(/More tasks match: showing the first 11/);
  });

  it('task list --query and --state closed', async () => {
    const q = await cli(['task', 'list', '--query', 'salesforce', '-o', 'json']);
    expect(q.json().map((v: any) => v.task.id)).toEqual([mine]);
    const closed = await cli(['task', 'list', '--state', 'closed']);
    expect(closed.stdout).toContain(approved);
    expect(closed.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('task list --mine: tasks whose current step the caller may approve, not the closed one it approved', async () => {
    const r = await cli(['task', 'list', '--mine', '--state', 'all', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().map((v: any) => v.task.id)).toEqual([mine]);
    const table = await cli(['task', 'list', '--mine']);
    expect(table.stdout).toMatch(/Salesforce admin for Ada\s+approval \(step-up\)\s+open/);
  });

  it('task get summarises the task; -o json is the API object; an unknown task exits 5', async () => {
    const r = await cli(['task', 'get', mine]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Task:\s+#\d+ Salesforce admin for Ada$/m);
    expect(r.stdout).toMatch(new RegExp(`^Can approve:\\s+${t.userId}$`, 'm'));
    expect(r.stdout).toMatch(/^Step-up:\s+required \(provider stepup-provider-1\)/m);
    // Related objects come through the search (refs + expandMask): the GET declares no expand parameter.
    expect(r.stdout).toMatch(/^Requester:\s+Grace Hopper <grace@example\.com>$/m);
    const all = await cli(['task', 'get', mine, '--expand', '*', '-o', 'json']);
    expect(all.json().expanded).toContainEqual(expect.objectContaining({ id: 'user-grace', displayName: 'Grace Hopper' }));
    expect(all.json().taskView.createdByUserPath).toMatch(/^expanded\[\d+\]$/);
    const none = await cli(['task', 'get', mine, '--expand', 'insights', '-o', 'json']);
    expect(none.json().expanded).toEqual([]);
    const closed = await cli(['task', 'get', approved]);
    expect(closed.stdout).toMatch(/^State:\s+closed$/m);
    expect(closed.stdout).toMatch(new RegExp(`1\\. approval \\(step-up\\) \\S+: approved by ${t.userId} at `));
    expect((await cli(['task', 'get', mine, '-o', 'json'])).json().taskView.task.id).toBe(mine);
    expect((await cli(['task', 'get', 'nosuch'])).code).toBe(5);
    expect(searches()).toBe(0);
  });

  it('task get and approve-step-up take a task number (1041 or #1041), found through the search', async () => {
    const task = (id: string) => t.tasks.tasks.find((x) => x.id === id)!;
    const r = await cli(['task', 'get', task(approved).numericId]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^ID:\\s+${approved}$`, 'm'));
    expect(r.stderr).toBe(`Task #${task(approved).numericId} is ${approved} (Slack admin for Cy)\n`);
    const approve = await cli(['task', 'approve-step-up', `#${task(mine).numericId}`, '--no-wait', '-o', 'json']);
    expect(approve.json()).toMatchObject({ status: 'pending', taskId: mine });
    expect(t.tasks.approveRequests.at(-1)!.taskId).toBe(mine);
    const missing = await cli(['task', 'get', '#99999']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toMatch(/no task with the ID or number #99999 was found\nhint: task IDs are the long IDs/);
  });

  it('rules get: the rule, and 5 for one the tenant answers with a bare not_found', async () => {
    const r = await cli(['rules', 'get', t.seed.rulesApp, 'rule-c', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ id: 'rule-c', displayName: 'Support agents', priority: 20 });
    const table = await cli(['rules', 'get', t.seed.rulesApp, 'rule-d']);
    expect(table.stdout).toMatch(/^Enabled:\s+no$/m);
    const missing = await cli(['rules', 'get', t.seed.rulesApp, 'rule-zz']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toMatch(/404/);
  });

  it('mcp list: the servers of an app, no secret printed', async () => {
    const r = await cli(['mcp', 'list', t.seed.mcpApp]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/datadog-mcp\s+Datadog\s+hosted\s+NONE\s+catalog /);
    expect(r.stdout).toMatch(/wiki-mcp\s+Wiki\s+external\s+BEARER_TOKEN\s+https:\/\/wiki-mcp\.example\.com\/mcp/);
    const j = await cli(['mcp', 'list', t.seed.mcpApp, '--page-size', '1', '-o', 'json']);
    expect(j.json().map((v: any) => v.connectorId)).toEqual(['crm-mcp', 'datadog-mcp', 'wiki-mcp']);
    for (const out of [r.stdout, j.stdout]) {
      expect(out).not.toContain(t.mcpServer(t.seed.mcpApp, 'wiki-mcp').auth!.values.token as string);
      expect(out).not.toContain('initial-dd-key');
    }
  });

  it('mcp catalog list follows every page and filters with --query; catalog get shows an entry', async () => {
    const all = await cli(['mcp', 'catalog', 'list', '-o', 'json']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.json()).toHaveLength(12);
    const q = await cli(['mcp', 'catalog', 'list', '--query', 'DATA']);
    expect(q.stdout.trim().split('\n')).toHaveLength(2);
    expect(q.stdout).toContain(t.seed.catalogId);
    const g = await cli(['mcp', 'catalog', 'get', t.seed.catalogId]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toMatch(/^Config fields:\s+site "Datadog site" \(required\), apiKey "API key" \(secret, required\)$/m);
    expect((await cli(['mcp', 'catalog', 'get', 'nosuch'])).code).toBe(5);
  });
});
