// Step-up transactions as the service has them (service-notes.md §2): the
// server issues each one (an opaque ID) on an approve call without a
// transaction ID, bound to one task, step and user, with a 10-minute
// lifetime and a random page token; its step-up page verifies it; one
// approve call uses it up. Clients read them through
// `GET /api/v1/step-up/transactions/{id}` and
// `POST /api/v1/search/step-up/transactions`.
//
// Stored states are pending, verified and used. The service's states are
// PENDING, VERIFIED and ERROR: a used transaction stays VERIFIED (it was
// verified), a pending one past its expiry reads as ERROR with a message.
import { randomBytes } from 'node:crypto';
import { failedPrecondition, notFound } from '../../api/errors.js';
import {
  STEP_UP_STATES,
  STEP_UP_TRANSACTION_TTL_MS,
  validateStepUpSearch,
  type GetStepUpTransactionResponse,
  type SearchStepUpTransactionsResponse,
  type StepUpTransaction,
} from '../../api/tasks.js';
import { ksuid } from '../../lib/ids.js';
import { decodePageToken, pageOf } from '../paging.js';
import type { RequestContext, Router } from '../router.js';
import type { Store } from '../store/db.js';

export interface TxRow {
  id: string;
  task_id: string;
  step_id: string;
  user_id: string;
  provider_id: string;
  token_sealed: string;
  state: 'pending' | 'verified' | 'used';
  created_at: number;
  expires_at: number;
  verified_at: number | null;
  used_at: number | null;
}

export function migrateStepUpTransactions(store: Store): void {
  store.db.exec(`
    CREATE TABLE IF NOT EXISTS step_up_transactions (
      id TEXT PRIMARY KEY,
      task_id TEXT NOT NULL REFERENCES tasks(id),
      step_id TEXT NOT NULL,
      user_id TEXT NOT NULL,
      provider_id TEXT NOT NULL,
      token_sealed TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('pending', 'verified', 'used')),
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      verified_at INTEGER,
      used_at INTEGER
    );
    CREATE INDEX IF NOT EXISTS step_up_transactions_created ON step_up_transactions (created_at, id);
  `);
}

function stepUpPageUrl(baseUrl: string, transactionId: string, token: string): string {
  return `${baseUrl}/step-up/${encodeURIComponent(transactionId)}?token=${encodeURIComponent(token)}`;
}

export function loadTx(store: Store, id: string): TxRow | undefined {
  return store.db.prepare('SELECT * FROM step_up_transactions WHERE id = ?').get(id) as TxRow | undefined;
}

/** The service's state of a stored transaction at `now`. */
const API_STATE_SQL = `CASE WHEN state <> 'pending' THEN '${STEP_UP_STATES.verified}' WHEN expires_at <= @now THEN '${STEP_UP_STATES.error}' ELSE '${STEP_UP_STATES.pending}' END`;

export function toTransaction(row: TxRow, now: number): StepUpTransaction {
  const expired = row.state === 'pending' && now >= row.expires_at;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: row.id,
    state: row.state !== 'pending' ? STEP_UP_STATES.verified : expired ? STEP_UP_STATES.error : STEP_UP_STATES.pending,
    approveTask: { taskId: row.task_id, policyStepId: row.step_id },
    providerId: row.provider_id,
    userId: row.user_id,
    claims: null,
    errorMessage: expired ? `the step-up transaction expired at ${iso(row.expires_at)} before it was verified` : '',
    createdAt: iso(row.created_at),
    updatedAt: iso(Math.max(row.created_at, row.verified_at ?? 0, row.used_at ?? 0, expired ? row.expires_at : 0)),
    expiresAt: iso(row.expires_at),
  };
}

