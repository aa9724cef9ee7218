// agctl api: one request (or every page of a list) to a route of the
// configured server, with the profile's token, printed as the server answered.
import { errorFromResponse, isJsonType, contentType, jsonObjectBody, unexpectedResponse, type ApiClient } from '../../../client/api.js';
import { isJsonObject } from '../../../lib/json.js';
import type { HttpResponse } from '../../../client/http.js';
import { statusText } from '../../../client/http.js';
import { pagingCapped, pagingLoop } from '../../../client/paginate.js';
import { CONTROL_CHAR } from '../../../lib/controls.js';
import { CliError, Exit, UsageError } from '../../../lib/exit.js';
import { checkJsonDepth } from '../../../lib/json-depth.js';
import { HTTP_TOKEN } from '../../../lib/net.js';
import type { CommandContext } from '../../context.js';
import { escapeControls } from '../../escape.js';
import { readFileBytes, readStdinBytes } from '../../io.js';
import { parseSendHeaderFlags } from '../webhook/common.js';
import type { ApiInput } from './command.js';
import { buildFields, queryPairs } from './fields.js';

/** Request headers a -H flag may not set: the client's credential binding owns them. */
const OWNED_HEADERS: Record<string, string> = {
  authorization: "agctl sends the profile's bearer token itself (use AGCTL_ACCESS_TOKEN or --profile for another one)",
  host: 'the request goes to the configured server, whose host it names (use --base-url or --profile for another one)',
};

