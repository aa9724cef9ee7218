// Following the pages of a list route (`{list, nextPageToken}`), for every
// list command. It works whatever the server does with the page size (honours
// it, ignores it, answers everything in one page: service-notes.md §4), keeps
// each ID once, stops at `limit`, and stops with an error when the server's
// paging loops, before the looping page is kept: the caller prints only what
// this returns, so nothing is listed twice and nothing is listed at all then.
import { CliError, Exit } from '../lib/exit.js';

export interface Page<T> {
  list?: T[] | null;
  nextPageToken?: string | null;
}

/** What one request asks for; undefined members are not sent. */
export interface PageRequest {
  pageToken?: string;
  pageSize?: number;
}

interface ListAllOptions {
  /** Stop after this many items. */
  limit?: number;
  /** Items to ask for per request (capped at what `limit` still needs); undefined asks for none, the server decides. */
  pageSize?: number;
  /** What is listed, in the plural, for messages ("rules"). */
  what: string;
}

/** The `code` of the error for a server whose paging loops (`-o json` error output). */
export const PAGING_LOOP = 'paging_loop';

/** Fetches pages until the last (no `nextPageToken`) or `limit` items; returns the items in the server's order, each ID once. */
export async function listAll<T extends { id: string }>(fetchPage: (req: PageRequest) => Promise<Page<T>>, opts: ListAllOptions): Promise<T[]> {
  const limit = opts.limit ?? Infinity;
  const items = new Map<string, T>();
  const followed = new Set<string>();
  let pageToken: string | undefined;
  for (let n = 1; ; n++) {
    const pageSize = opts.pageSize === undefined ? undefined : Math.min(opts.pageSize, limit - items.size);
    const page = await fetchPage({ pageToken, pageSize });
    const list = page.list ?? [];
    const next = page.nextPageToken || undefined;
    if (next !== undefined && followed.has(next)) throw pagingLoop(opts.what, n, `names page token "${cut(next)}" again`);
    // A server that ignores the token but invents a new one each time would send the same items forever.
    if (next !== undefined && list.length > 0 && list.every((item) => items.has(item.id))) throw pagingLoop(opts.what, n, `holds only ${opts.what} already listed`);
    for (const item of list) if (!items.has(item.id)) items.set(item.id, item);
    if (next === undefined || items.size >= limit) break;
    followed.add(next);
    pageToken = next;
  }
  return [...items.values()].slice(0, opts.limit);
}

/** The error for a server whose paging loops (`why`: what page `page` did wrong), nothing printed. */
export function pagingLoop(what: string, page: number, why: string, hint = 'try again, or ask for fewer with --limit'): CliError {
  return new CliError(`the server's paging loops: page ${page} of ${what} ${why}`, Exit.Server, {
    code: PAGING_LOOP,
    hint: `nothing was listed, rather than ${what} twice or without end; ${hint}`,
  });
}

const cut = (token: string) => (token.length <= 40 ? token : `${token.slice(0, 39)}…`);
