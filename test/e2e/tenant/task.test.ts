// agctl task approve-step-up against a tenant that issues the step-up
// transactions itself (service-notes.md §2): the first call carries no
// transaction ID and gets a redirect URL; the person completes the page; the
// CLI finds the verified transaction through the transaction routes, approves
// with it and prints the ticketActionId. Invented, foreign, unverified or used
// IDs are refused.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startCli } from '../../helpers/cli.js';
import { shellWords, tenant, tenantCli } from './helpers.js';

const URL_RE = /(http:\/\/127\.0\.0\.1:\d+\/step-up\/complete\/[A-Za-z0-9_-]+)/;
const count = (text: string, part: string) => text.split(part).length - 1;

// Each test on a task of its own: they run side by side (most of their time is waiting on polls).
describe.concurrent('task approve-step-up against the fake tenant', async () => {
  const t = await tenant();
  const { cli, spawnEnv } = tenantCli(t);
  const currentStep = (taskId: string) => t.tasks.find(taskId)!.current?.id;
  const actionFor = (taskId: string) => t.tasks.actions.find((a) => a.taskId === taskId);
  const txsFor = (taskId: string) => t.tasks.transactions.filter((x) => x.approveTask?.taskId === taskId);

  /** The approval went through on the tenant, with a transaction the tenant issued to this user, and its ID was printed. */
  function expectApproved(taskId: string, stepId: string, stdout: string, comment = '') {
    const action = actionFor(taskId);
    expect(action).toMatchObject({ policyStepId: stepId, userId: t.userId, comment });
    const tx = t.tasks.transactions.find((x) => x.id === action!.stepUpTransactionId);
    expect(tx).toMatchObject({ userId: t.userId, used: true, approveTask: { taskId, policyStepId: stepId } });
    expect(currentStep(taskId)).not.toBe(stepId);
    expect(stdout).toContain(action!.ticketActionId);
  }

  it('waits while the step-up page is completed, then approves and prints the ticketActionId', async () => {
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const run = startCli(['task', 'approve-step-up', taskId, '--comment', 'quarterly review'], spawnEnv);
    const [, url] = await run.waitForStderr(URL_RE);
    expect(currentStep(taskId)).toBe(stepId);
    expect(await t.completeStepUp(url!)).toBe(200);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expectApproved(taskId, stepId, r.stdout, 'quarterly review');
    // One transaction: the one the tenant issued on the first call (none invented).
    expect(txsFor(taskId)).toHaveLength(1);
    expect(t.tasks.approveRequests.filter((a) => a.taskId === taskId)[0]!.body).toHaveProperty('stepUpTransactionId', '');
  });

  it('--no-wait prints the URL and a resume command once and exits 10; after the page, the resume command approves', async () => {
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const first = await cli(['task', 'approve-step-up', taskId, '--no-wait']);
    expect(first.code, first.stderr).toBe(10);
    const out = first.stdout + first.stderr;
    const url = URL_RE.exec(out)?.[1];
    expect(url, out).toBeDefined();
    expect(count(out, url!)).toBe(1);
    const [tx] = txsFor(taskId);
    expect(tx?.state).toBe('STEP_UP_TRANSACTION_STATE_PENDING');
    const lines = out.split('\n').filter((l) => /agctl .*--transaction-id/.test(l));
    expect(lines, out).toHaveLength(1);
    const words = shellWords(lines[0]!.slice(lines[0]!.indexOf('agctl ')));
    expect(words[words.indexOf('--transaction-id') + 1]).toBe(tx!.id);
    expect(currentStep(taskId)).toBe(stepId);

    expect(await t.completeStepUp(url!)).toBe(200);
    const done = await cli(words.slice(1));
    expect(done.code, done.stderr).toBe(0);
    expectApproved(taskId, stepId, done.stdout);
    expect(txsFor(taskId)).toHaveLength(1);
  });

  it("is not misled by another user's verified transaction for the same step", async () => {
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const decoy = t.tasks.addTransaction({
      taskId,
      policyStepId: stepId,
      userId: t.otherClient.userId,
      state: 'STEP_UP_TRANSACTION_STATE_VERIFIED',
      createdAt: Date.now() - 60_000,
    });
    const run = startCli(['task', 'approve-step-up', taskId], spawnEnv);
    const [, url] = await run.waitForStderr(URL_RE);
    expect(await t.completeStepUp(url!)).toBe(200);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expectApproved(taskId, stepId, r.stdout);
    expect(decoy.used).toBe(false);
  });

  it('a transaction ID the tenant never issued is not found (exit 5) and nothing is approved', async () => {
    const { taskId, stepId } = t.tasks.addStepUpTask();
    const r = await cli(['task', 'approve-step-up', taskId, '--step', stepId, '--transaction-id', randomUUID()]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/transaction/);
    expect(currentStep(taskId)).toBe(stepId);
    expect(actionFor(taskId)).toBeUndefined();
  });
});
