// agctl task approve-step-up: approve a task's policy step with step-up
// authentication. Reads the current step when --step is absent, starts a new
// transaction (a fresh UUID v4) unless --transaction-id resumes one, and
// repeats the approval with the same transaction while the server answers
// with a step-up URL, until the step-up is confirmed or the wait times out.
import { randomUUID } from 'node:crypto';
import { ApiError, CliError, Code, EXIT_INTERRUPTED, Exit, UsageError, exitCodeForStatus } from '../../../api/errors.js';
import {
  COMMENT_MAX_LENGTH,
  normalizeTaskView,
  parseExpandPaths,
  resolveExpandedPath,
  stepKind,
  type ApproveWithStepUpRequest,
  type ApproveWithStepUpResponse,
  type ExpandedObject,
  type PolicyStepInstance,
  type TaskPathField,
  type TaskView,
} from '../../../api/tasks.js';
import { isUuidV4 } from '../../../lib/ids.js';
import { CONTROL_CHARS } from '../../../lib/controls.js';
import { approveWithStepUp, getTask } from '../../../client/tasks.js';
import type { CommandContext } from '../../context.js';
import { CLEAR_LINE, fitLine, lineWidth, redraw } from '../../live-line.js';
import { shellQuote } from '../../output.js';

export { shellQuote };

export interface ApproveStepUpOptions {
  taskId: string;
  step?: string;
  transactionId?: string;
  comment?: string;
  expand?: string;
  open: boolean;
  wait: boolean;
  waitTimeoutSeconds?: number;
}

/** Side effects the tests may replace. */
export interface Deps {
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  openUrl(url: string, env: NodeJS.ProcessEnv): Promise<boolean>;
  newTransactionId(): string;
}

/** Related objects requested when --expand is absent: what the success output shows. */
export const DEFAULT_EXPAND = ['app', 'createdByUser', 'approvers', 'stepApprovers'];
export const DEFAULT_WAIT_SECONDS = 300;
const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 3000;
/** After Ctrl-C, how long an approve call already sent may still answer (its answer may be the approval). */
export const INTERRUPT_GRACE_MS = 2000;

export const defaultDeps: Deps = {
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
  openUrl,
  newTransactionId: randomUUID,
};

export async function run(opts: ApproveStepUpOptions, ctx: CommandContext, deps: Deps = defaultDeps): Promise<number> {
  const taskId = opts.taskId.trim();
  if (!taskId) throw new UsageError('a task ID is required');
  if (opts.step !== undefined && !opts.step.trim()) throw new UsageError('--step must not be empty');
  if (opts.transactionId !== undefined && !isUuidV4(opts.transactionId.trim())) {
    throw new UsageError('--transaction-id must be a UUID v4', 'use the transaction ID agctl printed, or leave the flag out to start a new transaction');
  }
  const comment = opts.comment ?? '';
  if (comment.length > COMMENT_MAX_LENGTH) throw new UsageError(`--comment is longer than ${COMMENT_MAX_LENGTH} characters`);
  const expand = expandPaths(opts.expand);
  const waitMs = (opts.waitTimeoutSeconds ?? DEFAULT_WAIT_SECONDS) * 1000;

  const api = await ctx.api();
  let stepId = opts.step?.trim();
  if (!stepId) {
    const { taskView } = await getTask(api, taskId);
    const current = normalizeTaskView(taskView).task.policy.current;
    if (!current?.id) throw new CliError(`task ${taskId} has no current step: it is closed`, Exit.Invalid);
    stepId = current.id;
    ctx.debug(`current step of task ${taskId}: ${stepId} (${stepKind(current) || 'unknown kind'})`);
  }

  const resumed = opts.transactionId !== undefined;
  const txId = opts.transactionId?.trim() || deps.newTransactionId();
  ctx.debug(`${resumed ? 'resuming' : 'new'} step-up transaction ${txId}`);
  const req: ApproveWithStepUpRequest = { policyStepId: stepId, stepUpTransactionId: txId, comment, expandMask: { paths: expand } };
  const resume = resumeCommand(ctx, { taskId, stepId, txId, comment, expand: opts.expand });
  const call = () => approve(api, taskId, req, resumed);

  let res = await call();
  if (res.redirectUrl) {
    ctx.out.info(resumed ? `Resuming step-up transaction ${txId}` : `Started step-up transaction ${txId}`);
    const url = checkUrl(res.redirectUrl);
    if (opts.open && !(await deps.openUrl(url, ctx.env))) ctx.out.warn('could not open a browser; open the step-up URL yourself');
    if (!opts.wait) return pending(ctx, res, { taskId, stepId, txId, url, resume }, 'not waiting (--no-wait)');
    ctx.out.info(`Step-up authentication required. Confirm it at:\n  ${url}`);
    ctx.out.info(`To resume later: ${resume}`);
    const outcome = await waitForApproval(ctx, deps, call, waitMs);
    if (outcome === 'timeout') return pending(ctx, res, { taskId, stepId, txId, url, resume }, `step-up not completed within ${formatDuration(waitMs)}`);
    if (outcome === 'interrupted') return cancelled(ctx, { taskId, stepId, txId, url, resume });
    res = outcome.approved;
  }
  await printApproved(ctx, res, stepId);
  return 0;
}

