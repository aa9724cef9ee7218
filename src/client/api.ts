// The API client: one call per request, bearer token attached, error bodies
// turned into ApiError, a 401 answered by dropping the token and retrying once.
import { ApiError, CliError, Exit, codeForHttpStatus } from '../api/errors.js';
import type { HttpClient, HttpResponse } from './http.js';
import type { TokenProvider } from './auth.js';

export interface CallOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotent?: boolean;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly http: HttpClient,
    readonly tokens: TokenProvider,
  ) {}

  url(path: string, query?: CallOptions['query']): string {
    const u = new URL(this.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    return u.toString();
  }

  async call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    const url = this.url(path, opts.query);
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    let token = await this.tokens.token();
    for (let attempt = 0; ; attempt++) {
      const res = await this.http.send({
        method,
        url,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body,
        idempotent: opts.idempotent,
      });
      if (res.status === 401 && attempt === 0 && this.tokens.invalidate(token)) {
        token = await this.tokens.token();
        continue;
      }
      if (res.status >= 200 && res.status < 300) return (res.json<T>() ?? ({} as T)) as T;
      throw errorFromResponse(res);
    }
  }
}

/** Builds an ApiError from an error response (`{code, message, details}` or an OAuth error). */
export function errorFromResponse(res: HttpResponse): ApiError | CliError {
  if (res.status >= 300 && res.status < 400) {
    const where = res.headers.location ? ` to ${String(res.headers.location)}` : '';
    return new CliError(`the server redirected${where} (HTTP ${res.status}); agctl does not follow redirects`, Exit.Server, { hint: 'check --base-url', status: res.status });
  }
  const body = res.json<Record<string, unknown>>();
  if (body && typeof body.message === 'string') {
    const code = typeof body.code === 'number' ? body.code : codeForHttpStatus(res.status);
    return new ApiError(res.status, code, body.message, Array.isArray(body.details) ? body.details : []);
  }
  if (body && typeof body.error === 'string') {
    return new ApiError(res.status, body.error, typeof body.error_description === 'string' ? body.error_description : body.error);
  }
  return new ApiError(res.status, codeForHttpStatus(res.status), `the server answered HTTP ${res.status}`);
}
