// Step-up transaction endpoints (service routes, service-notes.md §2:
// c1.api.stepup.v1.StepUpTransactionService) and the caller's identity
// (c1.api.auth.v1.Auth.Introspect, which cone's `whoami` reads).
import {
  normalizeStepUpTransaction,
  type IntrospectResponse,
  type SearchStepUpTransactionsRequest,
  type StepUpTransaction,
} from '../api/tasks.js';
import { type ApiClient } from './api.js';
import { isJsonObject, jsonKind } from '../lib/json.js';
import { checkPage } from './paginate.js';
import { pathSegment } from './paths.js';

function transactionProblem(t: unknown): string | undefined {
  if (!isJsonObject(t)) return `is ${jsonKind(t)}, expected a step-up transaction`;
  if (typeof t.id !== 'string' || !t.id) return 'has no "id"';
  for (const k of ['state', 'userId', 'errorMessage', 'expiresAt', 'createdAt']) {
    if (t[k] !== undefined && t[k] !== null && typeof t[k] !== 'string') return `has "${k}" as ${jsonKind(t[k])}, expected a string`;
  }
  if (t.approveTask !== undefined && t.approveTask !== null && !isJsonObject(t.approveTask)) return `has "approveTask" as ${jsonKind(t.approveTask)}, expected an object`;
  return undefined;
}

/** GET /api/v1/step-up/transactions/{id} → the transaction. */
export async function getStepUpTransaction(api: ApiClient, id: string): Promise<StepUpTransaction> {
  const res = await api.call<{ transaction: unknown }>('GET', `/api/v1/step-up/transactions/${pathSegment(id, 'transaction ID')}`, {
    check: (b) => {
      const p = transactionProblem(b.transaction);
      return p && `"transaction" ${p}`;
    },
  });
  return normalizeStepUpTransaction(res.transaction);
}

/** POST /api/v1/search/step-up/transactions: one page. */
export async function searchStepUpTransactions(api: ApiClient, req: SearchStepUpTransactionsRequest): Promise<{ list: StepUpTransaction[]; nextPageToken: string }> {
  const res = await api.call<{ list?: unknown[] | null; nextPageToken?: string | null }>('POST', '/api/v1/search/step-up/transactions', {
    body: req,
    idempotent: true,
    check: checkPage(transactionProblem),
  });
  return { list: (res.list ?? []).map(normalizeStepUpTransaction), nextPageToken: res.nextPageToken ?? '' };
}

/** GET /api/v1/auth/introspect: the caller's user ID ('' when the server does not say). */
export async function callerUserId(api: ApiClient): Promise<string> {
  const res = await api.call<Partial<IntrospectResponse>>('GET', '/api/v1/auth/introspect');
  return typeof res.userId === 'string' ? res.userId : '';
}