function expandPaths(raw: string | undefined): string[] {
  if (raw === undefined) return DEFAULT_EXPAND;
  const paths = raw.split(',').map((p) => p.trim()).filter(Boolean);
  try {
    parseExpandPaths(paths);
  } catch (err) {
    if (err instanceof ApiError) throw new UsageError(`--expand: ${err.message}`);
    throw err;
  }
  return paths;
}

/** One approve call; a FailedPrecondition about a supplied transaction gets a hint to start over. */
async function approve(api: Awaited<ReturnType<CommandContext['api']>>, taskId: string, req: ApproveWithStepUpRequest, resumed: boolean): Promise<ApproveWithStepUpResponse> {
  try {
    return await approveWithStepUp(api, taskId, req);
  } catch (err) {
    if (err instanceof ApiError && err.code === Code.FailedPrecondition) {
      const hint = resumed
        ? 'if the transaction expired or was used, run the command again without --transaction-id to start a new one'
        : 'read the task again: the step may have moved on, or the task may be closed';
      throw new CliError(`${err.message} (HTTP ${err.status}, FailedPrecondition)`, exitCodeForStatus(err.status), { hint, status: err.status, code: err.code });
    }
    throw err;
  }
}

export type WaitOutcome = { approved: ApproveWithStepUpResponse } | 'timeout' | 'interrupted';

/**
 * Repeats the call until the approval goes through, the wait times out, or
 * Ctrl-C. Ctrl-C clears the spinner at once and stops the polling; a call
 * already sent gets INTERRUPT_GRACE_MS to answer (a second Ctrl-C cuts that
 * short), since its answer may be the approval, and is aborted after that.
 * Ctrl-C ends the process as usual again once the wait is over.
 */
export async function waitForApproval(
  ctx: CommandContext,
  deps: Deps,
  call: () => Promise<ApproveWithStepUpResponse>,
  waitMs: number,
): Promise<WaitOutcome> {
  const deadline = ctx.clock.now() + waitMs;
  const stop = new AbortController();
  const hurry = new AbortController();
  const interrupted = new Promise<'interrupted'>((resolve) => stop.signal.addEventListener('abort', () => resolve('interrupted'), { once: true }));
  // Subscribed before the spinner (or the "Waiting" line) shows: from then on Ctrl-C is handled here.
  const unsubscribe = ctx.io.onInterrupt(() => {
    if (stop.signal.aborted) return hurry.abort();
    spinner.stop();
    stop.abort();
  });
  const spinner = startSpinner(ctx, deadline);
  try {
    let delay = FIRST_POLL_MS;
    for (;;) {
      const left = deadline - ctx.clock.now();
      if (left <= 0) return 'timeout';
      await deps.sleep(Math.min(delay, left), stop.signal);
      if (stop.signal.aborted) return 'interrupted';
      delay = Math.min(delay + 500, MAX_POLL_MS);
      const sent = call();
      const res = await Promise.race([sent, interrupted]);
      if (res !== 'interrupted') {
        if (!res.redirectUrl) return { approved: res };
        if (stop.signal.aborted) return 'interrupted';
        continue;
      }
      const late = await settledWithin(sent, INTERRUPT_GRACE_MS, hurry.signal);
      if (late === 'pending') await ctx.http.destroy().catch(() => {});
      return late !== 'pending' && late !== 'failed' && !late.redirectUrl ? { approved: late } : 'interrupted';
    }
  } finally {
    unsubscribe();
    spinner.stop();
  }
}

