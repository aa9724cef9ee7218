// The embedded step-up page: where approve-with-step-up redirects. It stands
// in for an identity provider's step-up prompt: a GET shows the task and step
// being approved with a confirm button; the confirmation is a POST to the
// same URL, which marks the transaction verified. The URL carries the
// transaction ID (issued by the server) and a random per-transaction token;
// without the right token the page answers 404.
import { timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { stepKind } from '../../api/tasks.js';
import type { RequestContext, Router } from '../router.js';
import type { Store } from '../store/db.js';
import { loadTx, type TxRow } from './step-up-transactions.js';
import { POLICY, TASK } from './task-state.js';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`=/]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendHtml(res: ServerResponse, status: number, title: string, body: string): void {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{color:#59636e}dd{margin:0}
code{font-size:.9em}button{font:inherit;padding:.5rem 1.2rem;border-radius:6px;border:1px solid #1a7f37;background:#1f883d;color:#fff;cursor:pointer}
.note{color:#59636e;font-size:.9rem}
</style>
</head>
<body>
${body}
</body>
</html>
`;
  const buf = Buffer.from(html, 'utf8');
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', buf.length);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  res.end(buf);
}

interface PageData {
  tx: TxRow;
  taskName: string;
  numericId: string;
  stepLabel: string;
  userName: string;
}

/** Finds the transaction named by the URL when the token matches; undefined otherwise. */
function findTransaction(store: Store, id: string, token: string | null): TxRow | undefined {
  const tx = loadTx(store, id);
  if (!tx || !token) return undefined;
  let expected: string;
  try {
    expected = store.open(tx.token_sealed, 'step_up_transactions', tx.id, 'token');
  } catch {
    return undefined;
  }
  const a = Buffer.from(expected);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b) ? tx : undefined;
}

function pageData(store: Store, tx: TxRow): PageData {
  const task = store.db.prepare('SELECT numeric_id, task, policy FROM tasks WHERE id = ?').get(tx.task_id) as
    | { numeric_id: number; task: string; policy: string }
    | undefined;
  const user = store.db.prepare('SELECT display_name FROM users WHERE id = ?').get(tx.user_id) as { display_name: string } | undefined;
  let taskName = tx.task_id;
  let stepLabel = `step ${tx.step_id}`;
  if (task) {
    const t = TASK.value(task.task);
    if (t.displayName) taskName = t.displayName;
    const policy = POLICY.value(task.policy);
    const step = [policy.current, ...policy.history].find((s) => s?.id === tx.step_id);
    if (step) stepLabel = `${stepKind(step) || 'policy'} step ${tx.step_id}`;
  }
  return { tx, taskName, numericId: task ? String(task.numeric_id) : '', stepLabel, userName: user?.display_name ?? tx.user_id };
}

function details(d: PageData): string {
  return `<dl>
<dt>Task</dt><dd>${d.numericId ? `#${escapeHtml(d.numericId)} ` : ''}${escapeHtml(d.taskName)} <code>${escapeHtml(d.tx.task_id)}</code></dd>
<dt>Step</dt><dd>${escapeHtml(d.stepLabel)}</dd>
<dt>Approver</dt><dd>${escapeHtml(d.userName)} <code>${escapeHtml(d.tx.user_id)}</code></dd>
<dt>Expires</dt><dd>${escapeHtml(new Date(d.tx.expires_at).toISOString())}</dd>
</dl>`;
}

const notFoundPage = (res: ServerResponse) =>
  sendHtml(
    res,
    404,
    'Step-up request not found',
    '<h1>Step-up request not found</h1><p>This link is not valid. Start the approval again from your terminal.</p>',
  );

/**
 * Sends the page for a transaction that can no longer be confirmed (used or
 * expired) and returns true; returns false when it still can be. Shared by
 * the page and its form post.
 */
function closedPage(res: ServerResponse, tx: TxRow, d: PageData, now: number): boolean {
  if (tx.state === 'used') {
    sendHtml(
      res,
      410,
      'Step-up already used',
      `<h1>This step-up was already used</h1>${details(d)}<p>The approval it was for went through.</p>`,
    );
    return true;
  }
  if (now >= tx.expires_at) {
    sendHtml(
      res,
      410,
      'Step-up expired',
      `<h1>This step-up request expired</h1>${details(d)}<p>Start the approval again from your terminal.</p>`,
    );
    return true;
  }
  return false;
}

function showPage(ctx: RequestContext): undefined {
  const id = ctx.params.transaction_id!;
  const token = ctx.query.get('token');
  const tx = findTransaction(ctx.store, id, token);
  if (!tx) return void notFoundPage(ctx.res);
  const d = pageData(ctx.store, tx);
  if (closedPage(ctx.res, tx, d, ctx.clock.now())) return;
  if (tx.state === 'verified') {
    return void sendHtml(
      ctx.res,
      200,
      'Step-up confirmed',
      `<h1>Step-up confirmed</h1>${details(d)}<p>You can return to your terminal.</p>`,
    );
  }
  const action = `/step-up/${encodeURIComponent(tx.id)}?token=${encodeURIComponent(token!)}`;
  return void sendHtml(
    ctx.res,
    200,
    'Confirm approval',
    `<h1>Confirm it is you</h1>
<p>An approval needs step-up authentication.</p>
${details(d)}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="confirm" value="yes">
<button type="submit">Confirm and continue</button>
</form>
<p class="note">After you confirm, the waiting command completes the approval.</p>`,
  );
}

async function confirmPage(ctx: RequestContext): Promise<undefined> {
  await ctx.raw(); // the form's content is not needed; read it so the connection stays usable
  const id = ctx.params.transaction_id!;
  const tx = findTransaction(ctx.store, id, ctx.query.get('token'));
  if (!tx) return void notFoundPage(ctx.res);
  const now = ctx.clock.now();
  const d = pageData(ctx.store, tx);
  if (closedPage(ctx.res, tx, d, now)) return;
  ctx.store.db
    .prepare(`UPDATE step_up_transactions SET state = 'verified', verified_at = ? WHERE id = ? AND state = 'pending'`)
    .run(now, tx.id);
  return void sendHtml(ctx.res, 200, 'Step-up confirmed', `<h1>Step-up confirmed</h1>${details(d)}<p>You can return to your terminal.</p>`);
}

export function registerStepUpPage(router: Router): void {
  router.get('/step-up/:transaction_id', showPage, { auth: false });
  router.post('/step-up/:transaction_id', confirmPage, { auth: false, maxBody: 4096 });
}
