// agctl task approve-step-up: approve a task's policy step with step-up
// authentication, the way the service defines it (service-notes.md §2). The
// first approve call carries no transaction ID: the server issues a
// transaction and answers with the step-up URL. agctl shows (or opens) the
// URL, learns the transaction's ID through the transaction search, waits
// until the transaction is verified, then approves with it. --transaction-id
// resumes with a transaction the server issued earlier.
import { ApiError, Code } from '../../../../api/errors.js';
import { CliError, EXIT_INTERRUPTED, Exit, UsageError, exitCodeForStatus } from '../../../../lib/exit.js';
import {
  COMMENT_MAX_LENGTH,
  STEP_UP_STATES,
  normalizeTaskView,
  stepKind,
  type ApproveWithStepUpRequest,
  type ApproveWithStepUpResponse,
  type ExpandedObject,
  type StepUpTransaction,
  type TaskView,
} from '../../../../api/tasks.js';
import type { ApiClient } from '../../../../client/api.js';
import { listAll } from '../../../../client/paginate.js';
import { callerUserId } from '../../../../client/introspect.js';
import { getStepUpTransaction, searchStepUpTransactions } from '../../../../client/step-up.js';
import { approveWithStepUp, getTask } from '../../../../client/tasks.js';
import type { CommandContext } from '../../../context.js';
import { withNotFoundHint } from '../../../errors.js';
import { startSpinner } from '../../../spinner.js';
import { escapeControls } from '../../../escape.js';
import { nextCommand } from '../next-command.js';
import { resolveTaskArg } from '../task-ref.js';
import { MAX_STEP_UP_URL_CHARS, recalledStepUpUrl, rememberStepUpUrl } from './urls.js';
import { describeStep, expandPaths, named, person, resolver, text } from '../summary.js';
import type { ApproveStepUpInput } from './command.js';

export const DEFAULT_WAIT_SECONDS = 300;
const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 3000;
/** How far the server's clock may be behind or ahead of ours (transaction creation and expiry times). */
export const CLOCK_SKEW_MS = 2 * 60_000;
/** Pages read at most in one transaction search (a server that repeats its page token stops earlier). */
const MAX_SEARCH_PAGES = 20;

/** What identifies the approval being waited for. */
interface Approval {
  taskId: string;
  stepId: string;
  comment: string;
  expand: string[];
  /** --expand as given (for the resume command). */
  rawExpand?: string;
  /** "#numericId displayName" when the server's answer named the task. */
  label?: string;
}

/** The transaction waited for: its ID when known, else what the search filters on. */
export interface Target {
  taskId: string;
  stepId: string;
  /** The caller's user ID, when known. */
  userId: string;
  txId: string;
  /** Transactions created before this (our clock minus the skew allowance) are not ours. */
  since: number;
}

