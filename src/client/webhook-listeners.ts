// The embedded server's webhook listener routes (under /_embedded/v1/: not part
// of the service API, which sets listeners up in its web app). The shapes are
// declared in src/api/webhook-listeners.ts.
import { isJsonObject } from '../lib/json.js';
import {
  LISTENER,
  LISTENERS_PATH,
  LIST_RUNS_RESPONSE,
  type CreateListenerRequest,
  type CreateListenerResponse,
  type ListListenersResponse,
  type ListRunsResponse,
  type WebhookListener,
} from '../api/webhook-listeners.js';
import { answerProblem, itemProblem } from '../api/shape.js';
import type { ApiClient } from './api.js';
import { checkPage, listAll, type PageRequest } from './paginate.js';
import { checkAnswerId } from './answer-id.js';
import { pathSegment } from './paths.js';

const listenerProblem = (l: unknown) => itemProblem(LISTENER, l, 'a listener');

/** Every listener, in creation order. */
export function listListeners(api: ApiClient, opts: { limit?: number } = {}): Promise<WebhookListener[]> {
  const page = (req: PageRequest) =>
    api.call<ListListenersResponse>('GET', LISTENERS_PATH, {
      query: { page_size: req.pageSize, page_token: req.pageToken },
      check: checkPage(listenerProblem, 'an array of listeners'),
    });
  return listAll(page, { limit: opts.limit, what: 'webhook listeners' });
}

/** Creates a listener and its automation. */
export async function createListener(api: ApiClient, req: CreateListenerRequest): Promise<WebhookListener> {
  const res = await api.call<CreateListenerResponse>('POST', LISTENERS_PATH, {
    body: req,
    check: (b) => (isJsonObject(b.listener) ? listenerProblem(b.listener) : '"listener" is missing'),
  });
  return res.listener;
}

/** A listener's runs, newest first, and how many it has in all (or with `eventId`, for that event); each checked to be of that listener. */
export async function listRuns(
  api: ApiClient,
  listenerId: string,
  opts: { limit?: number; eventId?: string } = {},
): Promise<ListRunsResponse> {
  const res = await api.call<ListRunsResponse>('GET', `${LISTENERS_PATH}/${pathSegment(listenerId, 'listener ID')}/runs`, {
    query: { limit: opts.limit, event_id: opts.eventId },
    check: (b) => answerProblem(LIST_RUNS_RESPONSE, b),
  });
  // Every run must be of the listener asked for (its `listenerId`, when it names one).
  for (const run of res.runs) checkAnswerId('listener', listenerId, run.listenerId, { missingOk: true });
  return res;
}
