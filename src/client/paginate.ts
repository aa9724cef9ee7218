// Following the pages of a list route (`{list, nextPageToken}`), for every
// list command: GET lists (the token a query parameter) and POST searches (the
// token a member of the body) alike, as `fetchPage` puts the request's
// `pageToken` and `pageSize` where its route wants them. It works whatever the
// server does with the page size (honours it, ignores it, answers everything
// in one page: service-notes.md §4), keeps each ID once, stops at `limit`, and
// stops with an error when the server's paging loops, before the looping page
// is kept: the caller prints only what this returns, so nothing is listed
// twice and nothing is listed at all then (`onLoop: 'stop'` keeps what was
// found instead, for a caller that looks for something rather than lists).
// A listing is bounded whatever the server sends: MAX_PAGES pages and
// MAX_ITEMS items at most (pagingCapped, shared with `agctl api --paginate`).
import { CliError, Exit } from '../lib/exit.js';
import { jsonKind } from '../lib/json.js';

export interface Page<T> {
  list?: T[] | null;
  nextPageToken?: string | null;
}

/** What one request asks for; undefined members are not sent. */
export interface PageRequest {
  pageToken?: string;
  pageSize?: number;
}

export interface ListAllOptions<T> {
  /** Stop after this many items. */
  limit?: number;
  /** Items to ask for per request (capped at what `limit` still needs); undefined asks for none, the server decides. */
  pageSize?: number;
  /** What is listed, in the plural, for messages ("rules"). */
  what: string;
  /** Keeps only the items this accepts (a filter the server does not offer); `limit` counts kept items. */
  keep?: (item: T) => boolean;
  /** A looping server: 'error' (default) throws; 'stop' ends quietly with what was kept so far, after `onStop`. */
  onLoop?: 'error' | 'stop';
  /** Pages read at most; then it ends quietly, after `onStop`. */
  maxPages?: number;
  /** Told why the paging ended early ('stop' on a loop, or `maxPages`). */
  onStop?: (why: string) => void;
  /** How an item is told from the others; default its `id` (MCP servers have a `connectorId` instead). */
  idOf?: (item: T) => string;
}

/** The `code` of the error for a server whose paging loops (`-o json` error output). */
export const PAGING_LOOP = 'paging_loop';
/** The `code` of the error for a listing that reaches MAX_PAGES or MAX_ITEMS with more pages announced. */
export const PAGING_LIMIT = 'paging_limit';

/**
 * Pages one listing reads at most. At the service's page sizes (10 to 100
 * tasks, up to 250 rules a page) that is 10,000 to 250,000 items, more than a
 * terminal listing is for; it stops a server that names a next page forever
 * (with new items or none) within seconds instead of never.
 */
export const MAX_PAGES = 1000;
/** Items (as received, before any filter) one listing reads at most: a server sending huge pages of new items stops here. */
export const MAX_ITEMS = 1_000_000;

/**
 * The `check` of a page answer (`api.call`): what is wrong with `list` (each
 * item by `itemProblem`, "is ... expected ..." or "has ...") or
 * `nextPageToken`, if anything. Empty members may be left out (proto3 JSON).
 */
export function checkPage(itemProblem: (item: unknown) => string | undefined, listOf = 'an array') {
  return (b: Record<string, unknown>): string | undefined => {
    if (b.list !== undefined && b.list !== null) {
      if (!Array.isArray(b.list)) return `"list" is ${jsonKind(b.list)}, expected ${listOf}`;
      for (const [i, item] of b.list.entries()) {
        const problem = itemProblem(item);
        if (problem) return `"list[${i}]" ${problem}`;
      }
    }
    if (b.nextPageToken !== undefined && b.nextPageToken !== null && typeof b.nextPageToken !== 'string')
      return `"nextPageToken" is ${jsonKind(b.nextPageToken)}, expected a string`;
    return undefined;
  };
}

/** Fetches pages until the last (no `nextPageToken`) or `limit` items; returns the items in the server's order, each ID once. */
export async function listAll<T extends object>(fetchPage: (req: PageRequest) => Promise<Page<T>>, opts: ListAllOptions<T>): Promise<T[]> {
  const limit = opts.limit ?? Infinity;
  const idOf = opts.idOf ?? ((item: T) => (item as { id?: string }).id ?? '');
  const keep = opts.keep ?? (() => true);
  const items = new Map<string, T>();
  /** Every ID seen, kept or not (a page of only those is a loop). */
  const seen = new Set<string>();
  const followed = new Set<string>();
  let pageToken: string | undefined;
  /** Items received on the pages read (repeats and those `keep` refused included). */
  let received = 0;
  for (let n = 1; ; n++) {
    // With a filter of its own, a full page is asked for: how many items it keeps is not known beforehand.
    const pageSize = opts.pageSize === undefined ? undefined : opts.keep ? opts.pageSize : Math.min(opts.pageSize, limit - items.size);
    const page = await fetchPage({ pageToken, pageSize });
    const list = page.list ?? [];
    const next = page.nextPageToken || undefined;
    let loop: string | undefined;
    if (next !== undefined && followed.has(next)) loop = `names page token "${cut(next)}" again`;
    // A server that ignores the token but invents a new one each time would send the same items forever.
    else if (next !== undefined && list.length > 0 && list.every((item) => seen.has(idOf(item))))
      loop = `holds only ${opts.what} already listed`;
    if (loop !== undefined && opts.onLoop !== 'stop') throw pagingLoop(opts.what, n, loop);
    for (const item of list) {
      const id = idOf(item);
      seen.add(id);
      if (!items.has(id) && keep(item)) items.set(id, item);
    }
    if (loop !== undefined) {
      opts.onStop?.(`the server's paging loops: page ${n} of ${opts.what} ${loop}`);
      break;
    }
    if (next === undefined || items.size >= limit) break;
    if (opts.maxPages !== undefined && n >= opts.maxPages) {
      opts.onStop?.(`stopped after ${n} pages of ${opts.what}`);
      break;
    }
    received += list.length;
    const capped = pagingCapped(opts.what, n, received);
    if (capped) throw capped;
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

/**
 * The error for a listing that has read `pages` pages and `items` items and
 * is told of one more page, when that reaches MAX_PAGES or MAX_ITEMS; nothing
 * is printed then (as for a loop).
 */
export function pagingCapped(what: string, pages: number, items: number, hint = 'ask for fewer with --limit'): CliError | undefined {
  if (pages < MAX_PAGES && items < MAX_ITEMS) return undefined;
  return new CliError(
    `the server's paging does not end: ${pages} pages of ${what} (${items} items) read, and it names another page`,
    Exit.Server,
    {
      code: PAGING_LIMIT,
      hint: `nothing was listed: agctl reads at most ${MAX_PAGES} pages or ${MAX_ITEMS} items of one listing; ${hint}`,
    },
  );
}

const cut = (token: string) => (token.length <= 40 ? token : `${token.slice(0, 39)}…`);
