// Step-up transaction endpoints (service routes, service-notes.md §2:
// c1.api.stepup.v1.StepUpTransactionService). The caller's identity: introspect.ts.
import {
  normalizeStepUpTransaction,
  stepUpTransactionProblem,
  type GetStepUpTransactionResponse,
  type SearchStepUpTransactionsRequest,
  type SearchStepUpTransactionsResponse,
  type StepUpTransaction,
} from '../api/tasks.js';
import type { ApiClient } from './api.js';
import { checkPage } from './paginate.js';
import { checkAnswerId } from './answer-id.js';
import { pathSegment } from './paths.js';

/** GET /api/v1/step-up/transactions/{id} → the transaction, given its full shape, checked to be the one asked for. */
export async function getStepUpTransaction(api: ApiClient, id: string): Promise<StepUpTransaction> {
  const res = await api.call<GetStepUpTransactionResponse>('GET', `/api/v1/step-up/transactions/${pathSegment(id, 'transaction ID')}`, {
    check: (b) => {
      const p = stepUpTransactionProblem(b.transaction);
      return p && `"transaction" ${p}`;
    },
  });
  const tx = normalizeStepUpTransaction(res.transaction);
  checkAnswerId('step-up transaction', id, tx.id);
  return tx;
}

/** POST /api/v1/search/step-up/transactions: one page, its transactions given their full shape. */
export async function searchStepUpTransactions(
  api: ApiClient,
  req: SearchStepUpTransactionsRequest,
): Promise<SearchStepUpTransactionsResponse> {
  // Members of a received page may be left out or null (checked by checkPage).
  const res = await api.call<Partial<SearchStepUpTransactionsResponse>>('POST', '/api/v1/search/step-up/transactions', {
    body: req,
    idempotent: true,
    check: checkPage(stepUpTransactionProblem),
  });
  return { list: (res.list ?? []).map(normalizeStepUpTransaction), nextPageToken: res.nextPageToken ?? '' };
}
