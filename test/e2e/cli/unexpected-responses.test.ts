// A 2xx answer that is not the API's data (an HTML page, a proxy's answer,
// JSON of another shape) is a server failure: exit 9 with "unexpected response
// from <url>: ...", never an empty listing, a table of undefined rows or a
// JavaScript TypeError. The CLI runs against a loopback server whose answer
// is chosen by the scenario name in the request path.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir, type CliResult } from '../../helpers/cli.js';
import { tinyServer, type Seen } from '../../unit/client/tiny-server.js';

const t = await tinyServer();
const dir = tempDir('agctl-unexpected-');

/** Answers a scenario: [status, body, content type]. */
type Answer = [number, string, string?];
const JSON_TYPE = 'application/json';
const SCENARIOS: Record<string, Answer> = {
  html: [200, '<html><body>Sign in</body></html>', 'text/html; charset=utf-8'],
  'json-as-text': [200, '{"list":[]}', 'text/plain'],
  'no-type': [200, '{"list":[]}', ''],
  empty: [200, '', JSON_TYPE],
  'not-json': [200, '{"list":', JSON_TYPE],
  array: [200, '[]', JSON_TYPE],
  null: [200, 'null', JSON_TYPE],
  string: [200, '"str"', JSON_TYPE],
  'list-string': [200, '{"list":"abc"}', JSON_TYPE],
  'list-null-item': [200, '{"list":[null]}', JSON_TYPE],
  'list-object': [200, '{"list":{}}', JSON_TYPE],
  'rule-without-id': [200, '{"list":[{"displayName":"x"}]}', JSON_TYPE],
  'rule-bad-name': [200, '{"list":[{"id":"r1","displayName":5}]}', JSON_TYPE],
  'rule-bad-setting': [200, '{"list":[{"id":"r1","settings":{"maxGrantDuration":3600}}]}', JSON_TYPE],
  'get-rule-missing': [200, '{}', JSON_TYPE],
  'get-rule-bad': [200, '{"routingRule":{"id":"r1","enabled":"yes"}}', JSON_TYPE],
  // the embedded-only listener routes (all under one scenario)
  _embedded: [200, '{"list":[{"id":"l1","url":"http://x/l1","authMethod":"HMAC","automation":{"id":"a1","published":"yes"}}]}', JSON_TYPE],
  'token-number': [200, '{"list":[],"nextPageToken":7}', JSON_TYPE],
  // proto3 JSON leaves out empty fields: an empty page, and a rule with only defaults
  'empty-object': [200, '{}', 'application/json; charset=utf-8'],
  'minimal-rule': [200, '{"list":[{"id":"r1"}]}', 'application/vnd.api+json'],
  'task-missing': [200, '{}', JSON_TYPE],
  'task-string': [200, '{"taskView":"x"}', JSON_TYPE],
  'approve-bad-url': [200, '{"taskView":{"task":{}},"redirectUrl":5}', JSON_TYPE],
  'approve-html': [200, '<html></html>', 'text/html'],
  'mcp-missing': [200, '{}', JSON_TYPE],
  'mcp-string': [200, '{"mcpServer":"x"}', JSON_TYPE],
  'mcp-scopes': [200, '{"mcpServer":{"appId":"a","connectorId":"c","oauth2Scopes":"read"}}', JSON_TYPE],
  'delete-empty': [200, '', ''],
  'delete-array': [200, '[]', JSON_TYPE],
  // token endpoints (the scenario is the client ID)
  'tok-html': [200, '<html></html>', 'text/html'],
  'tok-array': [200, '[]', JSON_TYPE],
  'tok-no-token': [200, '{"token_type":"Bearer","expires_in":3600}', JSON_TYPE],
  'tok-empty-token': [200, '{"access_token":"","token_type":"Bearer"}', JSON_TYPE],
  'tok-number-token': [200, '{"access_token":42,"token_type":"Bearer"}', JSON_TYPE],
  'tok-crlf-token': [200, '{"access_token":"a\\r\\nX-Injected: 1","token_type":"Bearer"}', JSON_TYPE],
  'tok-string-expiry': [200, '{"access_token":"tok","token_type":"Bearer","expires_in":"3600"}', JSON_TYPE],
  'tok-mac': [200, '{"access_token":"tok","token_type":"mac"}', JSON_TYPE],
};

