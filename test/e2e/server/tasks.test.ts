import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { EXPAND_KEYS, TASK_PATH_FIELDS, resolveTaskViewPaths } from '../../../src/api/tasks.js';
import { hashToken } from '../../../src/server/routes/auth.js';
import { insertStepUpTask, insertTask, approvalInstance } from '../../../src/server/fixtures/tasks.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const KSUID = /^[0-9A-Za-z]{27}$/;

/** A bearer token for any user, written straight into the store (a third user needs no client). */
function tokenFor(s: TestServer, userId: string): string {
  const token = `agt_test_${randomBytes(16).toString('hex')}`;
  s.server.store.db
    .prepare('INSERT INTO access_tokens (token_hash, client_id, user_id, expires_at) VALUES (?, ?, ?, ?)')
    .run(hashToken(token), 'test-client', userId, Math.floor(s.clock.now() / 1000) + 86400);
  return token;
}

function approve(s: TestServer, taskId: string, body: Record<string, unknown>, token?: string) {
  return s.api(`/api/v1/tasks/${encodeURIComponent(taskId)}/action/approve-with-step-up`, {
    method: 'POST',
    json: body,
    ...(token ? { auth: false, headers: { authorization: `Bearer ${token}` } } : {}),
  });
}

/** The step-up page: GET it, or POST the confirmation (what the browser's button does). */
async function page(url: string, method: 'GET' | 'POST' = 'GET') {
  const res = await fetch(url, {
    method,
    ...(method === 'POST' ? { body: 'confirm=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
  });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

const getTask = (s: TestServer, id: string, query = '') => s.api(`/api/v1/tasks/${encodeURIComponent(id)}${query}`);
const getTx = (s: TestServer, id: string) => s.api(`/api/v1/step-up/transactions/${encodeURIComponent(id)}`);
const searchTx = (s: TestServer, body: Record<string, unknown>) =>
  s.api('/api/v1/search/step-up/transactions', { method: 'POST', json: body });

/** First approve call (no transaction ID): the step-up URL, and the transaction the server issued, found by search. */
async function startStepUp(s: TestServer, taskId: string, stepId: string, token?: string): Promise<{ url: string; tx: string }> {
  const first = await approve(s, taskId, { policyStepId: stepId }, token);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const found = await searchTx(s, { taskId, targetType: 'TARGET_TYPE_TICKET', pageSize: 1 });
  expect(found.body.list[0].approveTask).toEqual({ taskId, policyStepId: stepId });
  return { url: first.body.redirectUrl, tx: found.body.list[0].id };
}

describe('tasks API (embedded server over HTTP)', async () => {
  const s = await startTestServer();
  const demo = s.demo.tasks;

  it('seeds the demo tasks and reports them in the ready file', () => {
    for (const k of ['stepUp', 'stepUpStepId', 'stepUp2', 'stepUp2StepId', 'noStepUp', 'noStepUpStepId', 'waiting', 'closed'])
      expect(demo[k]).toMatch(KSUID);
    expect(demo.approvers.stepUp).toEqual(expect.arrayContaining(['user-ada', 'user-ci']));
  });

  it('returns the task view with the full shape, empty expansion and unknown enum values as stored', async () => {
    const res = await getTask(s, demo.stepUp);
    expect(res.status).toBe(200);
    const { taskView, expanded } = res.body;
    expect(expanded).toEqual([]);
    for (const f of TASK_PATH_FIELDS) expect(taskView[f]).toBe('');
    expect(taskView.objectPermissions).toEqual({ delete: false, edit: true, read: true, extra: {} });
    const t = taskView.task;
    expect(t.id).toBe(demo.stepUp);
    expect(t.numericId).toMatch(/^\d+$/);
    for (const k of ['displayName', 'description', 'createdByUserId', 'analysisId', 'origin']) expect(typeof t[k]).toBe('string');
    expect(t.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(t.deletedAt).toBeNull();
    expect(t.commentCount).toBe(0);
    expect(t.emergencyAccess).toBe(false);
    expect(t.approverIds).toEqual(['user-ada', 'user-ci']);
    expect(t.insightIds).toEqual(['insight-crm-dormant']);
    expect(t.annotations[0]['@type']).toMatch(/RiskAnnotation$/);
    expect(t.data.justification).toMatch(/clean-up/);
    expect(t.actions).toEqual(['TASK_ACTION_TYPE_UNSPECIFIED', 'TASK_ACTION_TYPE_APPROVE_WITH_STEP_UP']);
    expect(t.origin).toBe('TASK_ORIGIN_UNSPECIFIED');
    expect(t.externalRefs).toEqual([
      { externalRefSource: 'EXTERNAL_REF_SOURCE_JIRA', name: 'IT-1042', url: expect.stringMatching(/^https:/) },
    ]);
    expect(Object.keys(t.form).sort()).toEqual(['description', 'displayName', 'fieldGroups', 'fieldRelationships', 'fields', 'id']);
    for (const f of t.form.fields) {
      expect(Object.keys(f)).toEqual(
        expect.arrayContaining(['name', 'displayName', 'description', 'readOnly', 'required', 'adminConfig', 'sharedConfig', 'userConfig']),
      );
      const typed = ['boolField', 'int64Field', 'stringField', 'stringMapField', 'stringSliceField', 'fileField', 'oauth2Field'].filter(
        (k) => k in f,
      );
      expect(typed).toHaveLength(1);
    }
    const { current, history, next, id, policyGenerationId } = t.policy;
    expect(typeof id).toBe('string');
    expect(typeof policyGenerationId).toBe('string');
    expect(current.id).toBe(demo.stepUpStepId);
    expect(current.state).toBe('POLICY_STEP_STATE_ACTIVE');
    expect(current.approval.state).toBe('APPROVAL_INSTANCE_STATE_WAITING');
    expect(current.approval.approval).toMatchObject({
      requiresStepUpProviderId: 'stepup-embedded',
      users: { userIds: ['user-ada', 'user-ci'] },
      escalationEnabled: true,
    });
    expect(current.approval.approved).toBeUndefined();
    expect(history).toHaveLength(1);
    expect(history[0].form.completed.userId).toBe('user-grace');
    expect(next.map((n: any) => Object.keys(n))).toEqual([['provision'], ['accept']]);
  });

  it('answers 404 for an unknown task, 401 without a token, 400 for a bad expand path', async () => {
    const unknown = await getTask(s, 'no-such-task');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe(5);
    const anon = await s.api(`/api/v1/tasks/${demo.stepUp}`, { auth: false });
    expect(anon.status).toBe(401);
    const bad = await getTask(s, demo.stepUp, '?expand=nothing');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(3);
  });

  it('expands every related object with * and points each path field at it', async () => {
    const res = await getTask(s, demo.stepUp, '?expand=*');
    expect(res.status).toBe(200);
    const { taskView, expanded } = res.body;
    expect(expanded.length).toBeGreaterThan(4);
    for (const o of expanded) expect(o['@type']).toMatch(/^type\.googleapis\.com\//);
    const resolved = resolveTaskViewPaths(taskView, expanded) as Record<string, any[]>;
    expect(resolved.appPath).toEqual([
      expect.objectContaining({ id: 'crm-app', displayName: 'Demo CRM', '@type': expect.stringMatching(/App$/) }),
    ]);
    expect(resolved.createdByUserPath).toEqual([expect.objectContaining({ id: 'user-grace', displayName: 'Grace Hopper' })]);
    expect(resolved.identityUserPath).toEqual(resolved.createdByUserPath);
    expect(taskView.identityUserPath).toBe(taskView.createdByUserPath);
    expect(resolved.appUserPath).toEqual([expect.objectContaining({ id: 'appuser-crm-grace' })]);
    expect(resolved.entitlementsPath).toEqual([expect.objectContaining({ id: 'ent-crm-admin', displayName: 'CRM Administrator' })]);
    expect(resolved.insightsPath).toEqual([expect.objectContaining({ id: 'insight-crm-dormant' })]);
    expect(resolved.stepApproversPath!.map((u) => u.id)).toEqual(['user-ada', 'user-ci']);
    expect(resolved.approversPath!.map((u) => u.id)).toEqual(['user-ada', 'user-ci']);
    // Objects without data here stay empty.
    expect(taskView.accessReviewPath).toBe('');
    // Every object of expanded is pointed at by some path.
    const pointed = new Set(Object.values(resolved).flat());
    expect(expanded.every((o: unknown) => pointed.has(o))).toBe(true);
  });

  it('expands one path only, by query or comma list', async () => {
    const one = await getTask(s, demo.stepUp, '?expand=app');
    expect(one.body.expanded).toHaveLength(1);
    expect(one.body.taskView.appPath).toBe('expanded[0]');
    for (const f of TASK_PATH_FIELDS) if (f !== 'appPath') expect(one.body.taskView[f]).toBe('');
    const two = await getTask(s, demo.stepUp, '?expand=entitlements,created_by_user');
    expect(two.body.taskView.createdByUserPath).toBe('expanded[0]');
    expect(two.body.taskView.entitlementsPath).toBe('expanded[1]');
    expect(two.body.expanded.map((o: any) => o.id)).toEqual(['user-grace', 'ent-crm-admin']);
  });

  it('builds the step-up link from its own address, not from the Host header the client sent', async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock);
    const token = await s.token();
    const body = JSON.stringify({ policyStepId: stepId });
    const url = new URL(`${s.baseUrl}/api/v1/tasks/${taskId}/action/approve-with-step-up`);
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            host: 'evil.example.com',
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (d) => (text += d))
            .on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(200);
    expect(answer.body.redirectUrl.startsWith(`${s.baseUrl}/step-up/`)).toBe(true);
    expect(answer.body.redirectUrl).not.toContain('evil.example.com');
  });

  it('runs the full step-up flow: issued transaction, redirect, page, confirmation, approval', async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock);
    const before = await getTask(s, taskId);
    const body = { policyStepId: stepId, comment: 'Looks right <ok>', expandMask: { paths: ['app', 'stepApprovers'] } };

    const first = await approve(s, taskId, body);
    expect(first.status).toBe(200);
    // The server issues the transaction: an opaque ID (not a UUID), found through the search.
    expect(first.body.redirectUrl).toMatch(new RegExp(`^${s.baseUrl}/step-up/[0-9A-Za-z]{27}\\?token=[A-Za-z0-9_-]{43}$`));
    expect(first.body.ticketActionId).toBe('');
    expect(first.body).not.toHaveProperty('taskActionId');
    expect(first.body.expanded).toHaveLength(3);
    expect(first.body.taskView.appPath).toBe('expanded[0]');
    expect({ ...first.body.taskView, appPath: '', stepApproversPath: '' }).toEqual(before.body.taskView);
    const found = await searchTx(s, {
      taskId,
      state: 'STEP_UP_TRANSACTION_STATE_PENDING',
      userId: 'user-ci',
      targetType: 'TARGET_TYPE_TICKET',
    });
    expect(found.status).toBe(200);
    expect(found.body.list).toHaveLength(1);
    expect(found.body.nextPageToken).toBe('');
    const tx = found.body.list[0];
    expect(tx).toEqual({
      id: expect.stringMatching(KSUID),
      state: 'STEP_UP_TRANSACTION_STATE_PENDING',
      approveTask: { taskId, policyStepId: stepId },
      providerId: 'stepup-embedded',
      userId: 'user-ci',
      claims: null,
      errorMessage: '',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: tx.createdAt,
      expiresAt: new Date(Date.parse(tx.createdAt) + 10 * 60_000).toISOString(),
    });
    expect(first.body.redirectUrl).toContain(`/step-up/${tx.id}?`);
    expect((await getTx(s, tx.id)).body).toEqual({ transaction: tx });

    // Not verified yet: refused, and the task is unchanged.
    const early = await approve(s, taskId, { ...body, stepUpTransactionId: tx.id });
    expect(early.status).toBe(400);
    expect(early.body.code).toBe(9);
    expect(early.body.message).toMatch(/not verified yet/);
    expect((await getTask(s, taskId)).body).toEqual(before.body);

    const shown = await page(first.body.redirectUrl);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-type')).toMatch(/^text\/html/);
    expect(shown.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(shown.html).toContain('CRM Administrator for Grace Hopper');
    expect(shown.html).toContain(stepId);
    expect(shown.html).toMatch(/<form method="post" action="&#47;step-up&#47;/);
    expect(shown.html).toContain('<button type="submit">');

    const confirmed = await page(first.body.redirectUrl, 'POST');
    expect(confirmed.status).toBe(200);
    expect(confirmed.html).toContain('Step-up confirmed');
    const verified = (await getTx(s, tx.id)).body.transaction;
    expect(verified.state).toBe('STEP_UP_TRANSACTION_STATE_VERIFIED');
    expect(Date.parse(verified.updatedAt)).toBeGreaterThanOrEqual(Date.parse(tx.createdAt));

    const done = await approve(s, taskId, { ...body, stepUpTransactionId: tx.id });
    expect(done.status).toBe(200);
    expect(done.body.redirectUrl).toBe('');
    expect(done.body.ticketActionId).toMatch(KSUID);
    expect(done.body).not.toHaveProperty('taskActionId');
    const t = done.body.taskView.task;
    const approved = t.policy.history.at(-1);
    expect(approved.id).toBe(stepId);
    expect(approved.state).toBe('POLICY_STEP_STATE_DONE');
    expect(approved.approval.state).toBe('APPROVAL_INSTANCE_STATE_DONE');
    expect(approved.approval.approved).toEqual({
      approvedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      entitlements: [{ appId: 'crm-app', appEntitlementId: 'ent-crm-admin' }],
      stepUpTransactionId: tx.id,
      userId: 'user-ci',
    });
    expect(Date.now() - Date.parse(approved.approval.approved.approvedAt)).toBeLessThan(60_000);
    expect(t.policy.current.provision).toBeDefined();
    expect(t.policy.current.id).not.toBe(stepId);
    expect(t.policy.next.map((n: any) => Object.keys(n)[0])).toEqual(['accept']);
    expect(t.commentCount).toBe(1);
    expect(done.body.taskView.stepApproversPath).toBe('');
    expect(t.approverIds).toEqual(['user-ci']);
    const action = s.server.store.db.prepare('SELECT * FROM task_approve_actions WHERE id = ?').get(done.body.ticketActionId) as any;
    expect(action).toMatchObject({
      task_id: taskId,
      step_id: stepId,
      user_id: 'user-ci',
      step_up_transaction_id: tx.id,
      comment: 'Looks right <ok>',
    });
    // A used transaction still reads as verified (the service has no "used" state).
    expect((await getTx(s, tx.id)).body.transaction.state).toBe('STEP_UP_TRANSACTION_STATE_VERIFIED');

    // Single use: replaying the request, or the page, is refused.
    const replay = await approve(s, taskId, { ...body, stepUpTransactionId: tx.id });
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe(9);
    expect(replay.body.message).toMatch(/already used/);
    expect((await page(first.body.redirectUrl)).status).toBe(410);
    expect((await page(first.body.redirectUrl, 'POST')).status).toBe(410);
  });

  it('issues a new transaction on every call without one', async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock);
    const a = await startStepUp(s, taskId, stepId);
    const b = await startStepUp(s, taskId, stepId);
    expect(b.tx).not.toBe(a.tx);
    expect(b.url).not.toBe(a.url);
    expect((await searchTx(s, { taskId })).body.list.map((t: any) => t.id)).toEqual([b.tx, a.tx]);
  });

  it('refuses transaction IDs it never issued, for another task, step or user, not verified or used (400 code 9)', async () => {
    const a = insertStepUpTask(s.server.store, s.clock);
    const b = insertStepUpTask(s.server.store, s.clock);
    for (const invented of [randomUUID(), 'abc', 'x'.repeat(200)]) {
      const r = await approve(s, a.taskId, { policyStepId: a.stepId, stepUpTransactionId: invented });
      expect(r.status, invented).toBe(400);
      expect(r.body.code).toBe(9);
      expect(r.body.message).toMatch(/not issued by this server/);
    }
    const { url, tx } = await startStepUp(s, a.taskId, a.stepId);
    const other = await approve(s, b.taskId, { policyStepId: b.stepId, stepUpTransactionId: tx });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe(9);
    expect(other.body.message).toMatch(/bound to another task, step or user/);
    const ada = tokenFor(s, 'user-ada');
    const otherUser = await approve(s, a.taskId, { policyStepId: a.stepId, stepUpTransactionId: tx }, ada);
    expect(otherUser.status).toBe(400);
    expect(otherUser.body.code).toBe(9);
    // After confirming, the binding still holds.
    await page(url, 'POST');
    expect((await approve(s, b.taskId, { policyStepId: b.stepId, stepUpTransactionId: tx })).status).toBe(400);
    expect((await approve(s, a.taskId, { policyStepId: a.stepId, stepUpTransactionId: tx }, ada)).status).toBe(400);
    expect((await getTask(s, b.taskId)).body.taskView.task.policy.current.id).toBe(b.stepId);
    // A used transaction cannot be reused on another task either.
    expect((await approve(s, a.taskId, { policyStepId: a.stepId, stepUpTransactionId: tx })).status).toBe(200);
    const reuse = await approve(s, b.taskId, { policyStepId: b.stepId, stepUpTransactionId: tx });
    expect(reuse.status).toBe(400);
    expect(reuse.body.message).toMatch(/already used/);
  });

  it('searches transactions by task, user, state, target type and creation time, page by page', async () => {
    const a = insertStepUpTask(s.server.store, s.clock);
    const b = insertStepUpTask(s.server.store, s.clock);
    const ada = tokenFor(s, 'user-ada');
    const since = new Date(s.clock.now()).toISOString();
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push((await startStepUp(s, a.taskId, a.stepId)).tx);
    const adas = (await startStepUp(s, a.taskId, a.stepId, ada)).tx;
    const onB = await startStepUp(s, b.taskId, b.stepId);
    await page(onB.url, 'POST');
    const ids = async (body: Record<string, unknown>) => {
      const r = await searchTx(s, body);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.list.map((t: any) => t.id).sort();
    };
    expect(await ids({ taskId: a.taskId })).toEqual([...mine, adas].sort());
    expect(await ids({ taskId: a.taskId, userId: 'user-ada' })).toEqual([adas]);
    expect(await ids({ createdAfter: since, state: 'STEP_UP_TRANSACTION_STATE_VERIFIED' })).toEqual([onB.tx]);
    expect(await ids({ taskId: a.taskId, state: 'STEP_UP_TRANSACTION_STATE_VERIFIED' })).toEqual([]);
    expect(await ids({ taskId: a.taskId, targetType: 'TARGET_TYPE_TEST' })).toEqual([]);
    expect(await ids({ taskId: a.taskId, providerId: 'stepup-embedded', targetType: 'TARGET_TYPE_UNSPECIFIED' })).toHaveLength(4);
    expect(await ids({ taskId: a.taskId, createdBefore: since })).toEqual([]);
    expect(await ids({ taskId: a.taskId, createdAfter: new Date(s.clock.now() + 60_000).toISOString() })).toEqual([]);
    // Paging: newest first, every transaction once.
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const r = await searchTx(s, { createdAfter: since, pageSize: 2, pageToken });
      expect(r.body.list.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.list.map((t: any) => t.id));
      pageToken = r.body.nextPageToken;
      pages++;
    } while (pageToken);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual([...mine, adas, onB.tx].sort());
    // Bad input: 400 code 3; an unknown ID: 404.
    for (const body of [
      { state: 'DONE' },
      { targetType: 'TICKET' },
      { pageSize: -1 },
      { pageToken: 'bogus' },
      { createdAfter: 'yesterday' },
      { taskId: 7 },
    ]) {
      const r = await searchTx(s, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe(3);
    }
    const unknown = await getTx(s, 'no-such-transaction');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe(5);
    expect((await s.api('/api/v1/search/step-up/transactions', { method: 'POST', json: {}, auth: false })).status).toBe(401);
  });

  it('tells the caller who it is (GET /api/v1/auth/introspect)', async () => {
    const res = await s.api('/api/v1/auth/introspect');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ userId: 'user-ci', principleId: s.plainClient.clientId });
    expect((await s.api('/api/v1/auth/introspect', { auth: false })).status).toBe(401);
  });

  it('refuses a step that is not the current one, not an approval, or a closed task (400 code 9)', async () => {
    const wrong = await approve(s, demo.stepUp, { policyStepId: 'not-the-step' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe(9);
    expect(wrong.body.message).toContain(demo.stepUpStepId);
    const waiting = await approve(s, demo.waiting, { policyStepId: demo.waitingStepId });
    expect(waiting.status).toBe(400);
    expect(waiting.body.code).toBe(9);
    expect(waiting.body.message).toMatch(/wait step, not an approval/);
    const closedView = (await getTask(s, demo.closed)).body.taskView.task;
    expect(closedView.policy.current.accept).toEqual({ acceptMessage: 'Access granted' });
    const closed = await approve(s, demo.closed, { policyStepId: closedView.policy.current.id });
    expect(closed.status).toBe(400);
    expect(closed.body.code).toBe(9);
    expect(closed.body.message).toMatch(/closed/);
    // None of these issued a transaction.
    for (const taskId of [demo.stepUp, demo.waiting, demo.closed]) expect((await searchTx(s, { taskId })).body.list).toEqual([]);
  });

  it('answers 404 for an unknown task and 400 code 3 for bad input', async () => {
    const res = await approve(s, 'no-such-task', { policyStepId: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(5);
    for (const body of [
      {},
      { policyStepId: demo.stepUpStepId, stepUpTransactionId: 7 },
      { policyStepId: demo.stepUpStepId, expandMask: { paths: ['x'] } },
    ]) {
      const bad = await approve(s, demo.stepUp, body);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe(3);
    }
    const anon = await s.api(`/api/v1/tasks/${demo.stepUp}/action/approve-with-step-up`, { method: 'POST', json: {}, auth: false });
    expect(anon.status).toBe(401);
  });

  it('refuses callers who are not approvers of the step (403 code 7)', async () => {
    const grace = tokenFor(s, 'user-grace');
    const self = await approve(s, demo.stepUp, { policyStepId: demo.stepUpStepId }, grace);
    expect(self.status).toBe(403);
    expect(self.body.code).toBe(7);
    const ci = await approve(s, demo.noStepUp, { policyStepId: demo.noStepUpStepId });
    expect(ci.status).toBe(403);
    expect(ci.body.code).toBe(7);
    const view = await s.api(`/api/v1/tasks/${demo.noStepUp}`);
    expect(view.body.taskView.objectPermissions.edit).toBe(false);
  });

  it('approves a step that needs no step-up at once, then the task is closed', async () => {
    const ada = tokenFor(s, 'user-ada');
    // A transaction ID, when sent, must still be one it issued.
    const invented = await approve(s, demo.noStepUp, { policyStepId: demo.noStepUpStepId, stepUpTransactionId: randomUUID() }, ada);
    expect(invented.status).toBe(400);
    expect(invented.body.code).toBe(9);
    const res = await approve(s, demo.noStepUp, { policyStepId: demo.noStepUpStepId, expandMask: { paths: ['*'] } }, ada);
    expect(res.status).toBe(200);
    expect(res.body.redirectUrl).toBe('');
    expect(res.body.ticketActionId).toMatch(KSUID);
    const p = res.body.taskView.task.policy;
    expect(p.history.at(-1).approval.approved).toMatchObject({ userId: 'user-ada', stepUpTransactionId: '' });
    expect(p.current.accept.acceptMessage).toBe('Access granted');
    const again = await approve(s, demo.noStepUp, { policyStepId: p.current.id }, ada);
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/closed/);
  });

  it('requires a comment when the step asks for an approval reason', async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock, { requireApprovalReason: true });
    const res = await approve(s, taskId, { policyStepId: stepId, comment: '  ' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(3);
    expect((await approve(s, taskId, { policyStepId: stepId, comment: 'needed for Q3' })).body.redirectUrl).not.toBe('');
  });

  it('approves once when the same verified transaction races', async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock);
    const { url, tx } = await startStepUp(s, taskId, stepId);
    const body = { policyStepId: stepId, stepUpTransactionId: tx };
    await page(url, 'POST');
    const results = await Promise.all(Array.from({ length: 6 }, () => approve(s, taskId, body)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.code === 9)).toHaveLength(5);
    const n = s.server.store.db.prepare('SELECT COUNT(*) AS n FROM task_approve_actions WHERE task_id = ?').get(taskId) as { n: number };
    expect(n.n).toBe(1);
  });

  it('shows 404 for a wrong or missing page token and escapes what it shows', async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock, { displayName: '<script>alert("x")</script> & co' });
    const { url, tx } = await startStepUp(s, taskId, stepId);
    const shown = await page(url);
    expect(shown.html).not.toContain('<script>');
    expect(shown.html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;&#47;script&#62; &#38; co');
    const u = new URL(url);
    expect((await page(`${u.origin}${u.pathname}`)).status).toBe(404);
    expect((await page(`${u.origin}${u.pathname}?token=${'A'.repeat(43)}`)).status).toBe(404);
    expect((await page(`${u.origin}${u.pathname}?token=${'A'.repeat(43)}`, 'POST')).status).toBe(404);
    expect((await page(`${u.origin}/step-up/${randomUUID()}?${u.searchParams}`)).status).toBe(404);
    // The wrong-token POST did not verify it.
    expect((await getTx(s, tx)).body.transaction.state).toBe('STEP_UP_TRANSACTION_STATE_PENDING');
    // The page token is sealed at rest.
    const row = s.server.store.db.prepare('SELECT token_sealed FROM step_up_transactions WHERE id = ?').get(tx) as { token_sealed: string };
    expect(row.token_sealed).not.toContain(u.searchParams.get('token'));
  });

  it('computes approvers for other assignee kinds', async () => {
    const ada = tokenFor(s, 'user-ada');
    const taskId = insertTask(s.server.store, s.clock, {
      displayName: 'Owners approve',
      createdByUserId: 'user-grace',
      identityUserId: 'user-grace',
      owners: { app: ['user-ada'] },
      current: approvalInstance(s.clock, { appOwners: {}, requiresStepUpProviderId: '' }),
      next: [{ reject: { rejectMessage: 'no' } }],
    });
    const view = (await getTask(s, taskId, '?expand=stepApprovers')).body;
    expect(view.taskView.task.approverIds).toEqual(['user-ada']);
    const stepId = view.taskView.task.policy.current.id;
    expect((await approve(s, taskId, { policyStepId: stepId })).status).toBe(403);
    const ok = await approve(s, taskId, { policyStepId: stepId }, ada);
    expect(ok.status).toBe(200);
    expect(ok.body.taskView.task.policy.current.reject.rejectMessage).toBe('no');
  });
});

