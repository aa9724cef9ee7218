// A tenant that answers a read by ID with another object: rule r-001 asked,
// rule r-002 answered. Every read by ID (rule, MCP server, catalog entry,
// task, step-up transaction, a listener's runs) checks that the answer names
// the ID asked for; otherwise exit 9 naming both IDs (escaped), and nothing of
// the other object is shown as if it were the one asked for.
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { hostileTenant, type Route } from '../../helpers/hostile-tenant.js';

async function against(routes: Route[]) {
  const t = await hostileTenant({ kind: 'routes', routes });
  return { t, cli: cliFor(tempDir('agctl-hostile-ids-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok' }) };
}

const rule = (id: string, appId = 'app1') => ({ id, appId, displayName: `rule ${id}`, condition: 'true', priority: 1, enabled: true });

describe('an answer about another ID is a bad answer (exit 9)', () => {
  it.concurrent('rules delete --dry-run previews only the rules that are the ones asked for', async () => {
    const { t, cli } = await against([
      { path: /\/entitlement_configuration_rules\/r-001$/, body: { routingRule: rule('r-002') } },
      { path: /\/entitlement_configuration_rules\/r-003$/, body: { routingRule: rule('r-003') } },
    ]);
    const r = await cli(['rules', 'delete', 'app1', 'r-001', 'r-003', '--dry-run']);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('✗ rule r-001: the server answered a read of rule "r-001" with rule "r-002"');
    expect(r.stdout).not.toContain('r-002');
    expect(r.stdout).toMatch(/^r-003 /m);
    expect(r.stderr).toContain('Dry run: would delete 1 rule from app app1; nothing was deleted');
    // A dry run sends no DELETE.
    expect(t.stats.requests.api).toBe(2);
    const j = await cli(['rules', 'delete', 'app1', 'r-001', '--dry-run', '-o', 'json']);
    expect(j.code).toBe(9);
    expect(j.json()).toEqual([]);
    expect(JSON.parse(j.stderr.trim()).error).toMatchObject({ code: 'answer_about_other_id', id: 'r-001' });
  });

  it.concurrent('rules get: another rule, or the rule of another app', async () => {
    const { cli } = await against([
      { path: /\/apps\/app1\/entitlement_configuration_rules\/r-001$/, body: { routingRule: rule('r-\u202e002') } },
      { path: /\/apps\/app2\/entitlement_configuration_rules\/r-001$/, body: { routingRule: rule('r-001', 'app9') } },
    ]);
    const r = await cli(['rules', 'get', 'app1', 'r-001']);
    expect(r.code).toBe(9);
    expect(r.stdout).toBe('');
    // Both IDs named, the tenant's escaped.
    expect(r.stderr).toMatch(/^agctl: the server answered a read of rule "r-001" with rule "r-\\u202e002"\nhint: /);
    const other = await cli(['rules', 'get', 'app2', 'r-001']);
    expect(other.code).toBe(9);
    expect(other.stderr).toMatch(/^agctl: the server answered a read of app "app2" with app "app9"/);
  });

  it.concurrent('mcp get: another connector or another app; a view that names neither shows the IDs typed', async () => {
    const { cli } = await against([
      { path: /\/apps\/app1\/mcp_servers\/c1$/, body: { mcpServer: { appId: 'app1', connectorId: 'c2' } } },
      { path: /\/apps\/app2\/mcp_servers\/c1$/, body: { mcpServer: { appId: 'app3', connectorId: 'c1' } } },
      { path: /\/apps\/app4\/mcp_servers\/c1$/, body: { mcpServer: { displayName: 'unnamed' } } },
    ]);
    const r = await cli(['mcp', 'get', 'app1', 'c1']);
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/^agctl: the server answered a read of MCP server "c1" with MCP server "c2"/);
    expect(r.stdout).toBe('');
    const app = await cli(['mcp', 'get', 'app2', 'c1', '-o', 'json']);
    expect(app.code).toBe(9);
    expect(app.stdout).toBe('');
    expect(JSON.parse(app.stderr).error.message).toBe('the server answered a read of app "app2" with app "app3"');
    const unnamed = await cli(['mcp', 'get', 'app4', 'c1']);
    expect(unnamed.code, unnamed.stderr).toBe(0);
    expect(unnamed.stdout).toMatch(/^MCP server:\s+app4\/c1 \(unnamed\)$/m);
  });

  it.concurrent('mcp catalog get: another entry', async () => {
    const { cli } = await against([{ path: /\/mcp_server_catalog\/cat1$/, body: { catalogEntry: { id: 'cat2', displayName: 'Other' } } }]);
    const r = await cli(['mcp', 'catalog', 'get', 'cat1']);
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/^agctl: the server answered a read of catalog entry "cat1" with catalog entry "cat2"/);
    expect(r.stdout).toBe('');
  });

  it.concurrent('task get: another task; a task whose ID is null shows the ID asked for', async () => {
    const view = (id: string | null) => ({ taskView: { task: { id, numericId: '7', displayName: 'Grant', state: 'TASK_STATE_OPEN' } } });
    const { cli } = await against([
      // The search (for related objects) does not hold the task: it is read with its Get.
      { method: 'POST', path: /\/api\/v1\/search\/tasks$/, body: { list: [] } },
      { path: /\/api\/v1\/tasks\/t1$/, body: view('t2') },
      { path: /\/api\/v1\/tasks\/t3$/, body: view(null) },
    ]);
    const r = await cli(['task', 'get', 't1']);
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/^agctl: the server answered a read of task "t1" with task "t2"/);
    expect(r.stdout).toBe('');
    const sparse = await cli(['task', 'get', 't3']);
    expect(sparse.code, sparse.stderr).toBe(0);
    expect(sparse.stdout).toMatch(/^ID:\s+t3$/m);
  });

  it.concurrent('approve-step-up --transaction-id: another transaction is not approved with', async () => {
    const tx = {
      id: 'tx2',
      state: 'STEP_UP_TRANSACTION_STATE_VERIFIED',
      approveTask: { taskId: 't1', policyStepId: 's1' },
      userId: 'u1',
      createdAt: new Date().toISOString(),
    };
    const { t, cli } = await against([
      { path: /\/api\/v1\/step-up\/transactions\/tx1$/, body: { transaction: tx } },
      { path: /^\/api\/v1\/auth\/introspect$/, body: { userId: 'u1' } },
      { method: 'POST', path: /approve-with-step-up$/, body: { taskView: { task: { id: 't1' } } } },
    ]);
    const r = await cli(['task', 'approve-step-up', 't1', '--step', 's1', '--transaction-id', 'tx1']);
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/the server answered a read of step-up transaction "tx1" with step-up transaction "tx2"/);
    expect(r.stderr + r.stdout).not.toMatch(/Approved/);
    // Nothing was approved: no request after the transaction's read (and the caller's identity, read beside it).
    expect(t.stats.requests.api).toBeLessThanOrEqual(2);
  });

  it.concurrent('approve-step-up: an approval answered with the view of another task is not shown as approved', async () => {
    const tx = {
      id: 'tx1',
      state: 'STEP_UP_TRANSACTION_STATE_VERIFIED',
      approveTask: { taskId: 't1', policyStepId: 's1' },
      userId: 'u1',
      createdAt: new Date().toISOString(),
    };
    const { cli } = await against([
      { path: /\/api\/v1\/step-up\/transactions\/tx1$/, body: { transaction: tx } },
      { path: /^\/api\/v1\/auth\/introspect$/, body: { userId: 'u1' } },
      {
        method: 'POST',
        path: /\/tasks\/t1\/action\/approve-with-step-up$/,
        body: { taskView: { task: { id: 't9', numericId: '9', displayName: 'Other' } }, ticketActionId: 'act-1' },
      },
    ]);
    const r = await cli(['task', 'approve-step-up', 't1', '--step', 's1', '--transaction-id', 'tx1']);
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/^agctl: the server answered the approval of task "t1" with task "t9"/m);
    expect(r.stderr + r.stdout).not.toMatch(/Approved|Other/);
  });

  it.concurrent('webhook runs: runs of another listener', async () => {
    const run = {
      id: 'run-1',
      number: 1,
      listenerId: 'L2',
      automationId: 'a',
      eventId: 'e',
      context: { trigger: {} },
      createdAt: new Date().toISOString(),
    };
    const { cli } = await against([{ path: /\/_embedded\/v1\/webhook_listeners\/L1\/runs/, body: { runs: [run], total: 1 } }]);
    const r = await cli(['webhook', 'runs', 'L1']);
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/^agctl: the server answered a read of listener "L1" with listener "L2"/);
    expect(r.stdout).toBe('');
  });
});
