// rules list / delete against a loopback server that answers as the service
// may (service-notes.md §4, §5): string error codes, errors without a code or
// a message, a rules List that ignores page_size or answers everything at
// once, pages that repeat rules, and paging that loops. The scenario is the
// app ID in the request path.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { sendJson, tinyServer, type Seen } from '../../unit/client/tiny-server.js';

const t = await tinyServer();
const cli = cliFor(tempDir('agctl-service-answers-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' });

const rule = (n: number) => ({ id: `r${String(n).padStart(2, '0')}`, displayName: `Rule ${n}`, priority: n, enabled: true });
const ALL = Array.from({ length: 26 }, (_, i) => rule(i + 1));
const ALL_IDS = ALL.map((r) => r.id);
const LONG_HTML = `<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n${'<p>upstream \u001b[31mfailed</p>\n'.repeat(40)}</body>\n</html>\n`;

/** A page of ALL from `from` (the token is the offset), `size` rules long. */
function page(res: ServerResponse, from: number, size: number, token = (to: number) => (to < ALL.length ? String(to) : '')) {
  sendJson(res, 200, { list: ALL.slice(from, from + size), nextPageToken: token(from + size) });
}

function raw(res: ServerResponse, status: number, body: string, type = 'text/html') {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

t.reset((req: Seen, res: ServerResponse) => {
  const u = new URL(req.path, t.url);
  const app = /^\/api\/v1\/apps\/([^/]+)\//.exec(u.pathname)?.[1] ?? '';
  const from = Number(u.searchParams.get('page_token') ?? 0);
  switch (app) {
    case 'pages-of-ten': // ignores page_size, pages of its own size
      return page(res, from, 10);
    case 'one-page': // ignores page_size, answers everything at once
      return sendJson(res, 200, { list: ALL, nextPageToken: '' });
    case 'overlapping': // each page starts two rules before the previous one ended
      return page(res, from, 10, (to) => (to < ALL.length ? String(to - 2) : ''));
    case 'repeats-token': // the second page names its own token again
      return page(res, from, 10, () => '10');
    case 'ignores-token': // always the first page, with a new token each time
      return page(res, 0, 10, () => `t${t.seen.length}`);
    case 'string-code':
      return sendJson(res, 404, { code: 'not_found', message: `app ${app} not found` });
    case 'code-only':
      return sendJson(res, 400, { code: 'invalid_argument' });
    case 'message-only':
      return sendJson(res, 500, { message: 'database unavailable' });
    case 'html-error':
      return raw(res, 502, LONG_HTML);
    case 'empty-error':
      return raw(res, 500, '', '');
    default:
      return sendJson(res, 404, { code: 5, message: 'no such scenario', details: [] });
  }
});

const listed = (stdout: string) => (JSON.parse(stdout) as { id: string }[]).map((r) => r.id);
const queries = (app: string) => t.seen.filter((s) => s.path.includes(`/apps/${app}/`)).map((s) => new URL(s.path, t.url).search);

describe('rules list: paging as the server does it', () => {
  it('a server that ignores page_size: every rule once, --limit honoured, no more requests than needed', async () => {
    const [all, table, limited] = await Promise.all([
      cli(['rules', 'list', 'pages-of-ten', '--page-size', '4', '-o', 'json']),
      cli(['rules', 'list', 'pages-of-ten']),
      cli(['rules', 'list', 'pages-of-ten', '--limit', '13', '-o', 'json']),
    ]);
    expect(all.code, all.stderr).toBe(0);
    expect(listed(all.stdout)).toEqual(ALL_IDS);
    expect(table.code, table.stderr).toBe(0);
    expect(
      table.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.split(/\s+/)[1]),
    ).toEqual(ALL_IDS);
    expect(limited.code, limited.stderr).toBe(0);
    expect(listed(limited.stdout)).toEqual(ALL_IDS.slice(0, 13));
    // 3 pages for each full listing, 2 for --limit 13; page_size only where --page-size asked for it
    const q = queries('pages-of-ten');
    expect(q).toHaveLength(8);
    expect(q.filter((s) => s.includes('page_size'))).toEqual(['?page_size=4', '?page_size=4&page_token=10', '?page_size=4&page_token=20']);
  });

  it('a server that answers everything in one page: one request, --limit cuts the list', async () => {
    const [all, limited] = await Promise.all([
      cli(['rules', 'list', 'one-page', '-o', 'json']),
      cli(['rules', 'list', 'one-page', '--limit', '5', '-o', 'json']),
    ]);
    expect(listed(all.stdout)).toEqual(ALL_IDS);
    expect(listed(limited.stdout)).toEqual(ALL_IDS.slice(0, 5));
    // the service's List request has no paging parameters: none is sent unless --page-size asks for one
    expect(queries('one-page')).toEqual(['', '']);
  });

  it("rules repeated across pages are listed once, in the server's order", async () => {
    const [json, table] = await Promise.all([cli(['rules', 'list', 'overlapping', '-o', 'json']), cli(['rules', 'list', 'overlapping'])]);
    expect(json.code, json.stderr).toBe(0);
    expect(listed(json.stdout)).toEqual(ALL_IDS);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(1 + 26);
  });

  it('a repeated page token stops with exit 9 and nothing on stdout', async () => {
    const [text, json, limited] = await Promise.all([
      cli(['rules', 'list', 'repeats-token']),
      cli(['rules', 'list', 'repeats-token', '-o', 'json']),
      cli(['rules', 'list', 'repeats-token', '--limit', '10', '-o', 'json']),
    ]);
    expect(text.code).toBe(9);
    expect(text.stdout).toBe('');
    expect(text.stderr).toBe(
      'agctl: the server\'s paging loops: page 2 of rules names page token "10" again\n' +
        'hint: nothing was listed, rather than rules twice or without end; try again, or ask for fewer with --limit\n',
    );
    expect(json.code).toBe(9);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'paging_loop',
        message: 'the server\'s paging loops: page 2 of rules names page token "10" again',
        hint: 'nothing was listed, rather than rules twice or without end; try again, or ask for fewer with --limit',
        exitCode: 9,
        status: null,
        details: [],
      },
    });
    // what the first page holds can still be listed
    expect(limited.code, limited.stderr).toBe(0);
    expect(listed(limited.stdout)).toEqual(ALL_IDS.slice(0, 10));
  });

  it('a server that ignores page_token (a new token each time) is stopped too, instead of looping forever', async () => {
    const r = await cli(['rules', 'list', 'ignores-token']);
    expect([r.code, r.stdout]).toEqual([9, '']);
    expect(r.stderr.split('\n')[0]).toBe("agctl: the server's paging loops: page 2 of rules holds only rules already listed");
    expect(queries('ignores-token')).toHaveLength(2);
  });
});

