// listAll against servers that page in every way service-notes.md §4 allows:
// honouring the page size, ignoring it, answering all in one page, repeating
// items across pages, or looping on a token.
import { describe, expect, it } from 'vitest';
import { CliError, Exit } from '../../../src/lib/exit.js';
import {
  MAX_ITEMS,
  MAX_PAGES,
  PAGING_LIMIT,
  PAGING_LOOP,
  listAll,
  pagingCapped,
  type Page,
  type PageRequest,
} from '../../../src/client/paginate.js';

type Item = { id: string };
const items = (n: number, from = 1): Item[] => Array.from({ length: n }, (_, i) => ({ id: `r${String(from + i).padStart(2, '0')}` }));
const ALL = items(26);
const ids = (xs: Item[]) => xs.map((x) => x.id);

/** A server over ALL with offset tokens; `size(req)` picks the page size it uses. Every request is recorded. */
function pager(size: (req: PageRequest) => number) {
  const seen: PageRequest[] = [];
  const fetch = async (req: PageRequest): Promise<Page<Item>> => {
    seen.push(req);
    const from = Number(req.pageToken ?? 0);
    const to = from + size(req);
    return { list: ALL.slice(from, to), nextPageToken: to < ALL.length ? String(to) : '' };
  };
  return { fetch, seen };
}

async function loopError(p: Promise<unknown>): Promise<CliError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CliError);
  return err as CliError;
}

