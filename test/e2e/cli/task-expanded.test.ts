// Entries of `expanded` that are not objects (null, a string) are hostile
// input a tenant may send: the summaries of task get and approve-step-up
// leave them out and print the rest, never crash (exit 1).
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { tinyServer, type Seen } from '../../unit/client/tiny-server.js';

const t = await tinyServer();
const cli = cliFor(tempDir('agctl-expanded-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' });

const user = { '@type': 'type.googleapis.com/c1.api.user.v1.User', id: 'u-ada', displayName: 'Ada Admin', email: 'ada@example.com' };
const step = {
  id: 's1',
  state: 'POLICY_STEP_STATE_ACTIVE',
  approval: { approval: { requiresStepUpProviderId: 'p1', users: { userIds: ['u-ada'] } } },
};
const view = (policy: Record<string, unknown>) => ({
  task: {
    id: 't1',
    numericId: '7',
    displayName: 'CRM admin',
    createdByUserId: 'u-ada',
    state: 'TASK_STATE_OPEN',
    stepApproverIds: ['u-ada'],
    policy,
  },
  // Every path points at a null, a string or the one user.
  createdByUserPath: 'expanded[0]',
  stepApproversPath: 'expanded[0,1,2]',
  approversPath: 'expanded[*]',
  appPath: 'expanded[1]',
});
const expanded = [null, 'not an object', user];

t.reset((req: Seen, res: ServerResponse) => {
  const send = (body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  if (req.path === '/api/v1/search/tasks') return send({ list: [view({ current: step })], expanded, nextPageToken: '' });
  if (req.path === '/api/v1/tasks/t1') return send({ taskView: view({ current: step }), expanded });
  if (req.path === '/api/v1/tasks/t1/action/approve-with-step-up') {
    const done = {
      ...step,
      state: 'POLICY_STEP_STATE_DONE',
      approval: { ...step.approval, approved: { userId: 'u-ada', approvedAt: '2026-01-01T00:00:00Z', stepUpTransactionId: 'tx1' } },
    };
    return send({ taskView: view({ current: null, history: [done] }), expanded, ticketActionId: 'act-1' });
  }
  if (req.path === '/api/v1/step-up/transactions/tx1')
    return send({
      transaction: {
        id: 'tx1',
        state: 'STEP_UP_TRANSACTION_STATE_VERIFIED',
        approveTask: { taskId: 't1', policyStepId: 's1' },
        userId: 'u-ada',
      },
    });
  if (req.path === '/api/v1/auth/introspect') return send({ userId: 'u-ada' });
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"code":"not_found"}');
});

describe('null and non-object entries in expanded', () => {
  it('task get prints the task and the objects that are objects', async () => {
    const r = await cli(['task', 'get', 't1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Can approve:\s+Ada Admin <ada@example\.com>$/m);
    expect(r.stdout).toMatch(/^App:\s+-$/m);
    expect(r.stdout).toMatch(/^Requester:\s+Ada Admin <ada@example\.com>$/m);
  });

  it('task approve-step-up prints the approval', async () => {
    const r = await cli(['task', 'approve-step-up', 't1', '--step', 's1', '--transaction-id', 'tx1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Approved step:\s+approval s1 by Ada Admin \(u-ada\) at /m);
    expect(r.stdout).toMatch(/^Approve action:\s+act-1$/m);
  });
});
