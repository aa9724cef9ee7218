// The read commands against the embedded server over HTTP on 127.0.0.1:
// task list (the task search, every page followed), task get, rules get,
// mcp list, mcp catalog list and get. Empty results say so on stderr and
// print nothing (or [] with -o json); a missing object exits 5; secrets a
// server sends by mistake are never printed.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { insertStepUpTask } from '../../../src/server/fixtures/tasks.js';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { tinyServer, type Seen } from '../../unit/client/tiny-server.js';

const s = await startTestServer();
const d = s.demo;
// The plain-form client acts as the CI robot, an approver of the two step-up tasks only.
const cli = cliFor(tempDir(), {
  AGCTL_BASE_URL: s.baseUrl,
  AGCTL_CLIENT_ID: s.plainClient.clientId,
  AGCTL_CLIENT_SECRET: s.plainClient.clientSecret,
});
const OPEN = [d.tasks.stepUp, d.tasks.stepUp2, d.tasks.noStepUp, d.tasks.waiting];
const lines = (out: string) => out.trim().split('\n');

describe('task list', () => {
  it("lists open tasks by default: ID, number, name, current step, the task's state (the words of --state), created", async () => {
    const r = await cli(['task', 'list']);
    expect(r.code, r.stderr).toBe(0);
    const [head, ...rows] = lines(r.stdout);
    expect(head!.split(/\s{2,}/)).toEqual(['ID', 'NUMBER', 'NAME', 'STEP', 'STATE', 'CREATED']);
    expect(rows).toHaveLength(4);
    for (const id of OPEN) expect(r.stdout).toContain(id);
    expect(r.stdout).not.toContain(d.tasks.closed);
    const stepUp = rows.find((l) => l.startsWith(d.tasks.stepUp))!;
    expect(stepUp).toMatch(/#\d+\s+CRM Administrator for Grace Hopper\s+approval \(step-up\)\s+open\s+\d{4}-\d\d-\d\dT/);
    expect(rows.find((l) => l.startsWith(d.tasks.waiting))).toMatch(/\swait\s+open\s/);
    const all = await cli(['task', 'list', '--state', 'all']);
    expect(lines(all.stdout).find((l) => l.startsWith(d.tasks.closed))).toMatch(/\saccept\s+closed\s+\d{4}-/);
  });

  it('--state closed and all, --query, and -o json (the task views)', async () => {
    const closed = await cli(['task', 'list', '--state', 'closed', '-o', 'json']);
    expect(closed.json().map((v: any) => v.task.id)).toEqual([d.tasks.closed]);
    expect(closed.json()[0].task.state).toBe('TASK_STATE_CLOSED');
    const all = await cli(['task', 'list', '--state', 'all', '-o', 'json']);
    expect(
      all
        .json()
        .map((v: any) => v.task.id)
        .sort(),
    ).toEqual([...OPEN, d.tasks.closed].sort());
    const q = await cli(['task', 'list', '--query', 'sandbox']);
    expect(lines(q.stdout)).toHaveLength(2);
    expect(q.stdout).toContain(d.tasks.stepUp2);
    expect((await cli(['task', 'list', '--state', 'bogus'])).code).toBe(2);
  });

  it('--mine: only tasks whose current step the caller may approve', async () => {
    const r = await cli(['task', 'list', '--mine', '--state', 'all', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(
      r
        .json()
        .map((v: any) => v.task.id)
        .sort(),
    ).toEqual([d.tasks.stepUp, d.tasks.stepUp2].sort());
    const closed = await cli(['task', 'list', '--mine', '--state', 'closed']);
    expect(closed.code).toBe(2);
    expect(closed.stderr).toMatch(/closed tasks have none/);
  });

  it('an empty result: one line on stderr, nothing on stdout ([] with -o json)', async () => {
    const r = await cli(['task', 'list', '--query', 'no such task']);
    expect([r.code, r.stdout, r.stderr.trim()]).toEqual([0, '', 'No open tasks matching "no such task"']);
    const j = await cli(['task', 'list', '--query', 'no such task', '-o', 'json']);
    expect(j.json()).toEqual([]);
  });

  it('follows every page (the token in the body), stops at --limit and says more match', async () => {
    for (let i = 0; i < 23; i++) insertStepUpTask(s.server.store, s.clock, { displayName: `Bulk request ${i}` });
    const all = await cli(['task', 'list', '--query', 'bulk request', '--page-size', '10', '-o', 'json']);
    expect(all.code, all.stderr).toBe(0);
    const ids = all.json().map((v: any) => v.task.id);
    expect(new Set(ids).size).toBe(23);
    expect(all.stderr).toBe('');
    const some = await cli(['task', 'list', '--query', 'bulk request', '--page-size', '10', '--limit', '12']);
    expect(lines(some.stdout)).toHaveLength(13);
    expect(some.stderr).toMatch(/More tasks match: showing the first 12/);
    const exact = await cli(['task', 'list', '--query', 'bulk request', '--limit', '23', '-o', 'json']);
    expect([exact.json().length, exact.stderr]).toEqual([23, '']);
  });
});

describe('task get', () => {
  it('summarises the task, its current step (approvers, step-up) and history', async () => {
    const r = await cli(['task', 'get', d.tasks.stepUp]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Task:\s+#\d+ CRM Administrator for Grace Hopper$/m);
    expect(r.stdout).toMatch(/^State:\s+open$/m);
    expect(r.stdout).toMatch(/^App:\s+Demo CRM \(crm-app\)$/m);
    expect(r.stdout).toMatch(new RegExp(`^Current step:\\s+approval \\(step-up\\) ${d.tasks.stepUpStepId} \\(active\\)$`, 'm'));
    expect(r.stdout).toMatch(/^Can approve:\s+Ada Admin <ada@example.com>, CI Robot <ci@example.com>$/m);
    expect(r.stdout).toMatch(
      new RegExp(`^Step-up:\\s+required \\(provider stepup-embedded\\): agctl task approve-step-up ${d.tasks.stepUp}$`, 'm'),
    );
    expect(r.stdout).toMatch(/^History:\n {2}1\. form \S+: completed by Grace Hopper <grace@example.com> at /m);
    const none = await cli(['task', 'get', d.tasks.noStepUp]);
    expect(none.stdout).toMatch(/^Step-up:\s+not required$/m);
    const closed = await cli(['task', 'get', d.tasks.closed]);
    expect(closed.stdout).toMatch(/^State:\s+closed$/m);
    expect(closed.stdout).toMatch(/1\. approval \S+: approved by Ada Admin <ada@example.com> at /);
  });

  it('suggests approve-step-up with the flags that chose the server, so it runs against the same one', async () => {
    const r = await cliFor(tempDir())(['--base-url', s.baseUrl, '--client-id', s.plainClient.clientId, 'task', 'get', d.tasks.stepUp], {
      env: { AGCTL_CLIENT_SECRET: s.plainClient.clientSecret },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^Step-up:.*: agctl --base-url ${s.baseUrl} --client-id ${s.plainClient.clientId} task approve-step-up ${d.tasks.stepUp}$`,
        'm',
      ),
    );
  });

  it('takes the number task list shows (1041 or #1041), open or closed, and says which task it is', async () => {
    const num = async (id: string) => (await cli(['task', 'get', id, '-o', 'json'])).json().taskView.task.numericId as string;
    const [open, closed] = [await num(d.tasks.stepUp), await num(d.tasks.closed)];
    const bare = await cli(['task', 'get', open]);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stdout).toMatch(new RegExp(`^ID:\\s+${d.tasks.stepUp}$`, 'm'));
    expect(bare.stderr).toBe(`Task #${open} is ${d.tasks.stepUp} (CRM Administrator for Grace Hopper)\n`);
    const hash = await cli(['task', 'get', `#${closed}`, '-o', 'json']);
    expect(hash.json().taskView.task.id).toBe(d.tasks.closed);
    const approve = await cli(['task', 'approve-step-up', `#${await num(d.tasks.stepUp2)}`, '--no-wait', '-o', 'json']);
    expect(approve.json()).toMatchObject({ status: 'pending', taskId: d.tasks.stepUp2 });
    for (const arg of ['999999', '#999999']) {
      const missing = await cli(['task', 'get', arg]);
      expect(missing.code).toBe(5);
      expect(missing.stderr).toContain(`no task with the ID or number ${arg} was found`);
      expect(missing.stderr).toMatch(/hint: task IDs are the long IDs in the ID column/);
    }
  });

  it('-o json is the API object; --expand is passed on; unknown tasks exit 5, bad --expand 2', async () => {
    const r = await cli(['task', 'get', d.tasks.stepUp, '--expand', 'insights', '-o', 'json']);
    expect(r.json().taskView.task.id).toBe(d.tasks.stepUp);
    expect(r.json().expanded.map((o: any) => o.id)).toEqual(['insight-crm-dormant']);
    expect((await cli(['task', 'get', 'nosuch'])).code).toBe(5);
    expect((await cli(['task', 'get', d.tasks.stepUp, '--expand', 'nosuch'])).code).toBe(2);
  });
});

describe('rules get', () => {
  it('shows a rule; -o json is the rule; a deleted or unknown one exits 5', async () => {
    const id = d.rules.ids[0];
    const r = await cli(['rules', 'get', 'crm-app', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Rule:\\s+${id} \\(Route \\d+: \\w+\\)$`, 'm'));
    expect(r.stdout).toMatch(/^Request policy:\s+policy-\d$/m);
    const j = await cli(['rules', 'get', 'crm-app', id, '-o', 'json']);
    expect(j.json()).toMatchObject({ id, appId: 'crm-app' });
    const gone = await cli(['rules', 'get', 'crm-app', d.rules.deletedId]);
    expect(gone.code).toBe(5);
    expect(gone.stdout).toBe('');
    expect((await cli(['rules', 'get', 'nosuch-app', id])).code).toBe(5);
    expect((await cli(['rules', 'get', 'crm-app', '..'])).code).toBe(2);
  });
});

describe('mcp list and mcp catalog', () => {
  it('lists the MCP servers of an app, and says so when there are none', async () => {
    const r = await cli(['mcp', 'list', 'ai-tools', '--page-size', '2']);
    expect(r.code, r.stderr).toBe(0);
    const rows = lines(r.stdout).slice(1);
    expect(rows.map((l) => l.split(/\s+/)[0])).toEqual([
      'analytics-mcp',
      'crm-mcp',
      'datadog-mcp',
      'future-mcp',
      'tickets-mcp',
      'wiki-mcp',
    ]);
    expect(rows.find((l) => l.startsWith('datadog-mcp'))).toMatch(new RegExp(`hosted\\s+NONE\\s+catalog ${d.mcp.catalogIds.datadog}`));
    expect(rows.find((l) => l.startsWith('wiki-mcp'))).toMatch(/external\s+BEARER_TOKEN\s+https:\/\/wiki-mcp\.example\.com\/mcp/);
    const j = await cli(['mcp', 'list', 'ai-tools', '--limit', '3', '-o', 'json']);
    expect(j.json().map((v: any) => v.connectorId)).toEqual(['analytics-mcp', 'crm-mcp', 'datadog-mcp']);
    const empty = await cli(['mcp', 'list', 'crm-app']);
    expect([empty.code, empty.stdout, empty.stderr.trim()]).toEqual([0, '', 'No MCP servers in app crm-app']);
    expect((await cli(['mcp', 'list', 'nosuch'])).code).toBe(5);
  });

  it('lists the catalog (with --query) and shows an entry', async () => {
    const r = await cli(['mcp', 'catalog', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`${d.mcp.catalogIds.datadog}\\s+Datadog\\s+datadog\\s+site \\(required\\), apiKey \\(secret, required\\)\\s+Metrics`),
    );
    expect(lines(r.stdout)).toHaveLength(5);
    const q = await cli(['mcp', 'catalog', 'list', '--query', 'git', '-o', 'json']);
    expect(q.json().map((e: any) => e.id)).toEqual([d.mcp.catalogIds.github]);
    const none = await cli(['mcp', 'catalog', 'list', '--query', 'nothing like it']);
    expect([none.stdout, none.stderr.trim()]).toEqual(['', 'No MCP catalog entries matching "nothing like it"']);
    const g = await cli(['mcp', 'catalog', 'get', d.mcp.catalogIds.datadog]);
    expect(g.stdout).toMatch(/^Service:\s+datadog$/m);
    expect(g.stdout).toMatch(/^Config fields:\s+site "Datadog site" \(required\), apiKey "API key" \(secret, required\)$/m);
    expect((await cli(['mcp', 'catalog', 'get', '3MaWRM19Bi5I0NpzakHnQRzN9S0'])).code).toBe(5);
  });

  it('catalog -o json: the entry as the service shapes it, field names and display names as sent', async () => {
    const g = await cli(['mcp', 'catalog', 'get', d.mcp.catalogIds.datadog, '-o', 'json']);
    expect(g.code, g.stderr).toBe(0);
    expect(g.json().configFields).toBeUndefined();
    expect(g.json().authModes).toEqual([{ authMethod: 'MCP_SERVER_AUTH_METHOD_NONE' }]);
    expect(g.json().configSchema.fields.map((f: any) => [f.name, f.displayName, f.secret])).toEqual([
      ['site', 'Datadog site', false],
      ['apiKey', 'API key', true],
    ]);
    const l = await cli(['mcp', 'catalog', 'list', '-o', 'json']);
    expect(l.stdout).not.toContain('<redacted>');
    expect(l.json().find((e: any) => e.id === d.mcp.catalogIds.datadog).configSchema.fields[1]).toMatchObject({
      name: 'apiKey',
      displayName: 'API key',
      secret: true,
      required: true,
    });
    const t = await cli(['mcp', 'catalog', 'get', d.mcp.catalogIds.github]);
    expect(t.stdout).toMatch(/^Auth modes:\s+OAUTH2 \(default\), BEARER_TOKEN$/m);
  });
});

describe('mcp answers printed as received', async () => {
  const t = await tinyServer();
  const view =
    '{"appId":"a","connectorId":"c1","serverType":"MCP_SERVER_TYPE_EXTERNAL","__proto__":{"polluted":"yes"},"configFieldValues":{"__proto__":"kept"}}';
  // Sparse entries (members missing or null, an unknown enum) and one with the old top-level configFields list.
  const entries = [
    {
      id: '3MaWRM19Bi5I0NpzakHnQRzN9S5',
      displayName: 'Old shape',
      configFields: [{ name: 'apiKey', displayName: 'API key', secret: true }],
    },
    {
      id: '3MaWRM19Bi5I0NpzakHnQRzN9S6',
      displayName: null,
      configSchema: null,
      authModes: null,
      channel: 'MCP_SERVER_CATALOG_CHANNEL_NIGHTLY',
    },
    {
      id: '3MaWRM19Bi5I0NpzakHnQRzN9S7',
      configSchema: { fields: [null, { name: 'token', secret: true, default: null }, { displayName: 'no name' }] },
      authModes: [{ authMethod: 'MCP_SERVER_AUTH_METHOD_MUTUAL_TLS' }, null],
    },
  ];
  t.reset((req: Seen, res: ServerResponse) => {
    const body = req.path.startsWith('/api/v1/apps/a/mcp_servers/')
      ? `{"mcpServer":${view}}`
      : req.path.startsWith('/api/v1/apps/')
        ? `{"list":[${view}]}`
        : req.path.includes('mcp_server_catalog/')
          ? JSON.stringify({ catalogEntry: entries.find((e) => req.path.endsWith(e.id)) })
          : JSON.stringify({ list: entries });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  const client = cliFor(tempDir(), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' });

  it('mcp list and get -o json keep a __proto__ member the server sent', async () => {
    for (const args of [
      ['mcp', 'get', 'a', 'c1'],
      ['mcp', 'list', 'a'],
    ]) {
      const r = await client([...args, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('"__proto__": {');
      expect(r.stdout).toContain('"__proto__": "kept"');
      // The same sparse view as a summary or a table.
      const table = await client(args);
      expect(table.code, table.stderr).toBe(0);
    }
  });

  it('mcp catalog list and get: sparse entries print (table and JSON), field names are never redacted', async () => {
    const l = await client(['mcp', 'catalog', 'list', '-o', 'json']);
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).not.toContain('<redacted>');
    expect(l.json()[0].configFields[0]).toEqual({ name: 'apiKey', displayName: 'API key', secret: true });
    const table = await client(['mcp', 'catalog', 'list']);
    expect(table.code, table.stderr).toBe(0);
    for (const e of entries) {
      const g = await client(['mcp', 'catalog', 'get', e.id]);
      expect(g.code, g.stderr).toBe(0);
    }
    const sparse = await client(['mcp', 'catalog', 'get', entries[2]!.id]);
    expect(sparse.stdout).toMatch(/^Config fields:\s+token \(secret\)$/m);
    expect(sparse.stdout).toMatch(/^Auth modes:\s+MCP_SERVER_AUTH_METHOD_MUTUAL_TLS \(default\)$/m);
    const none = await client(['mcp', 'catalog', 'get', entries[1]!.id]);
    expect(none.stdout).toMatch(/^Config fields:\s+no schema sent$/m);
  });
});

describe('secrets a server sends by mistake', async () => {
  const t = await tinyServer();
  const leak = 'leaked-secret-value';
  const view = {
    appId: 'a',
    connectorId: 'c1',
    serverType: 'MCP_SERVER_TYPE_EXTERNAL',
    endpointUrl: 'https://x.example.com',
    bearerToken: { token: leak },
    password: leak,
  };
  const entry = { id: '3MaWRM19Bi5I0NpzakHnQRzN9S5', displayName: 'X', configFields: [], clientSecret: leak, configFields2: 'x' };
  t.reset((req: Seen, res: ServerResponse) => {
    const body = req.path.startsWith('/api/v1/apps/a/mcp_servers/')
      ? { mcpServer: view }
      : req.path.startsWith('/api/v1/apps/')
        ? { list: [view] }
        : req.path.includes('mcp_server_catalog/')
          ? { catalogEntry: entry }
          : { list: [entry] };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  const leaky = cliFor(tempDir(), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' });

  it.each([
    ['mcp', 'list', 'a'],
    ['mcp', 'get', 'a', 'c1'],
    ['mcp', 'catalog', 'list'],
    ['mcp', 'catalog', 'get', entry.id],
  ])('%s %s %s %s: never printed, as a table or as JSON', async (...args) => {
    for (const out of [[], ['-o', 'json']]) {
      const r = await leaky([...args, ...out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(leak);
    }
    const j = await leaky([...args, '-o', 'json']);
    expect(j.stdout).toContain('<redacted>');
  });
});

describe('an MCP server view without the members the summary names', async () => {
  const t = await tinyServer();
  // Every member may be missing or null (vendor OpenAPI): no IDs, a service-mode authorization and a tunnel without their details.
  const view = {
    serverType: 'MCP_SERVER_TYPE_EXTERNAL',
    appId: null,
    authMethod: 'MCP_SERVER_AUTH_METHOD_OAUTH2',
    oauth2ServiceAuthorized: true,
    oauth2ServiceAuthorizedAsName: null,
    tunneled: true,
  };
  t.reset((_req: Seen, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ mcpServer: view }));
  });
  const client = cliFor(tempDir(), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' });

  it('mcp get and set-credentials show the IDs typed, and ? for the rest, never "undefined" or "null"', async () => {
    for (const args of [
      ['mcp', 'get', 'a', 'c1'],
      ['mcp', 'set-credentials', 'a', 'c1', '--external', '--transport', 'sse'],
    ]) {
      const r = await client(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^MCP server:\s+a\/c1$/m);
      expect(r.stdout).toMatch(/^Authorized as:\s+\? by \? at \?$/m);
      expect(r.stdout).toMatch(/^Tunnel:\s+bridge \?, service \?$/m);
      expect(r.stdout).not.toMatch(/undefined|null/);
    }
  });
});
