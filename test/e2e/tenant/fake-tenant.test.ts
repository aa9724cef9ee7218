// The fake tenant itself is strict where the service is: these tests prove each
// refusal, so that a CLI passing the tenant e2e tests passes them for the right reason.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SignJWT, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_FILE } from '../../fake-tenant/contract.js';
import { startFakeTenant, type FakeTenant } from '../../fake-tenant/server.js';

let t: FakeTenant;
beforeAll(async () => {
  t = await startFakeTenant();
});
afterAll(() => t.close());

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A client assertion as the service's clients build it, with parts overridden to break it. */
async function assertion(
  o: { aud?: string; nonce?: string | null; jti?: string; iat?: number; exp?: number; iss?: string; secret?: string } = {},
): Promise<string> {
  const [, , , key] = (o.secret ?? t.clientSecret).split(':');
  const jwk = JSON.parse(Buffer.from(key!, 'base64url').toString('utf8')) as JWK;
  const now = Math.floor(Date.now() / 1000);
  const header: Record<string, unknown> = { alg: 'EdDSA', typ: 'JWT' };
  if (o.nonce !== null) header.nonce = o.nonce ?? randomBytes(16).toString('base64url');
  const jwt = new SignJWT({})
    .setProtectedHeader(header as { alg: string })
    .setIssuer(o.iss ?? t.clientId)
    .setSubject(o.iss ?? t.clientId)
    .setAudience(o.aud ?? t.audience)
    .setIssuedAt(o.iat ?? now)
    .setNotBefore(now - 120)
    .setExpirationTime(o.exp ?? now + 120);
  if (o.jti) jwt.setJti(o.jti);
  return jwt.sign(await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA'));
}

async function tokenRequest(form: Record<string, string>, contentType = 'application/x-www-form-urlencoded') {
  const res = await fetch(`${t.baseUrl}/auth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const keyForm = async (o: Parameters<typeof assertion>[0] = {}) => ({
  grant_type: 'client_credentials',
  client_id: t.clientId,
  client_assertion_type: ASSERTION_TYPE,
  client_assertion: await assertion(o),
});

async function api(path: string, init: { method?: string; json?: unknown; token?: string | null } = {}) {
  const headers: Record<string, string> = {};
  const token = init.token === undefined ? t.issueToken() : init.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${t.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any, headers: res.headers };
}

describe('fake tenant: token endpoint', () => {
  it('issues a token for an assertion built as the service clients build it, without token_type', async () => {
    const r = await tokenRequest(await keyForm());
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), expires_in: 3600 });
    const rules = await api(`/api/v1/apps/${t.seed.rulesApp}/entitlement_configuration_rules`, { token: r.body.access_token as string });
    expect(rules.status).toBe(200);
  });

  it('the secret has the form tenants issue: secret-token:conductorone.com:v1:<base64url Ed25519 private JWK>', () => {
    const parts = t.clientSecret.split(':');
    expect(parts).toHaveLength(4);
    expect(parts.slice(0, 3)).toEqual(['secret-token', 'conductorone.com', 'v1']);
    expect(Object.keys(JSON.parse(Buffer.from(parts[3]!, 'base64url').toString()))).toEqual(['kty', 'crv', 'x', 'd']);
    expect(JSON.parse(Buffer.from(parts[3]!, 'base64url').toString())).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      d: expect.any(String),
      x: expect.any(String),
    });
  });

  it('refuses a plain client_secret (401 invalid_client)', async () => {
    const r = await tokenRequest({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
  });

  it('refuses aud with the port, aud naming another host, and a missing nonce', async () => {
    for (const o of [{ aud: new URL(t.baseUrl).host }, { aud: 'evil.example' }, { nonce: null }]) {
      const r = await tokenRequest(await keyForm(o));
      expect(r.status, JSON.stringify(o)).toBe(401);
      expect(r.body.error).toBe('invalid_client');
    }
  });

  it('does not require jti, but refuses a replayed nonce or jti', async () => {
    const nonce = randomBytes(16).toString('base64url');
    expect((await tokenRequest(await keyForm({ nonce }))).status).toBe(200);
    expect((await tokenRequest(await keyForm({ nonce }))).status).toBe(401);
    const jti = randomBytes(8).toString('hex');
    expect((await tokenRequest(await keyForm({ jti }))).status).toBe(200);
    expect((await tokenRequest(await keyForm({ jti }))).status).toBe(401);
  });

  it("refuses an expired assertion, one issued in the future, another client's key, and a wrong issuer", async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const o of [{ exp: now - 120 }, { iat: now + 600 }, { secret: t.otherClient.clientSecret }, { iss: t.otherClient.clientId }]) {
      const r = await tokenRequest(await keyForm(o));
      expect(r.status, JSON.stringify(o)).toBe(401);
    }
  });

  it('refuses a JSON body and another grant type', async () => {
    const form = await keyForm();
    const res = await fetch(`${t.baseUrl}/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(form),
    });
    expect(res.status).toBe(400);
    expect((await tokenRequest({ ...(await keyForm()), grant_type: 'password' })).status).toBe(400);
  });
});

