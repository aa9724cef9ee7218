// The embedded server's webhook listener routes (under /_embedded/v1/: not part
// of the service API, which sets listeners up in its web app).
import { type ApiClient } from './api.js';
import { isJsonObject, jsonKind } from '../lib/json.js';
import { checkPage, listAll, type PageRequest } from './paginate.js';
import { pathSegment } from './paths.js';

const LISTENERS_PATH = '/_embedded/v1/webhook_listeners';

export interface WebhookListener {
  id: string;
  /** The full URL to send events to. */
  url: string;
  authMethod: 'HMAC' | 'JWT';
  jwksUrl?: string;
  allowedCidrs?: string[];
  automation: { id: string; name?: string; published: boolean; triggerEnabled: boolean };
  runCount?: number;
  createdAt?: string;
  /** Only in the answer that created an HMAC listener whose secret the server generated. */
  secret?: string;
}

export interface CreateListenerRequest {
  authMethod: 'HMAC' | 'JWT';
  name?: string;
  jwksUrl?: string;
  allowedCidrs?: string[];
  secret?: string;
}

export interface WebhookRun {
  id: string;
  number: number;
  listenerId: string;
  automationId: string;
  eventId: string;
  context: { trigger: unknown };
  createdAt: string;
}

function listenerProblem(l: unknown): string | undefined {
  if (!isJsonObject(l)) return `is ${jsonKind(l)}, expected a listener`;
  for (const k of ['id', 'url', 'authMethod']) if (typeof l[k] !== 'string' || l[k] === '') return `has no "${k}"`;
  if (!isJsonObject(l.automation)) return 'has no "automation"';
  return undefined;
}

function checkRuns(b: Record<string, unknown>): string | undefined {
  if (!Array.isArray(b.runs)) return `"runs" is ${jsonKind(b.runs)}, expected an array`;
  if (typeof b.total !== 'number') return `"total" is ${jsonKind(b.total)}, expected a number`;
  return undefined;
}

/** Every listener, in creation order. */
export function listListeners(api: ApiClient, opts: { limit?: number } = {}): Promise<WebhookListener[]> {
  const page = (req: PageRequest) =>
    api.call<{ list?: WebhookListener[]; nextPageToken?: string }>('GET', LISTENERS_PATH, {
      query: { page_size: req.pageSize, page_token: req.pageToken },
      check: checkPage(listenerProblem, 'an array of listeners'),
    });
  return listAll(page, { limit: opts.limit, what: 'webhook listeners' });
}

/** Creates a listener and its automation. */
export async function createListener(api: ApiClient, req: CreateListenerRequest): Promise<WebhookListener> {
  const res = await api.call<{ listener: WebhookListener }>('POST', LISTENERS_PATH, {
    body: req,
    check: (b) => (isJsonObject(b.listener) ? listenerProblem(b.listener) : '"listener" is missing'),
  });
  return res.listener;
}

/** A listener's runs, newest first, and how many it has in all (or with `eventId`, for that event). */
export function listRuns(api: ApiClient, listenerId: string, opts: { limit?: number; eventId?: string } = {}): Promise<{ runs: WebhookRun[]; total: number }> {
  return api.call('GET', `${LISTENERS_PATH}/${pathSegment(listenerId, 'listener ID')}/runs`, {
    query: { limit: opts.limit, event_id: opts.eventId },
    check: checkRuns,
  });
}