/** The promise's value if it settles within `ms` (and before `signal` aborts); 'failed' if it rejects, 'pending' otherwise. */
async function settledWithin<T>(p: Promise<T>, ms: number, signal: AbortSignal): Promise<T | 'failed' | 'pending'> {
  const settled = p.catch(() => 'failed' as const);
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<'pending'>((resolve) => {
    if (signal.aborted) return resolve('pending');
    timer = setTimeout(() => resolve('pending'), ms);
    signal.addEventListener('abort', () => resolve('pending'), { once: true });
  });
  try {
    return await Promise.race([settled, giveUp]);
  } finally {
    clearTimeout(timer);
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * The spinner's text after its frame and a space, fitted to `max` columns:
 * the Ctrl-C hint is dropped first, then words around the time left, then the
 * text is cut with "…".
 */
export function spinnerText(leftMs: number, max: number): string {
  const left = formatDuration(Math.max(0, leftMs));
  return fitLine(
    [
      `Waiting for the step-up to be confirmed (${left} left, Ctrl-C to stop)`,
      `Waiting for the step-up to be confirmed (${left} left)`,
      `Waiting for the step-up (${left} left)`,
    ],
    max,
  );
}

/** A spinner redrawn in place on a terminal stderr (one line, fitted to its current width); one plain line elsewhere. */
export function startSpinner(ctx: Pick<CommandContext, 'io' | 'out' | 'clock' | 'onClose'>, deadline: number): { stop(): void } {
  if (!ctx.io.isStderrTTY) {
    ctx.out.info(`Waiting up to ${formatDuration(deadline - ctx.clock.now())} for the step-up to be confirmed...`);
    return { stop() {} };
  }
  const stderr = ctx.io.stderr;
  let i = 0;
  const draw = () => {
    const max = lineWidth(stderr);
    const frame = FRAMES[i++ % FRAMES.length]!;
    // The frame and its space take two columns; on a terminal narrower than that, only what fits.
    const line = max >= 3 ? `${ctx.out.s.cyan(frame)} ${spinnerText(deadline - ctx.clock.now(), max - 2)}` : max >= 1 ? ctx.out.s.cyan(frame) : '';
    stderr.write(redraw(line));
  };
  draw();
  const timer = setInterval(draw, 100);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    stderr.write(CLEAR_LINE);
  };
  ctx.onClose(stop);
  return { stop };
}

export function formatDuration(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const m = Math.floor(total / 60);
  const s = total % 60;
  return m ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}

/** Only http(s) URLs are shown or opened; anything else from a server is refused. */
function checkUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new CliError('the server answered with a step-up URL that is not a valid URL', Exit.Server);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new CliError(`the server answered with a step-up URL using ${u.protocol}; only http(s) is accepted`, Exit.Server);
  return u.toString();
}

export function resumeCommand(
  ctx: Pick<CommandContext, 'flags'>,
  a: { taskId: string; stepId: string; txId: string; comment: string; expand?: string },
): string {
  const parts = ['agctl'];
  const f = ctx.flags;
  if (f.profile) parts.push('--profile', f.profile);
  if (f.baseUrl) parts.push('--base-url', f.baseUrl);
  if (f.clientId) parts.push('--client-id', f.clientId);
  if (f.embedded) parts.push('--embedded');
  parts.push('task', 'approve-step-up', a.taskId, '--step', a.stepId, '--transaction-id', a.txId);
  if (a.comment) parts.push('--comment', a.comment);
  if (a.expand !== undefined) parts.push('--expand', a.expand);
  return parts.map(shellQuote).join(' ');
}

function pending(
  ctx: CommandContext,
  res: ApproveWithStepUpResponse,
  p: { taskId: string; stepId: string; txId: string; url: string; resume: string },
  why: string,
): number {
  if (ctx.out.json) {
    ctx.out.printJson({ status: 'pending', taskId: p.taskId, policyStepId: p.stepId, stepUpTransactionId: p.txId, redirectUrl: p.url, resumeCommand: p.resume });
  } else {
    const t = normalizeTaskView(res.taskView).task;
    ctx.out.fields([
      ['Task', t.numericId || t.displayName ? clean(`#${t.numericId} ${t.displayName}`) : p.taskId],
      ['Step', p.stepId],
      ['Transaction', p.txId],
      ['Confirm at', p.url],
      ['Resume with', p.resume],
    ]);
  }
  ctx.out.warn(`step-up authentication pending: ${why}; confirm it at the URL, then run the resume command (exit code 10)`);
  return Exit.Pending;
}