export async function run({ args: [taskIdArg], opts }: ApproveStepUpInput, ctx: CommandContext): Promise<number> {
  const taskArg = taskIdArg.trim();
  if (!taskArg) throw new UsageError('a task ID is required');
  if (opts.step !== undefined && !opts.step.trim()) throw new UsageError('--step must not be empty');
  const txId = opts.transactionId?.trim();
  if (opts.transactionId !== undefined && !txId)
    throw new UsageError(
      '--transaction-id must not be empty',
      'use the transaction ID agctl printed, or leave the flag out to start a new step-up',
    );
  const comment = opts.comment ?? '';
  if (comment.length > COMMENT_MAX_LENGTH) throw new UsageError(`--comment is longer than ${COMMENT_MAX_LENGTH} characters`);
  if (!opts.wait && ctx.flags.embedded) {
    throw new UsageError(
      '--no-wait cannot be used with --embedded: the embedded server, and its step-up page, stop when agctl exits',
      'run `agctl serve` in another terminal and point agctl at it (--base-url or AGCTL_BASE_URL), or leave out --no-wait',
    );
  }
  const expand = expandPaths(opts.expand);
  const waitMs = (opts.waitTimeout ?? DEFAULT_WAIT_SECONDS) * 1000;
  const api = await ctx.api();
  const taskId = await resolveTaskArg(ctx, api, taskArg);
  const a: Approval = { taskId, stepId: opts.step?.trim() ?? '', comment, expand, rawExpand: opts.expand };

  if (txId) return resume(ctx, api, a, txId, opts.wait, waitMs);

  if (!a.stepId) a.stepId = await currentStep(ctx, api, taskId);
  // Allow for the server's clock being behind ours when finding the transaction it is about to issue.
  const since = ctx.clock.now() - CLOCK_SKEW_MS;
  const res = await approve(api, a, '');
  if (!res.redirectUrl) {
    await printApproved(ctx, res, a);
    return 0;
  }
  const url = checkUrl(res.redirectUrl);
  const t = normalizeTaskView(res.taskView).task;
  if (t.numericId || t.displayName) a.label = escapeControls(`#${t.numericId} ${t.displayName}`);
  const userId = await whoAmI(ctx, api);
  const issued = await findTransaction(ctx, api, { taskId, stepId: a.stepId, userId, txId: '', since });
  const target: Target = { taskId, stepId: a.stepId, userId: userId || issued?.userId || '', txId: issued?.id ?? '', since };
  if (issued) ctx.debug(`the server issued step-up transaction ${escapeControls(issued.id)} (${escapeControls(String(issued.state))})`);
  else
    ctx.out.warn('the service did not list the step-up transaction it started; agctl will look for a verified one for this task and step');
  if (opts.open && !(await ctx.browser.open(url))) {
    ctx.out.warn(
      `could not open a browser${ctx.env.BROWSER ? ` with BROWSER=${escapeControls(ctx.env.BROWSER)}` : ''}; open the step-up URL yourself`,
    );
  }
  if (!opts.wait) return pending(ctx, a, target, { url, urlShown: false }, 'not waiting (--no-wait)');
  ctx.out.info('Step-up authentication required. Confirm it at:');
  ctx.out.info(`  ${url}`);
  if (target.txId) ctx.out.info(`Step-up transaction: ${escapeControls(target.txId)}`);
  return waitAndApprove(ctx, api, a, target, url, waitMs);
}

async function currentStep(ctx: CommandContext, api: ApiClient, taskId: string): Promise<string> {
  const { taskView } = await getTask(api, taskId);
  const current = normalizeTaskView(taskView).task.policy.current;
  if (!current?.id) throw new CliError(`task ${taskId} has no current step: it is closed`, Exit.Invalid);
  ctx.debug(`current step of task ${taskId}: ${current.id} (${stepKind(current) || 'unknown kind'})`);
  return current.id;
}

/** The caller's user ID from the service's introspect route; '' when the server does not offer it. */
async function whoAmI(ctx: CommandContext, api: ApiClient): Promise<string> {
  try {
    return await callerUserId(api);
  } catch (err) {
    if (!(err instanceof ApiError) && !(err instanceof CliError)) throw err;
    ctx.debug(`caller's user ID unknown: ${err.message}`);
    return '';
  }
}

