// Paging of the embedded server's list routes: the page size a request asks
// for, and page tokens. A token names the sort key of the last item of its
// page, so the next page starts after that item even when items were added or
// removed in between.
import { invalidArgument } from '../api/errors.js';

/** Page tokens are opaque to clients: base64url JSON of the last item's sort key. */
const encodePageToken = (key: unknown): string => Buffer.from(JSON.stringify(key)).toString('base64url');

/** The sort key a token names; InvalidArgument naming `member` when it is not one this server issued. */
export function decodePageToken<T>(token: string, valid: (v: unknown) => v is T, member: string): T {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (valid(v)) return v;
  } catch {
    // fall through
  }
  throw invalidArgument(`${member} is not a valid page token`);
}

/** `page_size` of a GET list: absent or 0 is `dflt`, more than `max` is `max`. */
export function parsePageSize(raw: string | null, dflt: number, max: number): number {
  if (raw === null || raw === '') return dflt;
  if (!/^\d+$/.test(raw)) throw invalidArgument('page_size must be a non-negative integer');
  const n = Number(raw);
  return n === 0 ? dflt : Math.min(n, max);
}

/** One page of `rows` fetched with one extra row: the page and the token of the next (from its last row), '' at the end. */
export function pageOf<R>(rows: R[], size: number, keyOf: (row: R) => unknown): { page: R[]; nextPageToken: string } {
  const page = rows.slice(0, size);
  return { page, nextPageToken: rows.length > size ? encodePageToken(keyOf(page.at(-1)!)) : '' };
}