/** Ctrl-C during the wait: one line with the resume command (and the pending object, as "cancelled", with -o json); exit 130. */
function cancelled(ctx: CommandContext, p: { taskId: string; stepId: string; txId: string; url: string; resume: string }): number {
  if (ctx.out.json) {
    ctx.out.printJson({ status: 'cancelled', taskId: p.taskId, policyStepId: p.stepId, stepUpTransactionId: p.txId, redirectUrl: p.url, resumeCommand: p.resume });
  }
  ctx.out.warn(`cancelled (Ctrl-C) while waiting for the step-up; to resume: ${p.resume}`);
  return EXIT_INTERRUPTED;
}

/** Strips control characters from text a server sent before it reaches the terminal. */
export function clean(s: string): string {
  return s.replace(CONTROL_CHARS, '?');
}

const text = (v: unknown): string => (typeof v === 'string' ? clean(v) : '');

function named(o: ExpandedObject | undefined, fallback = '-'): string {
  if (!o) return fallback;
  const name = text(o.displayName) || text(o.name);
  const id = text(o.id);
  return name && id ? `${name} (${id})` : name || id || fallback;
}

function person(o: ExpandedObject | undefined, fallback: string): string {
  if (!o) return fallback || '-';
  const name = text(o.displayName) || text(o.id);
  const email = text(o.email);
  return email ? `${name} <${email}>` : name;
}

async function printApproved(ctx: CommandContext, res: ApproveWithStepUpResponse, stepId: string): Promise<void> {
  if (ctx.out.json) {
    ctx.out.printJson(res);
    return;
  }
  await ctx.out.styles();
  const view: TaskView = normalizeTaskView(res.taskView);
  const expanded: ExpandedObject[] = Array.isArray(res.expanded) ? res.expanded : [];
  const resolve = (field: TaskPathField): ExpandedObject[] => {
    try {
      return resolveExpandedPath(view[field], expanded);
    } catch (err) {
      ctx.debug(`${field}: ${(err as Error).message}`);
      return [];
    }
  };
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
    ['ID', text(t.id)],
    ['App', named(resolve('appPath')[0])],
    ['Requester', person(resolve('createdByUserPath')[0], text(t.createdByUserId))],
    ['Approved step', approvedText],
    ['Next step', describeStep(t.policy.current, resolve('stepApproversPath'), t.policy.next.length)],
    ['Approve action', text(res.taskActionId)],
  ]);
}

function describeStep(step: PolicyStepInstance | null, approvers: ExpandedObject[], remaining: number): string {
  if (!step) return 'none (the task is closed)';
  const kind = stepKind(step);
  switch (kind) {
    case 'accept':
      return `accept: ${text(step.accept?.acceptMessage) || 'accepted'} (the task is closed)`;
    case 'reject':
      return `reject: ${text(step.reject?.rejectMessage) || 'rejected'} (the task is closed)`;
    case 'approval': {
      const who = approvers.map((u) => text(u.displayName) || text(u.id)).filter(Boolean);
      return `approval ${text(step.id)}${who.length ? ` by ${who.join(', ')}` : ''}`;
    }
    default:
      return `${kind || 'step'} ${text(step.id)}${remaining ? `, then ${remaining} more` : ''}`;
  }
}

/**
 * The environment a browser is started with: this one without the AGCTL_*
 * variables, which may hold secrets (AGCTL_CLIENT_SECRET, AGCTL_ACCESS_TOKEN,
 * AGCTL_CONFIG_KEY, AGCTL_MCP_*, ...) that a long-running browser and
 * everything it starts would otherwise keep.
 */
export function browserEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.toUpperCase().startsWith('AGCTL_')) out[k] = v;
  return out;
}

/** Opens a URL with $BROWSER (a command taking the URL) or the system opener; false when that fails. */
export async function openUrl(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const { spawn } = await import('node:child_process');
  const [cmd, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : platform === 'darwin'
      ? ['open', [url]]
      : platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd, args, { stdio: 'ignore', detached: true, env: browserEnv(env) });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
