// An answer as src/client/http.ts gives it, made from a status and a body (a
// string as it is, anything else as JSON): for tests of what agctl makes of
// an answer without a server.
import type { HttpResponse } from '../../src/client/http.js';

export function httpResponse(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  const buf = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return {
    status,
    headers,
    body: buf,
    text: () => buf.toString(),
    json: () => {
      try {
        return JSON.parse(buf.toString());
      } catch {
        return undefined;
      }
    },
  } as HttpResponse;
}