describe('listAll', () => {
  it('follows the tokens of a server that honours the page size, asking only for what --limit still needs', async () => {
    const s = pager((req) => req.pageSize ?? 50);
    expect(ids(await listAll(s.fetch, { pageSize: 7, what: 'rules' }))).toEqual(ids(ALL));
    expect(s.seen.map((r) => [r.pageToken, r.pageSize])).toEqual([
      [undefined, 7],
      ['7', 7],
      ['14', 7],
      ['21', 7],
    ]);
    s.seen.length = 0;
    expect(ids(await listAll(s.fetch, { pageSize: 4, limit: 10, what: 'rules' }))).toEqual(ids(ALL.slice(0, 10)));
    expect(s.seen.map((r) => r.pageSize)).toEqual([4, 4, 2]);
  });

  it('sends no page size unless one is given', async () => {
    const s = pager(() => 10);
    expect(ids(await listAll(s.fetch, { limit: 15, what: 'rules' }))).toEqual(ids(ALL.slice(0, 15)));
    expect(s.seen).toEqual([
      { pageToken: undefined, pageSize: undefined },
      { pageToken: '10', pageSize: undefined },
    ]);
  });

  it('works with a server that ignores the page size, and stops requesting once --limit is reached', async () => {
    const s = pager(() => 9);
    expect(ids(await listAll(s.fetch, { pageSize: 2, what: 'rules' }))).toEqual(ids(ALL));
    expect(s.seen).toHaveLength(3);
    s.seen.length = 0;
    expect(ids(await listAll(s.fetch, { pageSize: 2, limit: 3, what: 'rules' }))).toEqual(ids(ALL.slice(0, 3)));
    expect(s.seen).toHaveLength(1);
  });

  it('works with a server that answers everything in one page, with or without an empty token', async () => {
    for (const nextPageToken of ['', null, undefined]) {
      let calls = 0;
      const fetch = async (): Promise<Page<Item>> => (calls++, { list: ALL, nextPageToken });
      expect(ids(await listAll(fetch, { pageSize: 5, limit: 20, what: 'rules' }))).toEqual(ids(ALL.slice(0, 20)));
      expect(ids(await listAll(fetch, { what: 'rules' }))).toEqual(ids(ALL));
      expect(calls).toBe(2);
    }
    expect(await listAll(async () => ({}), { what: 'rules' })).toEqual([]);
  });

  it('keeps each ID once, at its first place, across and within pages; --limit counts distinct items', async () => {
    const pages: Record<string, Page<Item>> = {
      start: { list: [...items(3), { id: 'r02' }], nextPageToken: 'b' },
      b: { list: [...items(2, 3), { id: 'r01' }], nextPageToken: 'c' },
      c: { list: items(3, 4), nextPageToken: '' },
    };
    const fetch = async (req: PageRequest) => pages[req.pageToken ?? 'start']!;
    expect(ids(await listAll(fetch, { what: 'rules' }))).toEqual(['r01', 'r02', 'r03', 'r04', 'r05', 'r06']);
    expect(ids(await listAll(fetch, { limit: 5, what: 'rules' }))).toEqual(['r01', 'r02', 'r03', 'r04', 'r05']);
  });

  it('a repeated token is exit 9 before the page that repeats it is kept', async () => {
    // page 1 -> token A, page A -> token B, page B -> token A again
    const pages: Record<string, Page<Item>> = {
      start: { list: items(2), nextPageToken: 'A' },
      A: { list: items(2, 3), nextPageToken: 'B' },
      B: { list: items(2, 5), nextPageToken: 'A' },
    };
    const seen: (string | undefined)[] = [];
    const fetch = async (req: PageRequest) => (seen.push(req.pageToken), pages[req.pageToken ?? 'start']!);
    const err = await loopError(listAll(fetch, { what: 'rules' }));
    expect(err.exitCode).toBe(Exit.Server);
    expect(err.code).toBe(PAGING_LOOP);
    expect(err.message).toBe('the server\'s paging loops: page 3 of rules names page token "A" again');
    expect(err.hint).toMatch(/^nothing was listed/);
    expect(seen).toEqual([undefined, 'A', 'B']);
    // a server that answers the token it was sent
    const echo = async (req: PageRequest): Promise<Page<Item>> => ({
      list: items(1, Number(req.pageToken ?? 1)),
      nextPageToken: req.pageToken ?? '2',
    });
    expect((await loopError(listAll(echo, { what: 'rules' }))).message).toBe(
      'the server\'s paging loops: page 2 of rules names page token "2" again',
    );
    // a long token is cut short in the message
    const long = 'x'.repeat(500);
    const longEcho = async (req: PageRequest): Promise<Page<Item>> => ({ list: items(1, req.pageToken ? 2 : 1), nextPageToken: long });
    expect((await loopError(listAll(longEcho, { what: 'rules' }))).message).toBe(
      `the server's paging loops: page 2 of rules names page token "${'x'.repeat(39)}…" again`,
    );
  });

  it('a server that ignores the token but invents a new one each time is stopped too', async () => {
    let n = 0;
    const fetch = async (): Promise<Page<Item>> => ({ list: items(5), nextPageToken: `t${++n}` });
    const err = await loopError(listAll(fetch, { what: 'rules' }));
    expect([err.exitCode, err.message]).toEqual([
      Exit.Server,
      "the server's paging loops: page 2 of rules holds only rules already listed",
    ]);
    expect(n).toBe(2);
  });

  it('an empty page with a token is followed (a server may filter a page to nothing)', async () => {
    const pages: Record<string, Page<Item>> = { start: { list: [], nextPageToken: 'b' }, b: { list: items(2), nextPageToken: '' } };
    expect(ids(await listAll(async (req) => pages[req.pageToken ?? 'start']!, { what: 'rules' }))).toEqual(['r01', 'r02']);
  });

  it('keeps only what `keep` accepts, counting --limit in kept items and asking for full pages', async () => {
    const s = pager((req) => req.pageSize ?? 50);
    const even = (x: Item) => Number(x.id.slice(1)) % 2 === 0;
    expect(ids(await listAll(s.fetch, { pageSize: 5, limit: 4, keep: even, what: 'tasks' }))).toEqual(['r02', 'r04', 'r06', 'r08']);
    expect(s.seen.map((r) => r.pageSize)).toEqual([5, 5]);
    // A page of only items seen before (kept or not) is still a loop.
    const fetch = async (): Promise<Page<Item>> => ({ list: items(3), nextPageToken: `t${Math.random()}` });
    expect((await loopError(listAll(fetch, { keep: even, what: 'tasks' }))).message).toMatch(
      /page 2 of tasks holds only tasks already listed/,
    );
  });

  it("onLoop 'stop' and maxPages end quietly with what was kept, saying why", async () => {
    const why: string[] = [];
    const echo = async (req: PageRequest): Promise<Page<Item>> => ({ list: items(2, req.pageToken ? 3 : 1), nextPageToken: 'same' });
    expect(ids(await listAll(echo, { what: 'transactions', onLoop: 'stop', onStop: (w) => why.push(w) }))).toEqual([
      'r01',
      'r02',
      'r03',
      'r04',
    ]);
    expect(why).toEqual(['the server\'s paging loops: page 2 of transactions names page token "same" again']);
    const s = pager(() => 2);
    expect(ids(await listAll(s.fetch, { what: 'transactions', maxPages: 3, onStop: (w) => why.push(w) }))).toEqual(ids(ALL.slice(0, 6)));
    expect(s.seen).toHaveLength(3);
    expect(why.at(-1)).toBe('stopped after 3 pages of transactions');
  });
});

