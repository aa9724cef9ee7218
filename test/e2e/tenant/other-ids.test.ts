// The fake tenant (built from the vendor OpenAPI) answering each read by ID
// with another object of the same kind: an answer the contract allows (it is
// checked against it), but about something else. Each read fails with exit 9
// naming both IDs, and nothing is shown, previewed or changed for it.
import { describe, expect, it } from 'vitest';
import { tenant, tenantCli } from './helpers.js';

/** An ID that is not the one asked for. */
const other = (id: unknown) => `${String(id)}-other`;

describe('the fake tenant answering a read by ID about another object', async () => {
  const t = await tenant({
    rewrite: (op, answer) => {
      // A copy: the answer may be the tenant's stored object.
      const a = structuredClone(answer) as any;
      if (op.endsWith('.GetAppEntitlementRoutingRule')) a.routingRule.id = other(a.routingRule.id);
      if (op.endsWith('MCPServerService.Get') && a.mcpServer) a.mcpServer.connectorId = other(a.mcpServer.connectorId);
      if (op.endsWith('MCPServerService.GetCatalog')) a.catalogEntry.id = other(a.catalogEntry.id);
      if (op.endsWith('TaskService.Get')) a.taskView.task.id = other(a.taskView.task.id);
      // The search that reads a task with its related objects answers about another task too (it is then read with its Get).
      if (op.endsWith('TaskSearchService.Search')) for (const v of a.list ?? []) v.task.id = other(v.task.id);
      if (op.endsWith('StepUpTransactionService.Get')) a.transaction.id = other(a.transaction.id);
      return a;
    },
  });
  const { cli } = tenantCli(t);

  it('rules delete --dry-run previews nothing and deletes nothing; rules get shows nothing', async () => {
    const [first] = t.seed.ruleIds;
    const dry = await cli(['rules', 'delete', t.seed.rulesApp, first!, '--dry-run']);
    expect(dry.code).toBe(9);
    expect(dry.stderr).toContain(`✗ rule ${first}: the server answered a read of rule "${first}" with rule "${first}-other"`);
    expect(dry.stdout).toBe('');
    expect(t.rules.find(t.seed.rulesApp, first!)).toBeDefined();
    const get = await cli(['rules', 'get', t.seed.rulesApp, first!]);
    expect(get.code).toBe(9);
    expect(get.stdout).toBe('');
  });

  it('mcp get and mcp catalog get', async () => {
    const mcp = await cli(['mcp', 'get', t.seed.mcpApp, t.seed.externalServer]);
    expect(mcp.code).toBe(9);
    expect(mcp.stderr).toContain(
      `the server answered a read of MCP server "${t.seed.externalServer}" with MCP server "${t.seed.externalServer}-other"`,
    );
    const cat = await cli(['mcp', 'catalog', 'get', t.seed.catalogId]);
    expect(cat.code).toBe(9);
    expect(cat.stderr).toContain(`with catalog entry "${t.seed.catalogId}-other"`);
  });

  it('task get, and approve-step-up resuming with a transaction', async () => {
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const get = await cli(['task', 'get', taskId]);
    expect(get.code).toBe(9);
    expect(get.stderr).toContain(`the server answered a read of task "${taskId}" with task "${taskId}-other"`);
    const tx = t.tasks.addTransaction({ taskId, policyStepId: stepId, userId: t.userId });
    t.tasks.verify(tx);
    const resume = await cli(['task', 'approve-step-up', taskId, '--step', stepId, '--transaction-id', tx.id]);
    expect(resume.code).toBe(9);
    expect(resume.stderr).toContain(
      `the server answered a read of step-up transaction "${tx.id}" with step-up transaction "${tx.id}-other"`,
    );
    // Nothing was approved with it.
    expect(t.tasks.actions.find((a: { taskId: string }) => a.taskId === taskId)).toBeUndefined();
  });
});
