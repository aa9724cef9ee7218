// A tenant whose names and IDs carry Unicode that reorders or hides text: bidi
// controls (Trojan Source, CVE-2021-42574) and zero-width characters. Wherever
// agctl writes them to a terminal or a log (tables, fields, the error line,
// hints, --debug, webhook send's reason), they show as visible escapes
// (`\u202e`); -o json keeps the value as received; a command to paste that
// would hold one is not shown as one.
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { hostileTenant, type Route } from '../../helpers/hostile-tenant.js';

const RLO = '\u202e';
const LRI = '\u2066';
const PDI = '\u2069';
const ZWSP = '\u200b';
/** Every bidi control and zero-width character the tenant below sends: none may reach the output raw. */
const RAW = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\u2060\ufeff]/u;

async function against(routes: Route[], env: Record<string, string> = {}) {
  const t = await hostileTenant({ kind: 'routes', routes });
  return cliFor(tempDir('agctl-hostile-text-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok', ...env });
}

const rule = (id: string, displayName: string) => ({
  id,
  appId: 'app1',
  displayName,
  condition: `subject.department == "IT${RLO}"`,
  priority: 1,
  enabled: true,
});
const RULES = [rule('r-001', `Admins ${RLO}${LRI}// ok${PDI}${LRI}`), rule(`r-${ZWSP}001`, 'look-alike')];
const task = {
  id: 't1',
  numericId: '12',
  displayName: `Grant ${RLO}nimda`,
  state: 'TASK_STATE_OPEN',
  policy: { current: { id: 's1', approval: { approval: { requiresStepUpProviderId: `p${RLO}1` } } } },
};

describe('bidi controls and zero-width characters from a tenant show as escapes', () => {
  it.concurrent('rules list: a table of escaped cells, its columns aligned on the escapes', async () => {
    const cli = await against([{ path: /\/entitlement_configuration_rules/, body: { list: RULES } }]);
    const r = await cli(['rules', 'list', 'app1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('Admins \\u202e\\u2066// ok\\u2069\\u2066');
    // The look-alike ID is told apart from r-001.
    expect(r.stdout).toMatch(/^1 +r-\\u200b001 +look-alike/m);
    const lines = r.stdout.trimEnd().split('\n');
    const nameAt = lines[0]!.indexOf('NAME');
    expect(lines.slice(1).map((l) => l.indexOf(l.includes('Admins') ? 'Admins' : 'look-alike'))).toEqual([nameAt, nameAt]);
  });

  it.concurrent('rules get: fields; --debug logs the answer escaped; -o json keeps the value as received', async () => {
    const cli = await against([{ path: /\/entitlement_configuration_rules\/r-001$/, body: { routingRule: RULES[0] } }]);
    const r = await cli(['rules', 'get', 'app1', 'r-001', '--debug']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('\\u202e\\u2066// ok\\u2069\\u2066');
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toMatch(/^\[debug\] < \{"routingRule".*Admins \\u202e\\u2066/m);
    const j = await cli(['rules', 'get', 'app1', 'r-001', '-o', 'json']);
    expect(j.stdout).not.toMatch(RAW);
    expect(j.json().displayName).toBe(RULES[0]!.displayName);
  });

  it.concurrent('task get: fields escaped; the approve command for a task found by number with a look-alike ID is not shown as one to paste', async () => {
    const lookAlike = { ...task, id: `t${ZWSP}1` };
    const cli = await against([
      { method: 'POST', path: /^\/api\/v1\/search\/tasks/, body: { list: [{ task: lookAlike }] } },
      { path: /^\/api\/v1\/tasks\/t%E2%80%8B1$/, body: { taskView: { task: lookAlike } } },
    ]);
    const r = await cli(['task', 'get', '#12']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    expect(r.stdout).toMatch(/^Task: +#12 Grant \\u202enimda$/m);
    expect(r.stdout).toMatch(/^ID: +t\\u200b1$/m);
    expect(r.stdout).toMatch(
      /^Step-up: +required \(provider p\\u202e1\): the command to approve it is not shown as one to paste: a value in it holds U\+200B, a character that reorders or hides text$/m,
    );
    expect(r.stdout).not.toContain('agctl task approve-step-up');
  });

  it.concurrent('mcp list: a table of escaped cells', async () => {
    const cli = await against([
      { path: /\/mcp_servers/, body: { list: [{ appId: 'app1', connectorId: `c${RLO}1`, displayName: `Tools ${LRI}x${PDI}` }] } },
    ]);
    const r = await cli(['mcp', 'list', 'app1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('c\\u202e1');
    expect(r.stdout).toContain('Tools \\u2066x\\u2069');
  });

  it.concurrent('the agctl: error line shows a message with bidi controls escaped', async () => {
    const cli = await against([{ path: /./, status: 400, body: { code: 3, message: `rule ${RLO}100-r is invalid`, details: [] } }]);
    const r = await cli(['rules', 'list', 'app1']);
    expect(r.code).toBe(7);
    expect(r.stderr).toBe('agctl: rule \\u202e100-r is invalid (HTTP 400, InvalidArgument)\n');
  });

  it.concurrent("webhook send: the listener's reason escaped", async () => {
    const t = await hostileTenant({
      kind: 'routes',
      routes: [{ method: 'POST', path: /^\/hook$/, body: { accepted: true, reason: `ok ${RLO}${ZWSP}`, runId: `run${LRI}1` } }],
    });
    const r = await cliFor(tempDir('agctl-hostile-text-'), { AGCTL_WEBHOOK_SECRET: 'whsec-hostile-text-0123456789abcdef0123' })([
      'webhook',
      'send',
      `${t.url}/hook`,
      '-d',
      '{}',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toMatch(/^Reason: +ok \\u202e\\u200b$/m);
    expect(r.stdout).toMatch(/^Run ID: +run\\u20661$/m);
  });

  it.concurrent('approve-step-up --no-wait: a transaction ID with a bidi control shows escaped, and no resume command is offered to paste', async () => {
    const tx = {
      id: `tx${RLO}1`,
      state: 'STEP_UP_TRANSACTION_STATE_PENDING',
      approveTask: { taskId: 't1', policyStepId: 's1' },
      userId: 'u1',
      createdAt: new Date().toISOString(),
    };
    const routes: Route[] = [
      {
        method: 'POST',
        path: /^\/api\/v1\/tasks\/t1\/action\/approve-with-step-up$/,
        body: { redirectUrl: 'https://idp.example/step-up/1' },
      },
      { path: /^\/api\/v1\/auth\/introspect$/, body: { userId: 'u1' } },
      { method: 'POST', path: /^\/api\/v1\/search\/step-up\/transactions$/, body: { list: [tx] } },
    ];
    const cli = await against(routes);
    const r = await cli(['task', 'approve-step-up', 't1', '--step', 's1', '--no-wait']);
    expect(r.code, r.stderr).toBe(10);
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    expect(r.stdout).toMatch(/^Transaction: +tx\\u202e1$/m);
    expect(r.stdout).not.toMatch(/Resume with/);
    expect(r.stderr).toContain(
      'the resume command is not shown as one to paste: a value in it holds U+202E, a character that reorders or hides text',
    );
    const j = await cli(['task', 'approve-step-up', 't1', '--step', 's1', '--no-wait', '-o', 'json']);
    expect(j.code).toBe(10);
    expect(j.stdout).not.toMatch(RAW);
    expect(j.json()).toMatchObject({ status: 'pending', stepUpTransactionId: tx.id, resumeCommand: '' });
  });
});
