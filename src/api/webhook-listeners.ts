// The embedded server's webhook listeners and their runs (under
// /_embedded/v1/: not part of the service API, which sets listeners up in its
// web app), declared once as tables (src/api/shape.ts): the types, the
// client's checks of the answers, and the server's views and request parsing
// come from them.
import { shape, type Infer, type ListPage } from './shape.js';

/** Where a listener receives events: this path, then its ID. */
export const INCOMING_PATH = '/api/v1/webhooks/incoming/';

export const LISTENERS_PATH = '/_embedded/v1/webhook_listeners';

export const AUTH_METHODS = ['HMAC', 'JWT'] as const;

export const LISTENER = shape({
  id: { kind: 'string', required: true },
  /** The full URL to send events to. */
  url: { kind: 'string', required: true },
  authMethod: { kind: 'string', values: AUTH_METHODS, required: true },
  /** Only in the answer that created an HMAC listener whose secret the server generated. */
  secret: { kind: 'string', optional: true },
  jwksUrl: { kind: 'string', optional: true },
  allowedCidrs: { kind: 'strings', optional: true },
  automation: {
    kind: 'object',
    required: true,
    of: { id: 'string', name: { kind: 'string', optional: true }, published: 'boolean', triggerEnabled: 'boolean' },
  },
  runCount: { kind: 'number', optional: true },
  createdAt: { kind: 'string', optional: true },
});
export type WebhookListener = Infer<typeof LISTENER>;

/** GET /_embedded/v1/webhook_listeners: a page of listeners, in creation order. */
export type ListListenersResponse = ListPage<WebhookListener>;

/** POST /_embedded/v1/webhook_listeners: the listener created. */
export interface CreateListenerResponse {
  listener: WebhookListener;
}

/** POST /_embedded/v1/webhook_listeners: members left out or null take their defaults. */
export const CREATE_LISTENER_REQUEST = shape({
  authMethod: { kind: 'string', values: AUTH_METHODS, required: true, error: 'authMethod must be "HMAC" or "JWT"' },
  name: { kind: 'string', optional: true, error: 'name must be a non-empty string' },
  /** An HMAC secret chosen by the caller; generated when absent. */
  secret: { kind: 'string', optional: true, error: 'secret must be 32 to 512 printable ASCII characters without spaces' },
  jwksUrl: { kind: 'string', optional: true, error: 'jwksUrl must be a string' },
  allowedCidrs: { kind: 'strings', optional: true, error: 'allowedCidrs must be an array of CIDR strings' },
  automation: {
    kind: 'object',
    optional: true,
    error: 'automation must be an object {published, triggerEnabled}',
    of: { published: { kind: 'boolean', optional: true }, triggerEnabled: { kind: 'boolean', optional: true } },
  },
});
export type CreateListenerRequest = Infer<typeof CREATE_LISTENER_REQUEST>;

export const RUN = shape({
  id: 'string',
  /** 1, 2, 3, ... in the listener's order. */
  number: 'number',
  listenerId: 'string',
  automationId: 'string',
  /** The event's `webhook-event-id`. */
  eventId: 'string',
  /** The event's body as received (its text when it is not JSON). */
  context: { kind: 'object', of: { trigger: 'unknown' } },
  createdAt: 'string',
});

/** GET /_embedded/v1/webhook_listeners/{id}/runs: newest first, and how many in all. */
export const LIST_RUNS_RESPONSE = shape({
  runs: { kind: 'array', of: RUN, required: true },
  total: { kind: 'number', required: true },
});
export type ListRunsResponse = Infer<typeof LIST_RUNS_RESPONSE>;