export async function run({ args: [rawPath], opts }: ApiInput, ctx: CommandContext): Promise<number> {
  const path = checkPath(rawPath);
  const headers = requestHeaders(opts.header);
  let stdinUsed: string | undefined;
  const stdin = async (what: string): Promise<Buffer> => {
    if (stdinUsed) throw new UsageError(`${what} and ${stdinUsed} both read standard input: give one of them a file`);
    if (ctx.io.isStdinTTY) throw new UsageError(`${what} reads standard input, but it is a terminal`, 'pipe the data in, or name a file');
    stdinUsed = what;
    return readStdinBytes(ctx.io, what);
  };
  const input = opts.input === undefined ? undefined : opts.input === '-' ? await stdin('--input -') : readFileBytes(opts.input, '--input');
  const fields = await buildFields(opts.rawField, opts.field, async (source, field) =>
    (source === '-' ? await stdin(`${field}=@-`) : readFileBytes(source, field)).toString('utf8'),
  );
  const hasFields = opts.rawField.length + opts.field.length > 0;
  const method = requestMethod(opts.method, hasFields || input !== undefined);
  // As gh: fields are the JSON body, except on a GET (or HEAD) and beside --input, where they are the query.
  const fieldsInQuery = method === 'GET' || method === 'HEAD' || input !== undefined;
  if (opts.paginate && method !== 'GET' && method !== 'POST')
    throw new UsageError(`--paginate follows the pages of a GET list or a POST search, not of a ${method}`);

  const api = await ctx.api();
  const url = resolveUrl(api, path, opts.allowAnyPath === true);
  if (fieldsInQuery) for (const [k, v] of queryPairs(fields)) url.searchParams.append(k, v);
  const body = input ?? (hasFields && !fieldsInQuery ? JSON.stringify(fields) : undefined);
  /** One request; -i prints its head; an error answer is printed, then thrown. */
  const exchange = async (b: string | Buffer | undefined): Promise<HttpResponse> => {
    const res = await api.request(method, url.toString(), {
      headers: { ...(b !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: b,
    });
    if (opts.include) printHead(ctx, res);
    if (res.status < 200 || res.status >= 300) {
      printBody(ctx, res);
      throw errorFromResponse(res);
    }
    return res;
  };

  if (!opts.paginate) {
    printBody(ctx, await exchange(body));
    return 0;
  }
  const { document, dropped } = await allPages(exchange, url, method === 'POST' ? searchBody(body) : undefined, body);
  ctx.out.printJson(document);
  if (dropped.length > 0)
    ctx.out.warn(
      `--paginate merged only list; ${dropped.join(', ')} of the pages after the first were left out (page by hand to keep them)`,
    );
  return 0;
}

/**
 * Follows nextPageToken: a GET carries it as the page_token query parameter
 * (service-notes.md §3, §4), a POST search as pageToken in its JSON body (§2).
 * Returns the first page with every page's list and `expanded` (the `...Path`
 * members of a later page's items re-based onto the merged `expanded`), and
 * the names of the other array members later pages had (left out). A first
 * page without a list is returned as it is. Stops with an error, before
 * anything is printed, when the paging loops or does not end (MAX_PAGES,
 * MAX_ITEMS).
 */
async function allPages(
  exchange: (body: string | Buffer | undefined) => Promise<HttpResponse>,
  url: URL,
  search: Record<string, unknown> | undefined,
  body: string | Buffer | undefined,
): Promise<{ document: Record<string, unknown>; dropped: string[] }> {
  const items: unknown[] = [];
  const followed = new Set<string>();
  const dropped = new Set<string>();
  const seenIds = new Set<unknown>();
  let first: Record<string, unknown> | undefined;
  let expanded: unknown[] | undefined;
  for (let n = 1; ; n++) {
    const page = jsonObjectBody(await exchange(search ? JSON.stringify(search) : body), url.toString());
    // Not a list (GET /api/v1/tasks/{id}, say): nothing to page, nothing to add.
    if (first === undefined && !Array.isArray(page.list)) return { document: page, dropped: [] };
    if (page.list !== undefined && page.list !== null && !Array.isArray(page.list))
      throw unexpectedResponse(url.toString(), `page ${n} has a list that is not an array`);
    if (page.expanded !== undefined && page.expanded !== null && !Array.isArray(page.expanded))
      throw unexpectedResponse(url.toString(), `page ${n} has an expanded that is not an array`);
    const list = (page.list as unknown[] | null | undefined) ?? [];
    const next = typeof page.nextPageToken === 'string' ? page.nextPageToken : '';
    // A server that ignores the token but names a new one each time would send the same items forever.
    if (next !== '' && list.length > 0 && list.every((item) => seenIds.has(idOf(item))))
      throw pagingLoop('the list', n, 'holds only items already listed', LOOP_HINT);
    const offset = expanded?.length ?? 0;
    for (const item of list) {
      items.push(offset === 0 ? item : rebasePaths(item, offset, n, url));
      seenIds.add(idOf(item));
    }
    // One at a time: a spread of a long array as arguments overflows the stack.
    if (Array.isArray(page.expanded)) for (const e of page.expanded as unknown[]) (expanded ??= []).push(e);
    if (first === undefined) first = page;
    else
      for (const [k, v] of Object.entries(page)) if (k !== 'list' && k !== 'expanded' && Array.isArray(v) && v.length > 0) dropped.add(k);
    if (next === '')
      return { document: { ...first, list: items, ...(expanded ? { expanded } : {}), nextPageToken: '' }, dropped: [...dropped] };
    if (followed.has(next)) throw pagingLoop('the list', n, 'names a page token it named before', LOOP_HINT);
    const capped = pagingCapped('the list', n, items.length, LOOP_HINT);
    if (capped) throw capped;
    followed.add(next);
    if (search) search.pageToken = next;
    else url.searchParams.set('page_token', next);
  }
}

/** A path into `expanded` as the service writes it (src/api/tasks.ts formatExpandedPath): `expanded[3]`, `expanded[1,2]`. */
const SIMPLE_EXPANDED_PATH = /^expanded\[(\d+(?:,\d+)*)\]$/;

/**
 * An item of a later page with its `...Path` members (task views' paths into
 * `expanded`, service-notes.md §2) moved by `offset`, the length of the
 * `expanded` merged before its page. A path of another form cannot be moved
 * safely: an error, as the merged document would point at the wrong objects.
 */
function rebasePaths(item: unknown, offset: number, n: number, url: URL): unknown {
  if (!isJsonObject(item)) return item;
  const out: Record<string, unknown> = { ...item };
  for (const [k, v] of Object.entries(item)) {
    if (!k.endsWith('Path') || typeof v !== 'string' || v === '') continue;
    const m = SIMPLE_EXPANDED_PATH.exec(v);
    if (!m) {
      throw new CliError(
        `page ${n} of ${url.toString()} has ${k} ${JSON.stringify(v.slice(0, 100))}, which --paginate cannot re-base onto the merged expanded`,
        Exit.Server,
        {
          hint: 'page by hand (pageToken), or leave out the expand mask',
        },
      );
    }
    out[k] = `expanded[${m[1]!
      .split(',')
      .map((i) => Number(i) + offset)
      .join(',')}]`;
  }
  return out;
}

const LOOP_HINT = 'page by hand with page_token (GET) or pageToken (POST)';

/** An item's `id` when it has a string one (items without are never taken for repeats). */
const idOf = (item: unknown): unknown => (isJsonObject(item) && typeof item.id === 'string' ? item.id : Symbol('no id'));

/** The path as given, with a leading "/"; never a URL (the token goes only to the profile's server). */
export function checkPath(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    throw new UsageError(
      `agctl api takes a path on the configured server, not a URL: ${escapeControls(path)}`,
      "drop the scheme and host (the server is --base-url, the profile's, or --embedded)",
    );
  }
  if (CONTROL_CHAR.test(path)) throw new UsageError('the path cannot contain control characters', 'percent-encode them (%0A)');
  return path.startsWith('/') ? path : `/${path}`;
}

/** The URL of `path` on the client's server; outside its /api/ only with --allow-any-path. */
export function resolveUrl(api: Pick<ApiClient, 'url' | 'baseUrl'>, path: string, allowAnyPath: boolean): URL {
  const url = new URL(api.url(path));
  const base = new URL(api.baseUrl);
  // Checked after the URL is resolved: "/api/../auth" and "/api/%2e%2e/auth" are outside /api/.
  const root = base.pathname.replace(/\/+$/, '');
  if (url.origin !== base.origin || !url.pathname.startsWith(`${root}/`))
    throw new UsageError(`the path ${escapeControls(path)} leaves the configured server's base URL`);
  if (!allowAnyPath && !url.pathname.slice(root.length).startsWith('/api/')) {
    throw new UsageError(
      `the path ${escapeControls(path)} is outside /api/`,
      'pass --allow-any-path to send it, with the token, to that path of the same server',
    );
  }
  return url;
}

function requestMethod(given: string | undefined, hasBody: boolean): string {
  if (given === undefined) return hasBody ? 'POST' : 'GET';
  if (!HTTP_TOKEN.test(given)) throw new UsageError(`--method ${escapeControls(given)}: not an HTTP method`);
  return given.toUpperCase();
}

function requestHeaders(values: string[]): Record<string, string> {
  for (const v of values) {
    const name = v
      .slice(0, Math.max(0, v.indexOf(':')))
      .trim()
      .toLowerCase();
    if (Object.hasOwn(OWNED_HEADERS, name)) throw new UsageError(`-H ${name}: ${OWNED_HEADERS[name]}`);
  }
  return Object.fromEntries(parseSendHeaderFlags(values, '-H'));
}

/** The JSON object a POST search sends, to which each page's pageToken is added. */
function searchBody(body: string | Buffer | undefined): Record<string, unknown> {
  if (body === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString());
  } catch {
    throw new UsageError('--paginate with POST needs a JSON object as the body (pageToken is added to it): --input is not valid JSON');
  }
  if (!isJsonObject(parsed)) throw new UsageError('--paginate with POST needs a JSON object as the body (pageToken is added to it)');
  return checkJsonDepth(parsed, 'the --input body', Exit.Usage);
}

/** "content-type" -> "Content-Type". */
const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

/** -i: the status line and the response headers (sorted), then an empty line. */
function printHead(ctx: CommandContext, res: HttpResponse): void {
  ctx.out.print(`HTTP/1.1 ${statusText(res.status)}`);
  for (const name of Object.keys(res.headers).sort()) {
    const value = res.headers[name];
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
      ctx.out.print(escapeControls(`${headerName(name)}: ${v}`));
  }
  ctx.out.print();
}

/** The answer's body: JSON pretty-printed (through --jq when given), anything else as is (control characters made visible on a terminal). */
function printBody(ctx: CommandContext, res: HttpResponse): void {
  if (res.body.length === 0) return;
  if (isJsonType(contentType(res))) {
    const data = res.json();
    if (data !== undefined) return ctx.out.printJson(data);
  }
  if (!ctx.io.isStdoutTTY) return void ctx.io.stdout.write(res.body);
  const text = escapeControls(res.text(), '\n\t');
  ctx.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
