// The caller's identity (c1.api.auth.v1.Auth.Introspect, which cone's `whoami`
// reads), on its own: `auth status` asks it and loads nothing of the task
// shapes (nor the schema library they need).
import type { IntrospectResponse } from '../api/tasks.js';
import type { ApiClient } from './api.js';

/** GET /api/v1/auth/introspect: the caller's user ID ('' when the server does not say). */
export async function callerUserId(api: ApiClient): Promise<string> {
  const res = await api.call<Partial<IntrospectResponse>>('GET', '/api/v1/auth/introspect');
  return typeof res.userId === 'string' ? res.userId : '';
}
