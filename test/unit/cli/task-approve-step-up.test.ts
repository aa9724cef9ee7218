import { describe, expect, it } from 'vitest';
import { CliError } from '../../../src/lib/exit.js';
import type { StepUpTransaction } from '../../../src/api/tasks.js';
import type { ApiClient } from '../../../src/client/api.js';
import { approveWithStepUp } from '../../../src/client/tasks.js';
import { sendJson, tinyServer } from '../client/tiny-server.js';
import {
  CLOCK_SKEW_MS,
  findTransaction,
  formatDuration,
  resumeCommand,
  run,
  verified,
  waitFor,
  waitingText,
  type Target,
} from '../../../src/cli/commands/task/approve-step-up/run.js';
import { systemBrowser, type Browser } from '../../../src/cli/browser.js';
import { fitLine } from '../../../src/cli/live-line.js';
import { sleep, type Clock } from '../../../src/lib/clock.js';
import { text } from '../../../src/cli/commands/task/summary.js';
import { escapeControls } from '../../../src/cli/escape.js';
import { CommandContext } from '../../../src/cli/context.js';
import { nextCommand } from '../../../src/cli/commands/task/next-command.js';
import { fakeIO } from '../../helpers/io.js';

describe('approve-step-up helpers', () => {
  it('builds a resume command carrying the global flags that were given', () => {
    const args = { taskId: 't1', stepId: 's1', txId: '2hAcQ7vXy1Lm0bYtZk3PdRuE9sW', comment: '', expand: undefined };
    expect(resumeCommand({ flags: {} }, args)).toEqual({
      line: 'agctl task approve-step-up t1 --step s1 --transaction-id 2hAcQ7vXy1Lm0bYtZk3PdRuE9sW',
    });
    expect(
      resumeCommand(
        { flags: { profile: 'ci', baseUrl: 'https://t.example' } },
        { ...args, txId: 'tx/1 2', comment: 'ok for Q3', expand: 'app,approvers' },
      ),
    ).toEqual({
      line: "agctl --profile ci --base-url https://t.example task approve-step-up t1 --step s1 --transaction-id 'tx/1 2' --comment 'ok for Q3' --expand app,approvers",
    });
    // A multi-line comment: one line, exact when pasted, and left alone by a field's escaping.
    const multi = (resumeCommand({ flags: {} }, { ...args, comment: "line 1\nit's line 2" }) as { line: string }).line;
    expect(multi).toBe(
      "agctl task approve-step-up t1 --step s1 --transaction-id 2hAcQ7vXy1Lm0bYtZk3PdRuE9sW --comment $'line 1\\nit\\'s line 2'",
    );
    expect(escapeControls(multi)).toBe(multi);
  });

  it('the next command carries the flags that select the target: profile, server, client, embedded', () => {
    expect(nextCommand({ profile: 'ci', output: 'json', debug: true }, ['task', 'get', 't 1'])).toEqual({
      line: "agctl --profile ci task get 't 1'",
    });
    expect(nextCommand({ embedded: true, timeout: 5 }, ['task', 'approve-step-up', 't1'])).toEqual({
      line: 'agctl --embedded task approve-step-up t1',
    });
    expect(nextCommand({ baseUrl: 'https://t.example', clientId: 'c1' }, ['x'])).toEqual({
      line: 'agctl --base-url https://t.example --client-id c1 x',
    });
  });

  it('formats wait durations and shows control characters in server text as escapes', () => {
    expect(formatDuration(300_000)).toBe('5m00s');
    expect(formatDuration(61_500)).toBe('1m02s');
    expect(formatDuration(999)).toBe('1s');
    // The spinner's text: the Ctrl-C hint goes first, then words around the time left.
    expect(fitLine(waitingText(61_000), 100)).toBe('Waiting for the step-up to be confirmed (1m01s left, Ctrl-C to stop)');
    expect(fitLine(waitingText(61_000), 55)).toBe('Waiting for the step-up to be confirmed (1m01s left)');
    expect(fitLine(waitingText(61_000), 45)).toBe('Waiting for the step-up (1m01s left)');
    expect(text('Task\x1b[31m red\r\n\u009b')).toBe('Task\\x1b[31m red\\r\\n\\x9b');
    expect(text(42)).toBe('');
  });
});