/** --transaction-id: read the transaction, then approve (verified), wait (pending) or stop. */
async function resume(ctx: CommandContext, api: ApiClient, a: Approval, txId: string, wait: boolean, waitMs: number): Promise<number> {
  const tx = await withNotFoundHint(
    getStepUpTransaction(api, txId),
    'use the transaction ID agctl printed, or leave out --transaction-id to start a new step-up',
    `step-up transaction ${txId} not found`,
  );
  const bound = tx.approveTask;
  if (!bound?.taskId || bound.taskId !== a.taskId) {
    throw new UsageError(
      `step-up transaction ${txId} is ${bound?.taskId ? `for task ${escapeControls(bound.taskId)}, not ${a.taskId}` : 'not for the approval of a task'}`,
      'leave out --transaction-id to start a new step-up for this task',
    );
  }
  const me = await whoAmI(ctx, api);
  if (me && tx.userId && tx.userId !== me) {
    throw new UsageError(
      `step-up transaction ${txId} belongs to user ${escapeControls(tx.userId)}, not to ${escapeControls(me)}`,
      'leave out --transaction-id to start a new step-up of your own',
    );
  }
  if (a.stepId && bound?.policyStepId && bound.policyStepId !== a.stepId) {
    throw new UsageError(
      `step-up transaction ${txId} is for step ${escapeControls(bound.policyStepId)}, not ${a.stepId}`,
      "leave out --step to use the transaction's step",
    );
  }
  a.stepId ||= bound?.policyStepId || (await currentStep(ctx, api, a.taskId));
  const target: Target = { taskId: a.taskId, stepId: a.stepId, userId: tx.userId, txId, since: 0 };
  if (verified(ctx, tx)) return approveWith(ctx, api, a, txId);
  // The transaction does not carry its URL: agctl shows the one it kept when the step-up started.
  const url = recalledUrl(ctx, txId);
  if (!wait) return pending(ctx, a, target, { url, urlShown: false }, 'not waiting (--no-wait)');
  if (url) {
    ctx.out.info(`Resuming step-up transaction ${txId}: waiting for it to be verified. Confirm it at:`);
    ctx.out.info(`  ${url}`);
  } else {
    ctx.out.info(
      `Resuming step-up transaction ${txId}: waiting for it to be verified at the URL shown when it started (agctl did not keep it)`,
    );
  }
  return waitAndApprove(ctx, api, a, target, url, waitMs);
}

/**
 * True for a verified transaction, false for a pending one; throws for one
 * that failed, expired, or is in a state agctl does not know.
 */
export function verified(ctx: Pick<CommandContext, 'clock'>, tx: StepUpTransaction): boolean {
  const again = 'run the command again without --transaction-id to start a new step-up';
  switch (tx.state) {
    case STEP_UP_STATES.verified:
      return true;
    case STEP_UP_STATES.pending: {
      const expires = tx.expiresAt ? Date.parse(tx.expiresAt) : NaN;
      if (expires + CLOCK_SKEW_MS < ctx.clock.now()) {
        throw new CliError(
          `step-up transaction ${tx.id} expired at ${escapeControls(tx.expiresAt!)} before it was verified`,
          Exit.Invalid,
          { hint: again },
        );
      }
      return false;
    }
    case STEP_UP_STATES.error:
      throw new CliError(
        `step-up transaction ${tx.id} failed: ${escapeControls(tx.errorMessage) || 'the service gives no reason'}`,
        Exit.Invalid,
        { hint: again },
      );
    default:
      throw new CliError(`step-up transaction ${tx.id} is in a state agctl does not know: ${escapeControls(tx.state)}`, Exit.Invalid, {
        hint: again,
      });
  }
}

/**
 * The newest transaction for the target's task and step (and user, when
 * known) created since `target.since`, optionally in one state; undefined
 * when there is none.
 */
export async function findTransaction(
  ctx: Pick<CommandContext, 'debug'>,
  api: ApiClient,
  target: Target,
  state?: string,
): Promise<StepUpTransaction | undefined> {
  const found = await listAll(
    (page) =>
      searchStepUpTransactions(api, {
        taskId: target.taskId,
        ...(state ? { state } : {}),
        ...(target.userId ? { userId: target.userId } : {}),
        targetType: 'TARGET_TYPE_TICKET',
        createdAfter: new Date(target.since).toISOString(),
        pageSize: page.pageSize,
        ...(page.pageToken ? { pageToken: page.pageToken } : {}),
      }),
    {
      what: 'step-up transactions',
      pageSize: 50,
      maxPages: MAX_SEARCH_PAGES,
      // A looping search ends the search: what was found so far is judged as usual.
      onLoop: 'stop',
      onStop: (why) => ctx.debug(`transaction search: ${why}; stopping there`),
      // Filters the server may not have applied are applied here too.
      keep: (tx) =>
        tx.approveTask?.taskId === target.taskId &&
        tx.approveTask.policyStepId === target.stepId &&
        (!target.userId || tx.userId === target.userId) &&
        (!state || tx.state === state),
    },
  );
  // With the caller's user unknown, transactions of several users for this step cannot be told apart: take none.
  const users = new Set(found.map((tx) => tx.userId ?? ''));
  if (!target.userId && users.size > 1) {
    ctx.debug(`step-up transactions of ${users.size} users match this task and step, and the caller's user is unknown: using none`);
    return undefined;
  }
  let best: StepUpTransaction | undefined;
  for (const tx of found) if (!best || (Date.parse(tx.createdAt ?? '') || 0) > (Date.parse(best.createdAt ?? '') || 0)) best = tx;
  return best;
}

