import { describe, expect, it } from 'vitest';
import type { ApproveWithStepUpResponse } from '../../../src/api/tasks.js';
import {
  INTERRUPT_GRACE_MS,
  clean,
  defaultDeps,
  formatDuration,
  resumeCommand,
  shellQuote,
  waitForApproval,
  type Deps,
} from '../../../src/cli/commands/task/approve-step-up.js';
import { CommandContext } from '../../../src/cli/context.js';
import { fakeIO } from '../../helpers/io.js';

describe('approve-step-up helpers', () => {
  it('quotes shell arguments only when needed', () => {
    expect(shellQuote('3MRDWnd7GeWPMoSDtJYbtJEXKxQ')).toBe('3MRDWnd7GeWPMoSDtJYbtJEXKxQ');
    expect(shellQuote('*')).toBe("'*'");
    expect(shellQuote("it's fine")).toBe(`'it'\\''s fine'`);
    expect(shellQuote('$(rm -rf /)')).toBe("'$(rm -rf /)'");
  });

  it('builds a resume command carrying the global flags that were given', () => {
    const args = { taskId: 't1', stepId: 's1', txId: '0f8fad5b-d9cb-469f-a165-70867728950e', comment: '', expand: undefined };
    expect(resumeCommand({ flags: {} }, args)).toBe('agctl task approve-step-up t1 --step s1 --transaction-id 0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(resumeCommand({ flags: { profile: 'ci', embedded: true } }, { ...args, comment: 'ok for Q3', expand: 'app,approvers' })).toBe(
      "agctl --profile ci --embedded task approve-step-up t1 --step s1 --transaction-id 0f8fad5b-d9cb-469f-a165-70867728950e --comment 'ok for Q3' --expand app,approvers",
    );
  });

  it('formats wait durations and strips control characters from server text', () => {
    expect(formatDuration(300_000)).toBe('5m00s');
    expect(formatDuration(61_500)).toBe('1m02s');
    expect(formatDuration(999)).toBe('1s');
    expect(clean('Task\x1b[31m red\r\n')).toBe('Task?[31m red??');
  });
});

describe('waiting for the step-up, and Ctrl-C', () => {
  const approvedAnswer = { taskView: { task: {} } } as ApproveWithStepUpResponse;
  const stillPending = { ...approvedAnswer, redirectUrl: 'http://127.0.0.1/step-up/x' } as ApproveWithStepUpResponse;

  function setup(tty = true) {
    const f = fakeIO({ tty });
    const ctx = new CommandContext({ io: f.io, env: { AGCTL_CONFIG_DIR: '/nonexistent' }, flags: {} });
    const sleeps: number[] = [];
    const deps: Deps = { ...defaultDeps, sleep: (ms, signal) => (sleeps.push(ms), defaultDeps.sleep(Math.min(ms, 20), signal)) };
    return { ...f, ctx, deps, sleeps };
  }

  it('Ctrl-C during the pause between calls stops at once, clears the spinner line and unsubscribes', async () => {
    const t = setup();
    let calls = 0;
    const wait = waitForApproval(t.ctx, { ...t.deps, sleep: (ms, signal) => defaultDeps.sleep(ms * 100, signal) }, async () => (calls++, stillPending), 60_000);
    expect(t.interruptListeners()).toBe(1);
    t.interrupt();
    expect(await wait).toBe('interrupted');
    expect(calls).toBe(0);
    expect(t.interruptListeners()).toBe(0);
    expect(t.err().endsWith('\r\x1b[K')).toBe(true);
  });

  it('a call in flight at Ctrl-C may still bring the approval; one that does not answer is given up', async () => {
    const t = setup(false);
    let release!: (r: ApproveWithStepUpResponse) => void;
    const inFlight = new Promise<ApproveWithStepUpResponse>((r) => (release = r));
    let calls = 0;
    const wait = waitForApproval(t.ctx, t.deps, () => (calls++ === 0 ? Promise.resolve(stillPending) : inFlight), 60_000);
    while (calls < 2) await new Promise((r) => setTimeout(r, 5));
    t.interrupt();
    setTimeout(() => release(approvedAnswer), 50);
    expect(await wait).toEqual({ approved: approvedAnswer });
    expect(t.interruptListeners()).toBe(0);

    const t2 = setup(false);
    let calls2 = 0;
    const never = new Promise<ApproveWithStepUpResponse>(() => {});
    const started = Date.now();
    const wait2 = waitForApproval(t2.ctx, t2.deps, () => (calls2++, never), 60_000);
    while (calls2 < 1) await new Promise((r) => setTimeout(r, 5));
    t2.interrupt();
    t2.interrupt(); // a second Ctrl-C does not wait out the grace period
    expect(await wait2).toBe('interrupted');
    expect(Date.now() - started).toBeLessThan(INTERRUPT_GRACE_MS);
    expect(t2.interruptListeners()).toBe(0);
  });

  it('unsubscribes from Ctrl-C after an approval and after a timeout', async () => {
    const t = setup(false);
    expect(await waitForApproval(t.ctx, t.deps, async () => approvedAnswer, 60_000)).toEqual({ approved: approvedAnswer });
    expect(t.interruptListeners()).toBe(0);
    expect(await waitForApproval(t.ctx, t.deps, async () => stillPending, 50)).toBe('timeout');
    expect(t.interruptListeners()).toBe(0);
  });
});