const NOW = Date.parse('2026-05-01T12:00:00Z');
const clock: Clock = { now: () => NOW, sleep };
const tx = (over: Partial<StepUpTransaction> = {}): StepUpTransaction => ({
  id: 'tx1',
  state: 'STEP_UP_TRANSACTION_STATE_PENDING',
  approveTask: { taskId: 't1', policyStepId: 's1' },
  providerId: 'p',
  userId: 'u1',
  claims: null,
  errorMessage: '',
  createdAt: new Date(NOW - 1000).toISOString(),
  updatedAt: null,
  expiresAt: new Date(NOW + 600_000).toISOString(),
  ...over,
});

describe('opening the step-up page', () => {
  const env = { PATH: process.env.PATH };
  it('is false when the browser command cannot start or fails at once (BROWSER=false), true when it succeeds', async () => {
    expect(await systemBrowser({ ...env, BROWSER: 'false' }).open('https://t.example/su')).toBe(false);
    expect(await systemBrowser({ ...env, BROWSER: '/nonexistent/browser' }).open('https://t.example/su')).toBe(false);
    expect(await systemBrowser({ ...env, BROWSER: 'true' }).open('https://t.example/su')).toBe(true);
  });
});

describe("reading a transaction's state", () => {
  it('is verified, pending, or a clear error', () => {
    expect(verified({ clock }, tx({ state: 'STEP_UP_TRANSACTION_STATE_VERIFIED' }))).toBe(true);
    expect(verified({ clock }, tx())).toBe(false);
    // Pending and past its expiry by more than the clock skew allowed: expired, without waiting for the server to say so.
    expect(verified({ clock }, tx({ expiresAt: new Date(NOW - CLOCK_SKEW_MS + 1000).toISOString() }))).toBe(false);
    expect(() => verified({ clock }, tx({ expiresAt: new Date(NOW - CLOCK_SKEW_MS - 1000).toISOString() }))).toThrow(
      /expired at .* before it was verified/,
    );
    expect(() => verified({ clock }, tx({ state: 'STEP_UP_TRANSACTION_STATE_ERROR', errorMessage: 'MFA denied\x1b[2J' }))).toThrow(
      'step-up transaction tx1 failed: MFA denied\\x1b[2J',
    );
    expect(() => verified({ clock }, tx({ state: 'STEP_UP_TRANSACTION_STATE_ERROR' }))).toThrow(/gives no reason/);
    expect(() => verified({ clock }, tx({ state: 'STEP_UP_TRANSACTION_STATE_UNSPECIFIED' }))).toThrow(/state agctl does not know/);
    try {
      verified({ clock }, tx({ state: 'STEP_UP_TRANSACTION_STATE_ERROR' }));
    } catch (err) {
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).exitCode).toBe(7);
      expect((err as CliError).hint).toMatch(/without --transaction-id/);
    }
  });
});

