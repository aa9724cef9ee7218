// How the listener commands show a listener: never with a secret.
import type { WebhookListener } from '../../../../api/webhook-listeners.js';

/** The listener as printed by -o json: the API object without any secret. */
export function listenerShown(l: WebhookListener): Omit<WebhookListener, 'secret'> {
  const { secret: _secret, ...shown } = l;
  return shown;
}

/** Where a listener takes events from: its allowed ranges, or anywhere. */
export const listenerAllowedFrom = (l: WebhookListener): string => (l.allowedCidrs?.length ? l.allowedCidrs.join(', ') : 'anywhere');