/** Waits for the target transaction to be verified, then approves with it. */
async function waitAndApprove(
  ctx: CommandContext,
  api: ApiClient,
  a: Approval,
  target: Target,
  url: string,
  waitMs: number,
): Promise<number> {
  const poll = async (): Promise<StepUpTransaction | undefined> => {
    if (!target.txId) return findTransaction(ctx, api, target, STEP_UP_STATES.verified);
    const tx = await getStepUpTransaction(api, target.txId);
    return verified(ctx, tx) ? tx : undefined;
  };
  const outcome = await waitFor(ctx, poll, waitMs);
  if (outcome === 'timeout')
    return pending(ctx, a, target, { url, urlShown: true }, `step-up not completed within ${formatDuration(waitMs)}`);
  if (outcome === 'interrupted') return cancelled(ctx, a, target, url);
  return approveWith(ctx, api, a, outcome.value.id);
}

async function approveWith(ctx: CommandContext, api: ApiClient, a: Approval, txId: string): Promise<number> {
  const res = await approve(api, a, txId);
  if (res.redirectUrl) throw new CliError(`the server answered with another step-up URL for verified transaction ${txId}`, Exit.Server);
  await printApproved(ctx, res, a);
  return 0;
}

/** One approve call; a FailedPrecondition gets a hint on what to do next. */
async function approve(api: ApiClient, a: Approval, txId: string): Promise<ApproveWithStepUpResponse> {
  const req: ApproveWithStepUpRequest = {
    policyStepId: a.stepId,
    stepUpTransactionId: txId,
    comment: a.comment,
    expandMask: { paths: a.expand },
  };
  try {
    return await approveWithStepUp(api, a.taskId, req);
  } catch (err) {
    if (err instanceof ApiError && err.code === Code.FailedPrecondition) {
      const hint = txId
        ? 'if the transaction expired or was used, run the command again without --transaction-id to start a new step-up'
        : 'read the task again: the step may have moved on, or the task may be closed';
      throw new CliError(`${err.message} (HTTP ${err.status}, FailedPrecondition)`, exitCodeForStatus(err.status), {
        hint,
        status: err.status,
        code: err.code,
      });
    }
    throw err;
  }
}

export type WaitOutcome<T> = { value: T } | 'timeout' | 'interrupted';

/**
 * Polls until `poll` gives a value, the wait times out, or Ctrl-C. The polls
 * only read, so Ctrl-C stops at once: it clears the spinner, and a request in
 * flight is abandoned. Ctrl-C ends the process as usual again once the wait
 * is over.
 */
export async function waitFor<T>(ctx: CommandContext, poll: () => Promise<T | undefined>, waitMs: number): Promise<WaitOutcome<T>> {
  const deadline = ctx.clock.now() + waitMs;
  const stop = new AbortController();
  const interrupted = new Promise<'interrupted'>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve('interrupted'), { once: true }),
  );
  // Subscribed before the spinner (or the "Waiting" line) shows: from then on Ctrl-C is handled here.
  const unsubscribe = ctx.io.onInterrupt(() => {
    spinner.stop();
    stop.abort();
  });
  const spinner = startSpinner(
    ctx,
    () => waitingText(deadline - ctx.clock.now()),
    `Waiting up to ${formatDuration(waitMs)} for the step-up to be confirmed...`,
  );
  try {
    let delay = FIRST_POLL_MS;
    for (;;) {
      const left = deadline - ctx.clock.now();
      if (left <= 0) return 'timeout';
      await ctx.clock.sleep(Math.min(delay, left), stop.signal);
      if (stop.signal.aborted) return 'interrupted';
      delay = Math.min(delay + 500, MAX_POLL_MS);
      const sent = poll();
      const res = await Promise.race([sent, interrupted]);
      if (res === 'interrupted') {
        sent.catch(() => {});
        await ctx.http.destroy().catch(() => {});
        return 'interrupted';
      }
      if (res !== undefined) return { value: res };
    }
  } finally {
    unsubscribe();
    spinner.stop();
  }
}