describe('error answers: string codes, no code, no message', () => {
  it('rules list: the line names the code, the exit code follows the HTTP status, the body is shown when there is no message', async () => {
    const apps = ['string-code', 'code-only', 'message-only', 'html-error', 'empty-error'];
    const runs = await Promise.all(apps.flatMap((app) => [cli(['rules', 'list', app]), cli(['rules', 'list', app, '-o', 'json'])]));
    const text = runs.filter((_, i) => i % 2 === 0);
    const json = runs.filter((_, i) => i % 2 === 1).map((r) => JSON.parse(r.stderr).error);
    expect(text.map((r) => r.code)).toEqual([5, 7, 9, 9, 9]);
    expect(runs.map((r) => r.stdout)).toEqual(runs.map(() => ''));
    const lines = text.map((r) => r.stderr);
    expect(lines.slice(0, 3)).toEqual([
      'agctl: app string-code not found (HTTP 404, NotFound)\n',
      'agctl: the server\'s answer has no message: {"code":"invalid_argument"} (HTTP 400, InvalidArgument)\n',
      'agctl: database unavailable (HTTP 500, Internal)\n',
    ]);
    // an HTML page: one line, its control characters escaped, cut short
    expect(lines[3]).toMatch(
      /^agctl: the server's answer has no message: <!DOCTYPE html> <html> <head><title>502 Bad Gateway<\/title><\/head> <body> <p>upstream \\x1b\[31mfailed<\/p> .*… \(HTTP 502, Internal\)\n$/,
    );
    expect(lines[3]!.length).toBeLessThan(300);
    expect(lines[3]).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(lines[4]).toBe("agctl: the server's answer is empty (HTTP 500, Internal)\n");
    // -o json: code names the gRPC code, from a string code too
    expect(json.map((e) => [e.status, e.code, e.exitCode])).toEqual([
      [404, 'not_found', 5],
      [400, 'invalid_argument', 7],
      [500, 'internal', 9],
      [502, 'internal', 9],
      [500, 'internal', 9],
    ]);
    expect(json[1].message).toBe('the server\'s answer has no message: {"code":"invalid_argument"}');
  });

  it('rules delete: the same errors in its per-rule report', async () => {
    const [text, json] = await Promise.all([
      cli(['rules', 'delete', 'string-code', 'r1', '--yes']),
      cli(['rules', 'delete', 'code-only', 'r1', '--yes', '-o', 'json']),
    ]);
    expect([text.code, text.stderr]).toEqual([5, '✗ rule r1: app string-code not found (HTTP 404, NotFound)\n']);
    expect(json.code).toBe(7);
    expect(json.json()).toEqual([]);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        id: 'r1',
        status: 400,
        code: 'invalid_argument',
        exitCode: 7,
        hint: null,
        details: [],
        message: 'the server\'s answer has no message: {"code":"invalid_argument"}',
      },
    });
  });
});