describe('finding the transaction the server issued', () => {
  /** A fake search route: pages of `pages`, recording each request body. */
  function searchApi(pages: { list: unknown[]; nextPageToken?: string }[]) {
    const bodies: any[] = [];
    const api = {
      async call(method: string, path: string, opts: { body: any; check?: (b: Record<string, unknown>) => string | undefined }) {
        expect(`${method} ${path}`).toBe('POST /api/v1/search/step-up/transactions');
        bodies.push(opts.body);
        const page = pages[bodies.length - 1] ?? { list: [] };
        expect(opts.check?.(page as Record<string, unknown>)).toBeUndefined();
        return page;
      },
    } as unknown as ApiClient;
    return { api, bodies };
  }
  const debug = () => {};
  const target: Target = { taskId: 't1', stepId: 's1', userId: 'u1', txId: '', since: NOW - CLOCK_SKEW_MS };

  it('asks for the task, user and creation time, and takes the newest one for the step across pages', async () => {
    const { api, bodies } = searchApi([
      {
        list: [
          tx({ id: 'older', createdAt: new Date(NOW - 5000).toISOString() }),
          tx({ id: 'other-step', approveTask: { taskId: 't1', policyStepId: 's0' } }),
        ],
        nextPageToken: 'p2',
      },
      { list: [tx({ id: 'newest' }), tx({ id: 'other-user', userId: 'u2', createdAt: new Date(NOW).toISOString() })] },
    ]);
    expect((await findTransaction({ debug }, api, target))?.id).toBe('newest');
    expect(bodies).toEqual([
      {
        taskId: 't1',
        userId: 'u1',
        targetType: 'TARGET_TYPE_TICKET',
        createdAfter: new Date(NOW - CLOCK_SKEW_MS).toISOString(),
        pageSize: 50,
      },
      {
        taskId: 't1',
        userId: 'u1',
        targetType: 'TARGET_TYPE_TICKET',
        createdAfter: new Date(NOW - CLOCK_SKEW_MS).toISOString(),
        pageSize: 50,
        pageToken: 'p2',
      },
    ]);
  });

  it('filters on the state when asked, and without a known user asks for none', async () => {
    const { api, bodies } = searchApi([{ list: [tx({ id: 'a' }), tx({ id: 'b', state: 'STEP_UP_TRANSACTION_STATE_VERIFIED' })] }]);
    expect((await findTransaction({ debug }, api, { ...target, userId: '' }, 'STEP_UP_TRANSACTION_STATE_VERIFIED'))?.id).toBe('b');
    expect(bodies[0]).toEqual(expect.objectContaining({ state: 'STEP_UP_TRANSACTION_STATE_VERIFIED' }));
    expect(bodies[0]).not.toHaveProperty('userId');
  });

  it("without a known user, takes none when transactions of several users match (it cannot tell whose is the caller's)", async () => {
    const twoUsers = searchApi([
      { list: [tx({ id: 'mine' }), tx({ id: 'theirs', userId: 'u2', createdAt: new Date(NOW).toISOString() })] },
    ]);
    expect(await findTransaction({ debug }, twoUsers.api, { ...target, userId: '' })).toBeUndefined();
    const oneUser = searchApi([{ list: [tx({ id: 'mine' })] }]);
    expect((await findTransaction({ debug }, oneUser.api, { ...target, userId: '' }))?.id).toBe('mine');
  });

  it('finds nothing in an empty answer, and stops on a repeated page token', async () => {
    expect(await findTransaction({ debug }, searchApi([{ list: [] }]).api, target)).toBeUndefined();
    const looping = searchApi(Array.from({ length: 30 }, () => ({ list: [tx()], nextPageToken: 'same' })));
    expect((await findTransaction({ debug }, looping.api, target))?.id).toBe('tx1');
    expect(looping.bodies).toHaveLength(2);
  });
});

describe('the approve call', () => {
  function approveApi(answer: Record<string, unknown>) {
    const bodies: any[] = [];
    const api = {
      async call(_method: string, _path: string, opts: { body: any; check: (b: Record<string, unknown>) => string | undefined }) {
        bodies.push(opts.body);
        expect(opts.check(answer)).toBeUndefined();
        return answer;
      },
    } as unknown as ApiClient;
    return { api, bodies };
  }
  const view = { taskView: { task: {} } };
  const req = { policyStepId: 's1', comment: '', expandMask: { paths: ['app'] } };

  it('sends the transaction ID empty on the first call (the contract requires the member), and the ID when there is one', async () => {
    const { api, bodies } = approveApi({ ...view, redirectUrl: 'https://t.example/su' });
    await approveWithStepUp(api, 't1', { ...req, stepUpTransactionId: '' });
    await approveWithStepUp(api, 't1', { ...req, stepUpTransactionId: 'tx-1' });
    expect(bodies[0]).toEqual({ ...req, stepUpTransactionId: '' });
    expect(bodies[1]).toEqual({ ...req, stepUpTransactionId: 'tx-1' });
  });

  it('reads the approve action from ticketActionId, or taskActionId from older servers', async () => {
    expect(
      (await approveWithStepUp(approveApi({ ...view, ticketActionId: 'a1' }).api, 't1', { ...req, stepUpTransactionId: 'x' }))
        .ticketActionId,
    ).toBe('a1');
    expect(
      (await approveWithStepUp(approveApi({ ...view, taskActionId: 'a2' }).api, 't1', { ...req, stepUpTransactionId: 'x' })).ticketActionId,
    ).toBe('a2');
    const none = await approveWithStepUp(approveApi(view).api, 't1', { ...req, stepUpTransactionId: 'x' });
    expect(none).toMatchObject({ ticketActionId: '', redirectUrl: '' });
  });
});

