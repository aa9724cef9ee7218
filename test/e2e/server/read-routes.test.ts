// The embedded server's read routes the CLI's read commands use, over HTTP:
// the task search (filters, keyset pages, one `expanded` per page), a rule by
// ID, the MCP servers of an app and the MCP catalog (service-notes.md §2–§4).
import { describe, expect, it } from 'vitest';
import { expandedIndices } from '../../../src/api/tasks.js';
import { insertStepUpTask } from '../../../src/server/fixtures/tasks.js';
import { DEMO_USERS } from '../../../src/server/routes/auth.js';
import { startTestServer } from '../../helpers/server.js';

describe('embedded server: read routes', async () => {
  const s = await startTestServer();
  const d = s.demo;
  const search = (json: unknown) => s.api('/api/v1/search/tasks', { method: 'POST', json });

  it('searches tasks by state, query and approver, newest first', async () => {
    const all = await search({});
    expect(all.status).toBe(200);
    const ids = (r: any) => r.body.list.map((v: any) => v.task.id);
    expect(ids(all)).toHaveLength(5);
    const created = all.body.list.map((v: any) => v.task.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect(ids(await search({ taskStates: ['TASK_STATE_CLOSED'] }))).toEqual([d.tasks.closed]);
    expect(ids(await search({ taskStates: ['TASK_STATE_OPEN'] }))).not.toContain(d.tasks.closed);
    expect(ids(await search({ query: 'sandbox' }))).toEqual([d.tasks.stepUp2]);
    const closed = all.body.list.find((v: any) => v.task.id === d.tasks.closed);
    expect(closed.task.state).toBe('TASK_STATE_CLOSED');
    expect(ids(await search({ query: `#${closed.task.numericId}` }))).toEqual([d.tasks.closed]);
    // The CI robot approves the two step-up tasks; Ada those and the manager approval, and approved the closed one.
    expect(ids(await search({ assignedOrStepApproverUserId: DEMO_USERS.ci.id })).sort()).toEqual([d.tasks.stepUp, d.tasks.stepUp2].sort());
    expect(ids(await search({ assignedOrStepApproverUserId: DEMO_USERS.admin.id })).sort()).toEqual(
      [d.tasks.stepUp, d.tasks.stepUp2, d.tasks.noStepUp, d.tasks.closed].sort(),
    );
    const open = all.body.list.find((v: any) => v.task.id === d.tasks.stepUp);
    expect(open.task.stepApproverIds.sort()).toEqual([DEMO_USERS.admin.id, DEMO_USERS.ci.id].sort());
  });

  it("finds given tasks by refs, with their related objects under the service's expand names", async () => {
    const r = await search({
      refs: [{ id: d.tasks.closed }, { id: d.tasks.stepUp2 }, { id: 'no-such-task' }],
      expandMask: { paths: ['app_id', 'created_by_user_id'] },
    });
    expect(r.status).toBe(200);
    expect(r.body.list.map((v: any) => v.task.id).sort()).toEqual([d.tasks.closed, d.tasks.stepUp2].sort());
    const v = r.body.list[0];
    expect(expandedIndices(v.appPath, r.body.expanded.length)).toHaveLength(1);
    expect(expandedIndices(v.createdByUserPath, r.body.expanded.length)).toHaveLength(1);
    expect(v.stepApproversPath).toBe('');
    expect((await search({ refs: [{ id: 7 }] })).status).toBe(400);
  });

  it('pages by the page token in the body (under 10 asked is 10), and shares one expanded per page', async () => {
    for (let i = 0; i < 12; i++) insertStepUpTask(s.server.store, s.clock, { displayName: `Paging task ${i}` });
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const r = await search({ query: 'paging task', pageSize: 3, pageToken: token, expandMask: { paths: ['app', 'stepApprovers'] } });
      expect(r.status).toBe(200);
      pages++;
      seen.push(...r.body.list.map((v: any) => v.task.id));
      // All tasks share the app and the approvers: each appears once in the page's expanded.
      expect(r.body.expanded.filter((o: any) => o.id === 'crm-app')).toHaveLength(1);
      for (const v of r.body.list) {
        expect(expandedIndices(v.appPath, r.body.expanded.length).map((i) => r.body.expanded[i].id)).toEqual(['crm-app']);
        expect(
          expandedIndices(v.stepApproversPath, r.body.expanded.length)
            .map((i) => r.body.expanded[i].id)
            .sort(),
        ).toEqual([DEMO_USERS.admin.id, DEMO_USERS.ci.id].sort());
      }
      token = r.body.nextPageToken;
    } while (token);
    expect(pages).toBe(2);
    expect(new Set(seen).size).toBe(12);
  });

  it('refuses what it cannot honour rather than ignoring it', async () => {
    expect((await search({ sortBy: 'TASK_SEARCH_SORT_BY_TICKET_ID' })).body.message).toMatch(
      /sortBy: this filter is not implemented by the embedded server/,
    );
    expect((await search({ nosuch: 1 })).body.message).toBe('nosuch: unknown field');
    expect((await search({ taskStates: ['OPEN'] })).status).toBe(400);
    expect((await search({ pageSize: 101 })).status).toBe(400);
    expect((await search({ pageToken: 'garbage' })).body.message).toBe('pageToken is not a valid page token');
    expect((await search({ expandMask: { paths: ['nosuch'] } })).status).toBe(400);
  });

  it('gets a rule, not a deleted or unknown one', async () => {
    const r = await s.api(`/api/v1/apps/crm-app/entitlement_configuration_rules/${d.rules.ids[0]}`);
    expect(r.status).toBe(200);
    expect(r.body.routingRule).toMatchObject({ id: d.rules.ids[0], appId: 'crm-app' });
    expect((await s.api(`/api/v1/apps/crm-app/entitlement_configuration_rules/${d.rules.deletedId}`)).status).toBe(404);
    expect((await s.api('/api/v1/apps/nosuch/entitlement_configuration_rules/ecr-001')).status).toBe(404);
  });

  it('lists the MCP servers of an app by connector ID, in pages, without secrets', async () => {
    const first = await s.api('/api/v1/apps/ai-tools/mcp_servers?page_size=4');
    expect(first.status).toBe(200);
    expect(first.body.list).toHaveLength(4);
    const second = await s.api(`/api/v1/apps/ai-tools/mcp_servers?page_size=4&page_token=${first.body.nextPageToken}`);
    expect(second.body.nextPageToken).toBe('');
    const ids = [...first.body.list, ...second.body.list].map((v: any) => v.connectorId);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain(d.mcp.external);
    expect(JSON.stringify([first.body, second.body])).not.toMatch(/demo-/);
    expect((await s.api('/api/v1/apps/nosuch/mcp_servers')).status).toBe(404);
  });

  it('lists the MCP catalog with a query, and gets one entry', async () => {
    const all = await s.api('/api/v1/mcp_server_catalog');
    expect(all.body.list.map((e: any) => e.displayName)).toEqual(['Amazon Bedrock Knowledge Bases', 'Datadog', 'GitHub', 'Google Drive']);
    const q = await s.api('/api/v1/mcp_server_catalog?query=GIT');
    expect(q.body.list.map((e: any) => e.id)).toEqual([d.mcp.catalogIds.github]);
    expect((await s.api('/api/v1/mcp_server_catalog?query=%25')).body.list).toEqual([]);
    const paged = await s.api('/api/v1/mcp_server_catalog?page_size=3');
    const rest = await s.api(`/api/v1/mcp_server_catalog?page_size=3&page_token=${paged.body.nextPageToken}`);
    expect([...paged.body.list, ...rest.body.list].map((e: any) => e.id)).toEqual(all.body.list.map((e: any) => e.id));
    const one = await s.api(`/api/v1/mcp_server_catalog/${d.mcp.catalogIds.datadog}`);
    expect(one.body.catalogEntry).toMatchObject({ id: d.mcp.catalogIds.datadog, serviceName: 'datadog' });
    // The service's shape: configSchema.fields and authModes, no top-level configFields.
    expect(one.body.catalogEntry.configFields).toBeUndefined();
    expect(one.body.catalogEntry.authModes).toEqual([{ authMethod: 'MCP_SERVER_AUTH_METHOD_NONE' }]);
    expect(one.body.catalogEntry.configSchema.fields).toContainEqual({
      name: 'apiKey',
      displayName: 'API key',
      description: '',
      placeholder: '',
      default: '',
      required: true,
      secret: true,
    });
    expect((await s.api('/api/v1/mcp_server_catalog/nosuch')).status).toBe(404);
  });
});