describe('step-up transaction expiry (moved clock)', async () => {
  const s = await startTestServer();

  it('expires a pending transaction after 10 minutes: it reads as ERROR and cannot be used', async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock);
    const { url, tx } = await startStepUp(s, taskId, stepId);
    s.clock.advance(9 * 60_000);
    expect((await getTx(s, tx)).body.transaction.state).toBe('STEP_UP_TRANSACTION_STATE_PENDING');
    s.clock.advance(60_000 + 1);
    const expired = (await getTx(s, tx)).body.transaction;
    expect(expired).toMatchObject({
      state: 'STEP_UP_TRANSACTION_STATE_ERROR',
      errorMessage: expect.stringMatching(/expired .* before it was verified/),
    });
    expect(expired.updatedAt).toBe(expired.expiresAt);
    expect((await searchTx(s, { taskId, state: 'STEP_UP_TRANSACTION_STATE_ERROR' })).body.list.map((t: any) => t.id)).toEqual([tx]);
    expect((await searchTx(s, { taskId, state: 'STEP_UP_TRANSACTION_STATE_PENDING' })).body.list).toEqual([]);
    const shown = await page(url);
    expect(shown.status).toBe(410);
    expect(shown.html).toMatch(/expired/);
    expect((await page(url, 'POST')).status).toBe(410);
    const res = await approve(s, taskId, { policyStepId: stepId, stepUpTransactionId: tx });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(9);
    expect(res.body.message).toMatch(/expired/);
    // A new transaction works again.
    expect((await approve(s, taskId, { policyStepId: stepId })).body.redirectUrl).toMatch(/step-up/);
  });

  it('refuses a verified transaction used after its expiry and leaves the task unchanged', async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock);
    const { url, tx } = await startStepUp(s, taskId, stepId);
    expect((await page(url, 'POST')).status).toBe(200);
    s.clock.advance(10 * 60_000 + 1000);
    const res = await approve(s, taskId, { policyStepId: stepId, stepUpTransactionId: tx });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/expired/);
    expect((await getTask(s, taskId)).body.taskView.task.policy.current.id).toBe(stepId);
  });

  it('expands every key in the redirect answer too', async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock);
    const res = await approve(s, taskId, { policyStepId: stepId, expandMask: { paths: ['*'] } });
    const resolved = resolveTaskViewPaths(res.body.taskView, res.body.expanded);
    expect(Object.keys(resolved).length).toBeGreaterThanOrEqual(8);
    expect(EXPAND_KEYS.length).toBe(14);
  });
});