describe('waiting for the step-up, and Ctrl-C', () => {
  /** A context whose clock records each pause and waits `scale(ms)` instead. */
  function setup(tty = true, scale = (ms: number) => Math.min(ms, 20)) {
    const f = fakeIO({ tty });
    const sleeps: number[] = [];
    const clock: Clock = { now: () => Date.now(), sleep: (ms, signal) => (sleeps.push(ms), sleep(scale(ms), signal)) };
    const ctx = new CommandContext({ io: f.io, env: { AGCTL_CONFIG_DIR: '/nonexistent' }, flags: {}, clock });
    return { ...f, ctx, sleeps };
  }

  it('Ctrl-C during the pause between polls stops at once, clears the spinner line and unsubscribes', async () => {
    const t = setup(true, (ms) => ms * 100);
    let calls = 0;
    const wait = waitFor(t.ctx, async () => (calls++, undefined), 60_000);
    expect(t.interruptListeners()).toBe(1);
    t.interrupt();
    expect(await wait).toBe('interrupted');
    expect(calls).toBe(0);
    expect(t.interruptListeners()).toBe(0);
    expect(t.err().endsWith('\r\x1b[K')).toBe(true);
  });

  it('Ctrl-C during a poll that does not answer stops at once', async () => {
    const t = setup(false);
    let calls = 0;
    const started = Date.now();
    const wait = waitFor(t.ctx, () => (calls++, new Promise<string | undefined>(() => {})), 60_000);
    while (calls < 1) await new Promise((r) => setTimeout(r, 5));
    t.interrupt();
    expect(await wait).toBe('interrupted');
    // Not the poll's 60 s: half of it is a bound no busy machine misses.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(t.interruptListeners()).toBe(0);
  });

  it('polls until a value comes, with growing pauses, and unsubscribes after it and after a timeout', async () => {
    const t = setup(false);
    let calls = 0;
    expect(await waitFor(t.ctx, async () => (++calls === 3 ? 'tx9' : undefined), 60_000)).toEqual({ value: 'tx9' });
    expect(t.sleeps).toEqual([500, 1000, 1500]);
    expect(t.interruptListeners()).toBe(0);
    expect(await waitFor(t.ctx, async () => undefined, 50)).toBe('timeout');
    expect(t.interruptListeners()).toBe(0);
  });
});