/** Issues a pending transaction for (task, step, user); returns its ID and the step-up page URL. */
export function issueTransaction(
  store: Store,
  baseUrl: string,
  t: { taskId: string; stepId: string; userId: string; providerId: string; now: number },
): { id: string; redirectUrl: string } {
  const id = ksuid(t.now);
  const token = randomBytes(32).toString('base64url');
  store.db
    .prepare(
      `INSERT INTO step_up_transactions (id, task_id, step_id, user_id, provider_id, token_sealed, state, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    )
    .run(
      id,
      t.taskId,
      t.stepId,
      t.userId,
      t.providerId,
      store.seal(token, 'step_up_transactions', id, 'token'),
      t.now,
      t.now + STEP_UP_TRANSACTION_TTL_MS,
    );
  return { id, redirectUrl: stepUpPageUrl(baseUrl, id, token) };
}

const AGAIN = 'approve again without a transaction ID to get a new one';

/** Refuses a transaction that was already used (checked first: the step it approved has moved on); returns the row. */
export function refuseUsed(store: Store, id: string): TxRow | undefined {
  const tx = loadTx(store, id);
  if (tx?.state === 'used') throw failedPrecondition(`step-up transaction ${id} was already used; ${AGAIN}`);
  return tx;
}

/**
 * Uses up a verified transaction for (task, step, user), inside the caller's
 * database transaction. Every other case is FailedPrecondition: never issued
 * here, bound to another task/step/user, not verified yet, expired, used.
 */
export function useTransaction(store: Store, id: string, t: { taskId: string; stepId: string; userId: string; now: number }): void {
  const tx = refuseUsed(store, id);
  if (!tx) throw failedPrecondition(`step-up transaction ${id} was not issued by this server; ${AGAIN}`);
  if (tx.task_id !== t.taskId || tx.step_id !== t.stepId || tx.user_id !== t.userId) {
    throw failedPrecondition(`step-up transaction ${id} is bound to another task, step or user; ${AGAIN}`);
  }
  if (t.now >= tx.expires_at) throw failedPrecondition(`step-up transaction ${id} expired; ${AGAIN}`);
  if (tx.state !== 'verified')
    throw failedPrecondition(`step-up transaction ${id} is not verified yet: complete the step-up at its URL first`);
  store.db.prepare(`UPDATE step_up_transactions SET state = 'used', used_at = ? WHERE id = ? AND state = 'verified'`).run(t.now, id);
}

function getTransaction(ctx: RequestContext): { body: GetStepUpTransactionResponse } {
  const row = loadTx(ctx.store, ctx.params.id!);
  if (!row) throw notFound(`step-up transaction ${ctx.params.id} not found`);
  return { body: { transaction: toTransaction(row, ctx.clock.now()) } };
}

/** A page token's key: the (created_at, id) of the last transaction of the page, newest first. */
const isTxKey = (v: unknown): v is [number, string] =>
  Array.isArray(v) && v.length === 2 && Number.isInteger(v[0]) && typeof v[1] === 'string';

async function searchTransactions(ctx: RequestContext): Promise<{ body: SearchStepUpTransactionsResponse }> {
  const q = validateStepUpSearch(await ctx.json());
  const now = ctx.clock.now();
  const where: string[] = [];
  const params: Record<string, unknown> = { now, limit: q.pageSize + 1 };
  // Every transaction here approves a task step: a search for test transactions finds none.
  if (q.targetType === 'TARGET_TYPE_TEST') where.push('0');
  if (q.taskId) where.push('task_id = @taskId'), (params.taskId = q.taskId);
  if (q.userId) where.push('user_id = @userId'), (params.userId = q.userId);
  if (q.providerId) where.push('provider_id = @providerId'), (params.providerId = q.providerId);
  if (q.state !== STEP_UP_STATES.unspecified) where.push(`${API_STATE_SQL} = @state`), (params.state = q.state);
  if (q.createdAfter !== null) where.push('created_at >= @after'), (params.after = q.createdAfter);
  if (q.createdBefore !== null) where.push('created_at < @before'), (params.before = q.createdBefore);
  if (q.pageToken) {
    const [at, id] = decodePageToken(q.pageToken, isTxKey, 'pageToken');
    where.push('(created_at < @tokenAt OR (created_at = @tokenAt AND id < @tokenId))');
    Object.assign(params, { tokenAt: at, tokenId: id });
  }
  const rows = ctx.store.db
    .prepare(
      `SELECT * FROM step_up_transactions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT @limit`,
    )
    .all(params) as TxRow[];
  const { page, nextPageToken } = pageOf(rows, q.pageSize, (r) => [r.created_at, r.id]);
  return { body: { list: page.map((r) => toTransaction(r, now)), nextPageToken } };
}

export function registerStepUpTransactionRoutes(router: Router): void {
  router.get('/api/v1/step-up/transactions/:id', getTransaction);
  router.post('/api/v1/search/step-up/transactions', searchTransactions, { maxBody: 16 * 1024 });
}