t.reset((req: Seen, res: ServerResponse) => {
  const name =
    req.path === '/auth/v1/token'
      ? (new URLSearchParams(req.body).get('client_id') ?? '')
      : (/^\/(?:api\/v1\/(?:apps|tasks)\/)?([^/?]+)/.exec(req.path)?.[1] ?? '');
  // set-*: a write reads the server's view first (a valid one), then its answer is the scenario's.
  const view = name.startsWith('set-') && req.method === 'GET';
  const [status, body, type] = view
    ? [200, '{"mcpServer":{"connectorId":"c1","serverType":"MCP_SERVER_TYPE_EXTERNAL"}}', JSON_TYPE]
    : (SCENARIOS[name.replace(/^set-/, '')] ?? [404, '{"code":5,"message":"no such scenario","details":[]}', JSON_TYPE]);
  res.writeHead(status, { ...(type ? { 'content-type': type } : {}), 'content-length': Buffer.byteLength(body) });
  res.end(body);
});

const cli = cliFor(dir, { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' });
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function expectUnexpected(r: CliResult, url: string, reason: string, label: string) {
  expect(r.code, `${label}\n${r.stderr}`).toBe(9);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0], label).toMatch(new RegExp(`^agctl: unexpected response from ${esc(url)}: ${reason}$`));
  expect(lines.slice(1), label).toEqual(["hint: check the base URL: it must be the service's address"]);
  expect(r.stdout, label).toBe('');
}