describe('a tenant that does not say who the caller is, nor list the new transaction at once', async () => {
  // A stand-in tenant: no introspect route; a transaction search that ignores
  // every filter and lists the issued transaction only once it is verified,
  // among transactions of other steps and users.
  const t = await tinyServer();
  const other = [tx({ id: 'other-step', approveTask: { taskId: 't1', policyStepId: 's0' }, state: 'STEP_UP_TRANSACTION_STATE_VERIFIED' })];
  let verifiedAfter = Infinity;
  let redirectUrl = 'https://tenant.example/su/opaque';
  t.reset((req, res) => {
    const body = req.body ? JSON.parse(req.body) : {};
    if (req.path === '/api/v1/auth/introspect') return sendJson(res, 404, { code: 5, message: 'no such route' });
    if (req.path === '/api/v1/search/step-up/transactions') {
      const searches = t.seen.filter((r) => r.path === req.path).length;
      const mine = searches > verifiedAfter ? [tx({ id: 'srv-issued-7', userId: 'u1', state: 'STEP_UP_TRANSACTION_STATE_VERIFIED' })] : [];
      return sendJson(res, 200, { list: [...other, ...mine] });
    }
    if (req.path === '/api/v1/tasks/t1/action/approve-with-step-up') {
      if (!body.stepUpTransactionId) return sendJson(res, 200, { taskView: { task: { id: 't1' } }, redirectUrl });
      return sendJson(res, 200, {
        taskView: { task: { id: 't1', numericId: '9' } },
        ticketActionId: `act-for-${body.stepUpTransactionId}`,
      });
    }
    sendJson(res, 404, { code: 5, message: `unexpected ${req.method} ${req.path}` });
  });
  const opts = { step: 's1', wait: true, waitTimeout: 5 };
  /** A command context on the stand-in tenant: pauses of 5 ms, and a browser that records the URLs it is given. */
  const start = () => {
    const f = fakeIO();
    const opened: string[] = [];
    const browser: Browser = { open: async (url) => (opened.push(url), true) };
    const clock: Clock = { now: () => Date.now(), sleep: (_ms, signal) => sleep(5, signal) };
    const ctx = new CommandContext({
      io: f.io,
      env: { AGCTL_CONFIG_DIR: '/nonexistent', AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' },
      flags: {},
      clock,
      browser,
    });
    return { f, ctx, opened };
  };

  it('waits for a verified transaction for this task and step, then approves with it', async () => {
    verifiedAfter = 3;
    t.seen.length = 0;
    const { f, ctx } = start();
    expect(await run({ args: ['t1'], opts }, ctx), f.err()).toBe(0);
    const approves = t.seen.filter((r) => r.path.endsWith('/approve-with-step-up')).map((r) => JSON.parse(r.body));
    expect(approves.map((b) => b.stepUpTransactionId)).toEqual(['', 'srv-issued-7']);
    expect(f.err()).toMatch(/did not list the step-up transaction/);
    expect(f.out()).toMatch(/^Approve action: +act-for-srv-issued-7$/m);
  });

  it('--no-wait exits 10 without a resume command it cannot give', async () => {
    verifiedAfter = Infinity;
    const { f, ctx } = start();
    expect(await run({ args: ['t1'], opts: { ...opts, wait: false } }, ctx)).toBe(10);
    expect(f.out()).toMatch(/^Confirm at: +https:\/\/tenant\.example\/su\/opaque$/m);
    expect(f.out()).not.toMatch(/Resume with/);
    expect(f.err()).toMatch(/cannot resume it; run the command again/);
  });

  it("--open hands the step-up URL to the context's browser, and warns when it could not open it", async () => {
    verifiedAfter = Infinity;
    const { f, ctx, opened } = start();
    expect(await run({ args: ['t1'], opts: { ...opts, wait: false, open: true } }, ctx)).toBe(10);
    expect(opened).toEqual(['https://tenant.example/su/opaque']);
    expect(f.err()).not.toMatch(/could not open a browser/);
    const refused = start();
    const none = new CommandContext({
      io: refused.f.io,
      env: { AGCTL_CONFIG_DIR: '/nonexistent', AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' },
      flags: {},
      browser: { open: async () => false },
    });
    expect(await run({ args: ['t1'], opts: { ...opts, wait: false, open: true } }, none)).toBe(10);
    expect(refused.f.err()).toMatch(/could not open a browser; open the step-up URL yourself/);
  });

  it('a step-up URL longer than 8 KiB is a bad answer (exit 9): neither printed nor opened', async () => {
    redirectUrl = `https://tenant.example/su/opaque?pad=${'a'.repeat(8192)}`;
    try {
      const { f, ctx, opened } = start();
      const approving = run({ args: ['t1'], opts: { ...opts, wait: false, open: true } }, ctx);
      await expect(approving).rejects.toMatchObject({
        exitCode: 9,
        message: `the server answered with a step-up URL of ${redirectUrl.length} characters; agctl takes at most 8192`,
      });
      expect(f.out()).not.toContain('pad=');
      expect(opened).toEqual([]);
    } finally {
      redirectUrl = 'https://tenant.example/su/opaque';
    }
  });
});