/**
 * What the spinner says while waiting, `leftMs` before the deadline, most
 * complete first: the Ctrl-C hint is dropped first, then words around the
 * time left (the spinner cuts the last one to the terminal's width).
 */
export function waitingText(leftMs: number): string[] {
  const left = formatDuration(Math.max(0, leftMs));
  return [
    `Waiting for the step-up to be confirmed (${left} left, Ctrl-C to stop)`,
    `Waiting for the step-up to be confirmed (${left} left)`,
    `Waiting for the step-up (${left} left)`,
  ];
}

export function formatDuration(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const m = Math.floor(total / 60);
  const s = total % 60;
  return m ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}

/** Only http(s) URLs are shown or opened; anything else from a server is refused. */
function checkUrl(raw: string): string {
  if (raw.length > MAX_STEP_UP_URL_CHARS) {
    throw new CliError(
      `the server answered with a step-up URL of ${raw.length} characters; agctl takes at most ${MAX_STEP_UP_URL_CHARS}`,
      Exit.Server,
    );
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new CliError('the server answered with a step-up URL that is not a valid URL', Exit.Server);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw new CliError(`the server answered with a step-up URL using ${u.protocol}; only http(s) is accepted`, Exit.Server);
  return u.toString();
}

export function resumeCommand(
  ctx: Pick<CommandContext, 'flags'>,
  a: { taskId: string; stepId: string; txId: string; comment: string; expand?: string },
): { line: string } | { why: string } {
  const args = ['task', 'approve-step-up', a.taskId, '--step', a.stepId, '--transaction-id', a.txId];
  if (a.comment) args.push('--comment', a.comment);
  if (a.expand !== undefined) args.push('--expand', a.expand);
  return nextCommand(ctx.flags, args);
}

/**
 * The command that resumes this approval, or why there is none that would
 * work: the transaction's ID is unknown, the server (--embedded) stops with
 * this process, or a value in it would not paste as it shows.
 */
function resumeFor(ctx: CommandContext, a: Approval, target: Target): { line: string } | { why: string } {
  if (ctx.flags.embedded)
    return {
      why: 'the embedded server stopped with agctl, and its step-up page with it; use `agctl serve` for approvals that outlive one command',
    };
  if (!target.txId)
    return { why: 'the service did not list the transaction, so agctl cannot resume it; run the command again to start a new step-up' };
  const resume = resumeCommand(ctx, { taskId: a.taskId, stepId: a.stepId, txId: target.txId, comment: a.comment, expand: a.rawExpand });
  return 'line' in resume
    ? resume
    : {
        why: `the resume command is not shown as one to paste: ${resume.why}; resume with --transaction-id and the values of the -o json output`,
      };
}

/** Keeps the step-up URL of a transaction left pending, for its resume command to show again. */
function keepUrl(ctx: CommandContext, txId: string, url: string): void {
  if (url && !rememberStepUpUrl(ctx.env, ctx.clock.now(), txId, url)) ctx.debug('could not keep the step-up URL for the resume command');
}

/** The URL kept for a transaction ('' when none, or not an http(s) URL). */
function recalledUrl(ctx: CommandContext, txId: string): string {
  const url = recalledStepUpUrl(ctx.env, ctx.clock.now(), txId);
  try {
    return url ? checkUrl(url) : '';
  } catch {
    return '';
  }
}

/**
 * Exit 10: the step-up is not verified yet. The URL and the resume command
 * are printed once: the URL here only when it was not shown already.
 */
function pending(ctx: CommandContext, a: Approval, target: Target, u: { url: string; urlShown: boolean }, why: string): number {
  const resume = resumeFor(ctx, a, target);
  const line = 'line' in resume ? resume.line : '';
  if (line) keepUrl(ctx, target.txId, u.url);
  if (ctx.out.json) {
    ctx.out.printJson({
      status: 'pending',
      taskId: a.taskId,
      policyStepId: a.stepId,
      stepUpTransactionId: target.txId,
      redirectUrl: u.url,
      resumeCommand: line,
    });
  } else {
    const rows: [string, string][] = [
      ['Task', a.label ?? a.taskId],
      ['Step', a.stepId],
      ['Transaction', target.txId || '(unknown)'],
    ];
    if (u.url && !u.urlShown) rows.push(['Confirm at', u.url]);
    if (line) rows.push(['Resume with', line]);
    ctx.out.fields(rows);
  }
  const next = 'line' in resume ? 'once it is confirmed, run the resume command' : resume.why;
  ctx.out.warn(`step-up authentication pending: ${why}; ${next} (exit code 10)`);
  return Exit.Pending;
}

/**
 * Ctrl-C during the wait: one line with the resume command, or with -o json
 * the pending object as "cancelled" (which holds the command) and a line
 * pointing at it; exit 130.
 */
function cancelled(ctx: CommandContext, a: Approval, target: Target, url: string): number {
  const resume = resumeFor(ctx, a, target);
  const line = 'line' in resume ? resume.line : '';
  if (line) keepUrl(ctx, target.txId, url);
  if (ctx.out.json) {
    ctx.out.printJson({
      status: 'cancelled',
      taskId: a.taskId,
      policyStepId: a.stepId,
      stepUpTransactionId: target.txId,
      redirectUrl: url,
      resumeCommand: line,
    });
  }
  const next = 'why' in resume ? resume.why : ctx.out.json ? 'to resume, run the resumeCommand of the output' : `to resume: ${line}`;
  ctx.out.warn(`cancelled (Ctrl-C) while waiting for the step-up; ${next}`);
  return EXIT_INTERRUPTED;
}

async function printApproved(ctx: CommandContext, res: ApproveWithStepUpResponse, a: Approval): Promise<void> {
  const { stepId } = a;
  if (ctx.out.json) {
    ctx.out.printJson(res);
    return;
  }
  await ctx.out.styles();
  const view: TaskView = normalizeTaskView(res.taskView);
  const expanded: ExpandedObject[] = Array.isArray(res.expanded) ? res.expanded : [];
  const resolve = resolver(ctx, view, expanded);
  const approvers = [...resolve('approversPath'), ...resolve('stepApproversPath')];
  const userById = (id: string) => approvers.find((o) => o.id === id);
  const t = view.task;
  const approved = t.policy.history.find((h) => h.id === stepId);
  const outcome = approved?.approval?.approved;
  const approvedText = outcome
    ? `approval ${stepId} by ${named(userById(outcome.userId), text(outcome.userId))} at ${text(outcome.approvedAt)}` +
      (outcome.stepUpTransactionId ? ` (step-up ${text(outcome.stepUpTransactionId)})` : '')
    : `${stepId}`;
  ctx.out.success(`Approved step ${stepId} of task #${text(t.numericId)}`);
  ctx.out.fields([
    ['Task', `#${text(t.numericId)} ${text(t.displayName)}`],
    ['ID', text(t.id) || a.taskId],
    ['App', named(resolve('appPath')[0])],
    ['Requester', person(resolve('createdByUserPath')[0], text(t.createdByUserId))],
    ['Approved step', approvedText],
    ['Next step', describeStep(t.policy.current, resolve('stepApproversPath'), t.policy.next.length)],
    ['Approve action', text(res.ticketActionId)],
  ]);
}