describe('unexpected 2xx answers', () => {
  it('rules list: anything but a page of rules is exit 9', async () => {
    const cases: [string, string][] = [
      ['html', 'HTTP 200 with content type text/html, expected JSON'],
      ['json-as-text', 'HTTP 200 with content type text/plain, expected JSON'],
      ['no-type', 'HTTP 200 with no content type, expected JSON'],
      ['empty', 'HTTP 200 with an empty body, expected a JSON object'],
      ['not-json', 'HTTP 200 with a body that is not valid JSON'],
      ['array', 'HTTP 200 with an array, expected a JSON object'],
      ['null', 'HTTP 200 with null, expected a JSON object'],
      ['string', 'HTTP 200 with a string, expected a JSON object'],
      ['list-string', '"list" is a string, expected an array of rules'],
      ['list-null-item', '"list\\[0\\]" is null, expected a rule'],
      ['list-object', '"list" is an object, expected an array of rules'],
      ['rule-without-id', '"list\\[0\\]" has no "id"'],
      ['rule-bad-name', '"list\\[0\\]" has "displayName" as a number, expected a string'],
      ['rule-bad-setting', '"list\\[0\\]" has "settings.maxGrantDuration" as a number, expected a string'],
      ['token-number', '"nextPageToken" is a number, expected a string'],
    ];
    const runs = await Promise.all(cases.flatMap(([app]) => [cli(['rules', 'list', app]), cli(['rules', 'list', app, '-o', 'json'])]));
    cases.forEach(([app, reason], i) => {
      const url = `${t.url}/api/v1/apps/${app}/entitlement_configuration_rules`;
      expectUnexpected(runs[2 * i]!, url, reason, app);
      const json = runs[2 * i + 1]!;
      expect(json.code, app).toBe(9);
      expect(JSON.parse(json.stderr).error.message).toBe(`unexpected response from ${url}: ${reason.replace(/\\/g, '')}`);
    });
  });

  it('rules list: empty fields left out (proto3 JSON) are still a valid page', async () => {
    const [empty, minimal] = await Promise.all([cli(['rules', 'list', 'empty-object']), cli(['rules', 'list', 'minimal-rule'])]);
    expect([empty.code, empty.stderr]).toEqual([0, 'No entitlement configuration rules in app empty-object\n']);
    expect(minimal.code, minimal.stderr).toBe(0);
    expect(minimal.stdout.split('\n')[1]).toMatch(/^0\s+r1\s+no\s+-$/);
  });

  it('rules delete: an empty body is fine, anything but an object is exit 9 for that rule', async () => {
    const [ok, bad] = await Promise.all([
      cli(['rules', 'delete', 'delete-empty', 'r1', '--yes']),
      cli(['rules', 'delete', 'delete-array', 'r1', '--yes']),
    ]);
    expect([ok.code, ok.stderr]).toEqual([0, '✓ Deleted rule r1\n']);
    expect(bad.code).toBe(9);
    expect(bad.stderr).toBe(
      `✗ rule r1: unexpected response from ${t.url}/api/v1/apps/delete-array/entitlement_configuration_rules/r1: HTTP 200 with an array, expected a JSON object\n`,
    );
  });

  it('rules get: the answer must hold a rule whose members are as declared', async () => {
    const [missing, bad] = await Promise.all([
      cli(['rules', 'get', 'get-rule-missing', 'r1']),
      cli(['rules', 'get', 'get-rule-bad', 'r1']),
    ]);
    const url = (app: string) => `${t.url}/api/v1/apps/${app}/entitlement_configuration_rules/r1`;
    expectUnexpected(missing, url('get-rule-missing'), '"routingRule" is missing', 'get-rule-missing');
    expectUnexpected(bad, url('get-rule-bad'), '"routingRule" has "enabled" as a string, expected a boolean', 'get-rule-bad');
  });

  it('webhook listeners list: each listener as declared, its automation included', async () => {
    const r = await cli(['webhook', 'listeners', 'list']);
    expectUnexpected(
      r,
      `${t.url}/_embedded/v1/webhook_listeners`,
      '"list\\[0\\]" has "automation.published" as a string, expected a boolean',
      '_embedded',
    );
  });

  it('task approve-step-up: the task read and the approval must carry a task view', async () => {
    const [missing, str, badUrl, html] = await Promise.all([
      cli(['task', 'approve-step-up', 'task-missing']),
      cli(['task', 'approve-step-up', 'task-string']),
      cli(['task', 'approve-step-up', 'approve-bad-url', '--step', 's1']),
      cli(['task', 'approve-step-up', 'approve-html', '--step', 's1']),
    ]);
    expectUnexpected(missing, `${t.url}/api/v1/tasks/task-missing`, '"taskView" is missing, expected an object', 'task-missing');
    expectUnexpected(str, `${t.url}/api/v1/tasks/task-string`, '"taskView" is a string, expected an object', 'task-string');
    const approveUrl = (id: string) => `${t.url}/api/v1/tasks/${id}/action/approve-with-step-up`;
    expectUnexpected(badUrl, approveUrl('approve-bad-url'), '"redirectUrl" is a number, expected a string', 'approve-bad-url');
    expectUnexpected(html, approveUrl('approve-html'), 'HTTP 200 with content type text/html, expected JSON', 'approve-html');
  });

  it('mcp get / set-credentials: the answer must hold an MCP server view', async () => {
    const set = (app: string) => [
      'mcp',
      'set-credentials',
      app,
      'c1',
      '--external',
      '--url',
      'https://mcp.example.com/mcp',
      '--auth',
      'none',
    ];
    const [getMissing, getString, getScopes, setMissing, setHtml] = await Promise.all([
      cli(['mcp', 'get', 'mcp-missing', 'c1']),
      cli(['mcp', 'get', 'mcp-string', 'c1']),
      cli(['mcp', 'get', 'mcp-scopes', 'c1']),
      cli(set('set-mcp-missing')),
      cli(set('set-html')),
    ]);
    const url = (app: string) => `${t.url}/api/v1/apps/${app}/mcp_servers/c1`;
    expectUnexpected(getMissing, url('mcp-missing'), '"mcpServer" is missing, expected an MCP server view', 'get mcp-missing');
    expectUnexpected(getString, url('mcp-string'), '"mcpServer" is a string, expected an MCP server view', 'get mcp-string');
    expectUnexpected(getScopes, url('mcp-scopes'), '"mcpServer.oauth2Scopes" is a string, expected an array', 'get mcp-scopes');
    expectUnexpected(
      setMissing,
      `${url('set-mcp-missing')}/credentials`,
      '"mcpServer" is missing, expected an MCP server view',
      'set mcp-missing',
    );
    expectUnexpected(setHtml, `${url('set-html')}/credentials`, 'HTTP 200 with content type text/html, expected JSON', 'set html');
  });

  it('the token endpoint: JSON with a non-empty bearer access_token and a numeric expires_in', async () => {
    const cases: [string, string][] = [
      ['tok-html', 'HTTP 200 with content type text/html, expected JSON'],
      ['tok-array', 'HTTP 200 with an array, expected a JSON object'],
      ['tok-no-token', '"access_token" is missing, expected a non-empty string'],
      ['tok-empty-token', '"access_token" is empty, expected a non-empty string'],
      ['tok-number-token', '"access_token" is a number, expected a non-empty string'],
      ['tok-crlf-token', '"access_token" holds spaces, control or non-ASCII characters'],
      ['tok-string-expiry', '"expires_in" is a string, expected a number of seconds'],
      ['tok-mac', '"token_type" is "mac", expected "Bearer" or none'],
    ];
    const env = (name: string) => ({
      AGCTL_BASE_URL: t.url,
      AGCTL_ACCESS_TOKEN: undefined,
      AGCTL_CLIENT_ID: name,
      AGCTL_CLIENT_SECRET: 'plain-secret',
    });
    const runs = await Promise.all(cases.map(([name]) => cli(['rules', 'list', 'crm-app'], { env: env(name) })));
    cases.forEach(([name, reason], i) => expectUnexpected(runs[i]!, `${t.url}/auth/v1/token`, reason, name));
    expect(runs[5]!.stderr).not.toContain('X-Injected');
    // login checks the same answer before it saves anything
    const login = await cli(['login', '--client-secret-stdin'], {
      env: { ...env('tok-html'), AGCTL_CLIENT_SECRET: undefined },
      input: 'plain-secret\n',
    });
    expectUnexpected(login, `${t.url}/auth/v1/token`, 'HTTP 200 with content type text/html, expected JSON', 'login');
  });
});
