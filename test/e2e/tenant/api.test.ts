// agctl api against a tenant that behaves as the service's published clients
// show (service-notes.md): rules list pages by its own size with page_token
// (§4), the transaction search takes pageSize/pageToken in its body (§2),
// errors carry a string code and may have no message (§5), and tokens come
// only from key-form client assertions (§1).
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { tenant, tenantCli } from './helpers.js';

const ids = (list: { id: string }[]) => list.map((x) => x.id);

describe('agctl api against the fake tenant', async () => {
  const t = await tenant();
  const { cli } = tenantCli(t);
  const rules = `/api/v1/apps/${t.seed.rulesApp}/entitlement_configuration_rules`;

  it("GET rules: one page of the tenant's size, then --paginate gives every rule once, in order", async () => {
    const one = await cli(['api', rules]);
    expect(one.code, one.stderr).toBe(0);
    expect(ids(one.json().list)).toEqual(t.seed.ruleIds.slice(0, 2));
    expect(one.json().nextPageToken).not.toBe('');
    const all = await cli(['api', rules, '--paginate']);
    expect(all.code, all.stderr).toBe(0);
    expect(ids(all.json().list)).toEqual(t.seed.ruleIds);
    expect(t.seed.ruleIds).toHaveLength(7);
  });

  it('GET one rule, and a rule that does not exist: exit 5 with the message-less body on stdout', async () => {
    const r = await cli(['api', `${rules}/${t.seed.ruleIds[0]}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().routingRule.id).toBe(t.seed.ruleIds[0]);
    const missing = await cli(['api', `${rules}/rule-nope`]);
    expect(missing.code).toBe(5);
    expect(missing.json()).toEqual({ code: 'not_found' });
    expect(missing.stderr).toContain('not_found');
  });

  it('POST search of step-up transactions: typed fields in the body, --paginate through pageToken', async () => {
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const made = [0, 1, 2, 3, 4].map(
      (i) => t.tasks.addTransaction({ taskId, policyStepId: stepId, userId: t.userId, createdAt: t.clock.now() + i }).id,
    );
    const first = await cli(['api', '/api/v1/search/step-up/transactions', '-F', 'pageSize=2', '-f', `taskId=${taskId}`]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json().list).toHaveLength(2);
    const all = await cli(['api', '/api/v1/search/step-up/transactions', '-F', 'pageSize=2', '-f', `taskId=${taskId}`, '--paginate']);
    expect(all.code, all.stderr).toBe(0);
    expect(ids(all.json().list).sort()).toEqual([...made].sort());
    // An enum name the contract does not list: 400, exit 7, and the tenant records the violation.
    const bad = await cli(['api', '/api/v1/search/step-up/transactions', '-f', 'state=NOPE']);
    expect(bad.code).toBe(7);
    expect(t.takeViolations()).toMatchObject([
      { kind: 'request', operationId: 'c1.api.stepup.v1.StepUpTransactionService.Search', message: expect.stringMatching(/state/) },
    ]);
  });

  it('with the key-form client: the token flow of every command', async () => {
    const keyed = cliFor(tempDir(), { AGCTL_BASE_URL: t.baseUrl, AGCTL_CLIENT_ID: t.clientId, AGCTL_CLIENT_SECRET: t.clientSecret });
    const r = await keyed(['api', '/api/v1/auth/introspect']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ userId: t.userId });
  });

  it('a tenant that repeats a page token: --paginate stops with an error, nothing printed', async () => {
    const looping = await tenant({ rules: { repeatToken: true } });
    const r = await tenantCli(looping).cli(['api', `/api/v1/apps/${looping.seed.rulesApp}/entitlement_configuration_rules`, '--paginate']);
    expect(r.code).toBe(9);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("the server's paging loops");
  });
});
