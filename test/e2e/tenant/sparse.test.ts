// The read commands against the sparse variant of the fake tenant
// (test/fake-tenant/sparse.ts): answers the vendor OpenAPI allows, with
// members left out or null, enum values agctl cannot know, and a page token
// on every last page. Every one must print what there is (exit 0), with
// nothing a server left out shown as a crash or an empty command.
import { describe, expect, it } from 'vitest';
import { UNKNOWN } from '../../fake-tenant/sparse.js';
import { tenant, tenantCli } from './helpers.js';

describe('read commands against a tenant answering sparse (contract-valid) variants', async () => {
  const t = await tenant({ sparse: true });
  const { cli } = tenantCli(t);
  const open = t.tasks.addStepUpTask({ displayName: 'Salesforce admin for Ada', approverIds: [t.userId] }).taskId;
  const closed = t.tasks.addClosedTask({ displayName: 'Slack admin for Cy', approvedBy: t.userId });

  it('task list: every task once (the token on the last page leads to an empty page), one without an ID, unknown states shown as received', async () => {
    const j = await cli(['task', 'list', '--state', 'all', '-o', 'json']);
    expect(j.code, j.stderr).toBe(0);
    expect(j.json().map((v: any) => v.task.id)).toEqual([open, null]);
    const table = await cli(['task', 'list', '--state', 'all']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${open}\\s.*Salesforce admin for Ada\\s+approval \\(step-up\\)\\s+open\\s`));
    expect(table.stdout).toMatch(/^-\s+#\d+\s+Slack admin for Cy\s+-\s+archived\s/m);
    expect(table.stdout).not.toContain(closed);
    const mine = await cli(['task', 'list', '--mine', '-o', 'json']);
    expect(mine.code, mine.stderr).toBe(0);
    expect(mine.json().map((v: any) => v.task.id)).toEqual([open]);
  });

  it('task get: the search gives views without IDs, the Get a null task ID and expanded; the command printed uses the ID typed', async () => {
    const r = await cli(['task', 'get', open]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^ID:\\s+${open}$`, 'm'));
    expect(r.stdout).toMatch(
      new RegExp(`^Step-up:\\s+required \\(provider stepup-provider-1\\): agctl task approve-step-up ${open}$`, 'm'),
    );
    expect(r.stdout).toMatch(/^Current step:\s+approval \(step-up\) \S+ \(paused\)$/m);
    const c = await cli(['task', 'get', closed]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/^State:\s+archived$/m);
    expect((await cli(['task', 'get', open, '-o', 'json'])).code).toBe(0);
  });

  it('task approve-step-up --no-wait: a redirect whose taskView, expanded and ticketActionId are null', async () => {
    const { taskId } = t.tasks.addStepUpTask();
    const r = await cli(['task', 'approve-step-up', taskId, '--no-wait', '-o', 'json']);
    expect(r.code, r.stderr).toBe(10);
    expect(r.json()).toMatchObject({
      status: 'pending',
      taskId,
      redirectUrl: expect.stringContaining('/step-up/complete/'),
      stepUpTransactionId: expect.any(String),
    });
    expect(r.json().resumeCommand).toContain(`--transaction-id ${r.json().stepUpTransactionId}`);
  });

  it('rules list and get: null settings and timestamps, defaults left out', async () => {
    const list = await cli(['rules', 'list', t.seed.rulesApp, '-o', 'json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json().map((x: { id: string }) => x.id)).toEqual(t.seed.ruleIds);
    const table = await cli(['rules', 'list', t.seed.rulesApp]);
    expect(table.code, table.stderr).toBe(0);
    for (const id of t.seed.ruleIds) expect(table.stdout.split(id).length - 1, id).toBe(1);
    for (const id of ['rule-a', 'rule-b']) {
      const get = await cli(['rules', 'get', t.seed.rulesApp, id]);
      expect(get.code, get.stderr).toBe(0);
      expect(get.stdout).toMatch(new RegExp(`^Rule:\\s+${id} \\(`, 'm'));
      expect(get.stdout).toMatch(/^Request policy:\s+-$/m);
    }
  });

  it('mcp list and get: unknown auth methods and transports shown as received, null timestamps', async () => {
    const list = await cli(['mcp', 'list', t.seed.mcpApp]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(UNKNOWN.authMethod.replace('MCP_SERVER_AUTH_METHOD_', ''));
    expect(list.stdout).toMatch(/wiki-mcp/);
    const json = await cli(['mcp', 'list', t.seed.mcpApp, '--page-size', '1', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json().map((s: { connectorId: string }) => s.connectorId)).toEqual(['crm-mcp', 'datadog-mcp', 'wiki-mcp']);
    for (const id of [t.seed.externalServer, t.seed.hostedServer]) {
      const get = await cli(['mcp', 'get', t.seed.mcpApp, id]);
      expect(get.code, get.stderr).toBe(0);
      expect(get.stdout).toContain(id);
    }
    const catalog = await cli(['mcp', 'catalog', 'list', '-o', 'json']);
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(catalog.json().length).toBeGreaterThan(1);
  });
});