describe('fake tenant: API routes', () => {
  const rulesPath = () => `/api/v1/apps/${t.seed.rulesApp}/entitlement_configuration_rules`;

  it('needs a bearer token it issued (401 with a string code otherwise)', async () => {
    for (const token of [null, 'made-up']) {
      const r = await api(rulesPath(), { token });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('unauthenticated');
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('pages rules by its own size, whatever page_size says, in (priority, id) order', async () => {
    const ids: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const r = await api(`${rulesPath()}?page_size=100${token ? `&page_token=${token}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.list.length).toBeLessThanOrEqual(2);
      ids.push(...r.body.list.map((x: { id: string }) => x.id));
      token = r.body.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(4);
    expect(ids).toEqual(['rule-a', 'rule-b', 'rule-c', 'rule-d', 'rule-e', 'rule-f', 'rule-g']);
  });

  it('gets a rule as {routingRule}; a missing rule is a 404 with a code and no message', async () => {
    const r = await api(`${rulesPath()}/rule-c`);
    expect(r.body.routingRule).toMatchObject({
      id: 'rule-c',
      appId: t.seed.rulesApp,
      priority: 20,
      settings: { requestPolicyId: 'pol-standard' },
    });
    expect((await api(`${rulesPath()}/%E0%A4%A`)).status).toBe(400);
    const missing = await api(`${rulesPath()}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'not_found' });
  });

  const credentials = (connector: string, json: unknown) =>
    api(`/api/v1/apps/${t.seed.mcpApp}/mcp_servers/${connector}/credentials`, { method: 'POST', json });

  it('refuses a hosted request without a catalog ID (400), even when only the auth changes', async () => {
    const before = JSON.stringify(t.mcpServer(t.seed.mcpApp, t.seed.hostedServer));
    for (const hostedConfig of [{ bearerToken: { token: 'x' } }, { mcpServerCatalogId: '', bearerToken: { token: 'x' } }]) {
      const r = await credentials(t.seed.hostedServer, { hostedConfig, updateMask: 'bearerToken' });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('invalid_argument');
    }
    expect(JSON.stringify(t.mcpServer(t.seed.mcpApp, t.seed.hostedServer))).toBe(before);
  });

  it('silently ignores a mask path prefixed with externalConfig. or hostedConfig. (200, nothing changed)', async () => {
    const ext = t.mcpServer(t.seed.mcpApp, t.seed.externalServer);
    const before = JSON.stringify(ext);
    const r = await credentials(t.seed.externalServer, {
      externalConfig: { bearerToken: { token: 'new-token' } },
      updateMask: 'externalConfig.bearerToken',
    });
    expect(r.status).toBe(200);
    expect(r.body.mcpServer.bearerTokenConfigured).toBe(true);
    expect(JSON.stringify(ext)).toBe(before);
    const hosted = t.mcpServer(t.seed.mcpApp, t.seed.hostedServer);
    const r2 = await credentials(t.seed.hostedServer, {
      hostedConfig: { mcpServerCatalogId: t.seed.catalogId, configFields: { apiKey: 'k2' } },
      updateMask: 'hostedConfig.configFields',
    });
    expect(r2.status).toBe(200);
    expect(hosted.configFields.apiKey).toBe('initial-dd-key');
    expect(t.mcp.ignoredMaskPaths).toEqual(['externalConfig.bearerToken', 'hostedConfig.configFields']);
  });

  it('applies mask paths relative to the config and answers the view without secrets', async () => {
    const r = await credentials(t.seed.externalServer, {
      externalConfig: { bearerToken: { token: 'relative-token' } },
      updateMask: 'bearerToken',
    });
    expect(r.status).toBe(200);
    expect(t.mcpServer(t.seed.mcpApp, t.seed.externalServer).auth).toEqual({ kind: 'bearerToken', values: { token: 'relative-token' } });
    expect(JSON.stringify(r.body)).not.toContain('relative-token');
    const h = await credentials(t.seed.hostedServer, {
      hostedConfig: { mcpServerCatalogId: t.seed.catalogId, configFields: { apiKey: 'dd-2' } },
      updateMask: 'configFields.apiKey',
    });
    expect(h.status).toBe(200);
    expect(t.mcpServer(t.seed.mcpApp, t.seed.hostedServer).configFields).toEqual({ site: 'datadoghq.eu', apiKey: 'dd-2' });
    expect(h.body.mcpServer.configFieldValues).toEqual({ site: 'datadoghq.eu' });
    const get = await api(`/api/v1/apps/${t.seed.mcpApp}/mcp_servers/${t.seed.hostedServer}`);
    expect(get.body.mcpServer).toMatchObject({
      connectorId: t.seed.hostedServer,
      serverType: 'MCP_SERVER_TYPE_HOSTED',
      mcpServerCatalogId: t.seed.catalogId,
    });
  });
});

describe('fake tenant: step-up transactions', () => {
  const approve = (taskId: string, json: unknown, token?: string) =>
    api(`/api/v1/tasks/${taskId}/action/approve-with-step-up`, { method: 'POST', json, token });

  it('issues the transaction, verifies it on its page, and approves once with {ticketActionId}', async () => {
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const first = await approve(taskId, { policyStepId: stepId, stepUpTransactionId: '' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ redirectUrl: expect.stringMatching(new RegExp(`^${t.baseUrl}/step-up/complete/`)) });
    const search = await api('/api/v1/search/step-up/transactions', { method: 'POST', json: { taskId, targetType: 'TARGET_TYPE_TICKET' } });
    expect(search.body.list).toHaveLength(1);
    const tx = search.body.list[0];
    expect(tx).toMatchObject({
      state: 'STEP_UP_TRANSACTION_STATE_PENDING',
      approveTask: { taskId, policyStepId: stepId },
      userId: t.userId,
    });
    expect(tx.id).not.toMatch(/^[0-9a-f-]{36}$/);

    // Not verified yet; an invented ID; another user's call.
    expect((await approve(taskId, { policyStepId: stepId, stepUpTransactionId: tx.id })).body.code).toBe('failed_precondition');
    expect((await approve(taskId, { policyStepId: stepId, stepUpTransactionId: randomUUID() })).status).toBe(400);

    expect(await t.completeStepUp(first.body.redirectUrl)).toBe(200);
    expect((await api(`/api/v1/step-up/transactions/${tx.id}`)).body.transaction.state).toBe('STEP_UP_TRANSACTION_STATE_VERIFIED');
    const foreign = await approve(taskId, { policyStepId: stepId, stepUpTransactionId: tx.id }, t.issueToken(t.otherClient));
    expect(foreign.status).toBe(400);

    const ok = await approve(taskId, { policyStepId: stepId, stepUpTransactionId: tx.id });
    expect(ok.status).toBe(200);
    expect(ok.body.ticketActionId).toEqual(expect.any(String));
    expect(ok.body).not.toHaveProperty('taskActionId');
    expect(ok.body.taskView.task.policy.history[0].approval.approved.stepUpTransactionId).toBe(tx.id);
    expect(t.tasks.actions).toContainEqual(expect.objectContaining({ ticketActionId: ok.body.ticketActionId, taskId, userId: t.userId }));

    // Used: refused, whatever the step.
    const again = await approve(taskId, { policyStepId: stepId, stepUpTransactionId: tx.id });
    expect(again.status).toBe(400);
    expect(typeof again.body.code).toBe('string');
  });

  it('searches by state, user and createdAfter, pages with nextPageToken, and refuses unknown enum names', async () => {
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const start = Date.now();
    for (let i = 0; i < 3; i++) t.tasks.addTransaction({ taskId, policyStepId: stepId, userId: 'user-other', createdAt: start - 60_000 });
    const mine = t.tasks.addTransaction({ taskId, policyStepId: stepId, userId: t.userId, state: 'STEP_UP_TRANSACTION_STATE_VERIFIED' });
    const search = (json: Record<string, unknown>) =>
      api('/api/v1/search/step-up/transactions', { method: 'POST', json: { taskId, ...json } });
    expect((await search({ state: 'STEP_UP_TRANSACTION_STATE_VERIFIED' })).body.list.map((x: { id: string }) => x.id)).toEqual([mine.id]);
    expect((await search({ userId: t.userId })).body.list).toHaveLength(1);
    expect((await search({ createdAfter: new Date(start - 1000).toISOString() })).body.list).toHaveLength(1);
    const p1 = await search({ pageSize: 3 });
    expect(p1.body.list).toHaveLength(3);
    const p2 = await search({ pageSize: 3, pageToken: p1.body.nextPageToken });
    expect(p2.body).toEqual({ list: [expect.objectContaining({ id: mine.id })], nextPageToken: '' });
    expect((await search({ state: 'VERIFIED' })).status).toBe(400);
    expect((await search({ createdAfter: 'yesterday' })).status).toBe(400);
  });

  it('refuses an expired transaction, and the page of an expired one no longer verifies it', async () => {
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const verified = t.tasks.addTransaction({
      taskId,
      policyStepId: stepId,
      userId: t.userId,
      state: 'STEP_UP_TRANSACTION_STATE_VERIFIED',
    });
    const first = await approve(taskId, { policyStepId: stepId, stepUpTransactionId: '' });
    t.clock.advance(11 * 60 * 1000);
    try {
      const r = await approve(taskId, { policyStepId: stepId, stepUpTransactionId: verified.id });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/expired/);
      expect(await t.completeStepUp(first.body.redirectUrl)).toBe(409);
    } finally {
      t.clock.advance(-11 * 60 * 1000);
    }
  });
});

describe('fake tenant: the vendor OpenAPI', () => {
  // The spec material lives in shared/ beside the repository (where it is checked out that way).
  const shared = fileURLToPath(new URL('../../../../shared/vendor-openapi.yaml', import.meta.url));
  it.skipIf(!existsSync(shared))('its copy of vendor-openapi.yaml is the shared one, verbatim', () => {
    expect(readFileSync(SPEC_FILE, 'utf8')).toBe(readFileSync(shared, 'utf8'));
  });

  it('refuses (400) and records every request the contract forbids, before any route acts on it', async () => {
    t.takeViolations();
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const approvals = t.tasks.approveRequests.length;
    const refused = [
      // stepUpTransactionId is a required member, even on the first call (service-notes.md §2).
      await api(`/api/v1/tasks/${taskId}/action/approve-with-step-up`, { method: 'POST', json: { policyStepId: stepId } }),
      // The task's Get declares no query parameter.
      await api(`/api/v1/tasks/${taskId}?expand=app`),
      await api(`/api/v1/apps/${t.seed.mcpApp}/mcp_servers?page_size=ten`),
      await api('/api/v1/search/tasks', { method: 'POST', json: { pageSize: '10' } }),
      await api('/api/v1/search/step-up/transactions', { method: 'POST', json: { state: 'VERIFIED' } }),
      await api('/api/v1/no-such-route'),
    ];
    for (const r of refused) {
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/vendor OpenAPI/) });
    }
    expect(t.tasks.approveRequests).toHaveLength(approvals);
    const seen = t.takeViolations();
    expect(seen.map((v) => v.operationId)).toEqual([
      'c1.api.task.v1.TaskActionsService.ApproveWithStepUp',
      'c1.api.task.v1.TaskService.Get',
      'c1.api.ai_governance.v1.MCPServerService.List',
      'c1.api.task.v1.TaskSearchService.Search',
      'c1.api.stepup.v1.StepUpTransactionService.Search',
      '',
    ]);
    expect(seen.every((v) => v.kind === 'request')).toBe(true);
    expect(seen[0]!.message).toMatch(/stepUpTransactionId/);
    expect(seen[1]!.message).toMatch(/expand/);
  });

  it('takes what the contract allows, and page_size/page_token on the rules list only (service-notes.md §4)', async () => {
    t.takeViolations();
    const { taskId, stepId } = t.tasks.addStepUpTask();
    expect(
      (
        await api(`/api/v1/tasks/${taskId}/action/approve-with-step-up`, {
          method: 'POST',
          json: { policyStepId: stepId, stepUpTransactionId: '', comment: 'ok', expandMask: { paths: ['*'] } },
        })
      ).status,
    ).toBe(200);
    expect((await api(`/api/v1/tasks/${taskId}`)).status).toBe(200);
    expect((await api(`/api/v1/apps/${t.seed.rulesApp}/entitlement_configuration_rules?page_size=5&page_token=`)).status).toBe(200);
    expect((await api(`/api/v1/apps/${t.seed.mcpApp}/mcp_servers?page_size=5&page_token=`)).status).toBe(200);
    expect((await api(`/api/v1/apps/${t.seed.rulesApp}/entitlement_configuration_rules/rule-a?page_size=5`)).status).toBe(400);
    expect(t.takeViolations().map((v) => v.operationId)).toEqual([
      'c1.api.app.v1.AppEntitlementRoutingRuleService.GetAppEntitlementRoutingRule',
    ]);
  });
});