describe('the bounds of a listing', () => {
  /** A server naming a fresh page forever, `size` items a page (one new, the others a repeat, cheap to make); counts its pages. */
  function endless(size: number) {
    let pages = 0;
    const repeat = { id: 'again' };
    const fetch = async (): Promise<Page<Item>> => {
      pages++;
      const list = size === 0 ? [] : [{ id: `i${pages}` }, ...new Array<Item>(size - 1).fill(repeat)];
      return { list, nextPageToken: `t${pages}` };
    };
    return { fetch, pages: () => pages };
  }

  it(`stops at ${MAX_PAGES} pages with exit 9 (paging_limit), nothing returned`, async () => {
    const s = endless(0);
    const err = await loopError(listAll(s.fetch, { what: 'rules' }));
    expect([err.exitCode, err.code, err.message]).toEqual([
      Exit.Server,
      PAGING_LIMIT,
      `the server's paging does not end: ${MAX_PAGES} pages of rules (0 items) read, and it names another page`,
    ]);
    expect(s.pages()).toBe(MAX_PAGES);
  });

  it(`stops once ${MAX_ITEMS} items are read, however few the pages`, async () => {
    const s = endless(MAX_ITEMS / 4);
    const err = await loopError(listAll(s.fetch, { what: 'rules' }));
    expect(err.message).toBe(`the server's paging does not end: 4 pages of rules (${MAX_ITEMS} items) read, and it names another page`);
    expect(s.pages()).toBe(4);
  });

  it('--limit, a quiet maxPages and the last page come first', async () => {
    // The page that reaches MAX_ITEMS also reaches the limit.
    expect(await listAll(endless(MAX_ITEMS / 4).fetch, { what: 'rules', limit: 5 })).toHaveLength(5);
    const s = endless(0);
    expect(await listAll(s.fetch, { what: 'rules', maxPages: 3 })).toEqual([]);
    expect(s.pages()).toBe(3);
    let n = 0;
    const lastAtCap = async (): Promise<Page<Item>> => ({ list: [{ id: `i${++n}` }], nextPageToken: n < MAX_PAGES ? `t${n}` : '' });
    expect(await listAll(lastAtCap, { what: 'rules' })).toHaveLength(MAX_PAGES);
  });

  it('pagingCapped: nothing below both bounds', () => {
    expect(pagingCapped('rules', MAX_PAGES - 1, MAX_ITEMS - 1)).toBeUndefined();
    expect(pagingCapped('rules', MAX_PAGES, 0)?.hint).toBe(
      `nothing was listed: agctl reads at most ${MAX_PAGES} pages or ${MAX_ITEMS} items of one listing; ask for fewer with --limit`,
    );
  });
});
