// Answers no real service sends but a broken or hostile one may: JSON nested
// 20,000 levels deep (JSON.stringify overflows the stack some thousands
// down), control characters in bodies, headers and messages.
// Nothing they hold may crash agctl (exit 1) or reach the terminal raw.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../src/lib/json-depth.js';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { tinyServer, type Seen } from '../../unit/client/tiny-server.js';

const t = await tinyServer();
const cli = cliFor(tempDir('agctl-hostile-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' });

/** A JSON text of objects nested `depth` levels: {"a":{"a":...1...}}. */
const nested = (depth: number) => '{"a":'.repeat(depth - 1) + '{"a":1' + '}'.repeat(depth);
const DEEP = nested(20_000);

function answer(status: number, body: string, headers: Record<string, string> = {}) {
  return (_req: Seen, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };
}

describe('JSON nested deeper than agctl follows', () => {
  it(`api, api --debug and api -o json refuse it with exit 9; ${MAX_JSON_DEPTH} levels print`, async () => {
    t.reset(answer(200, `{"list":[],"deep":${DEEP}}`));
    const runs = [
      ['api', '/api/v1/deep'],
      ['api', '/api/v1/deep', '--debug'],
      ['api', '/api/v1/deep', '--paginate', '-o', 'json'],
    ];
    const results = await Promise.all(runs.map((args) => cli(args)));
    results.forEach((r, i) => {
      expect(r.code, `${runs[i]!.join(' ')}\n${r.stderr.slice(-2000)}`).toBe(9);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `(^|\\n)(agctl: the answer nests deeper than ${MAX_JSON_DEPTH} levels\\n|\\{"error":\\{"code":"unavailable","message":"the answer nests deeper than ${MAX_JSON_DEPTH} levels")`,
        ),
      );
    });
    expect(results[1]!.stderr).toMatch(
      new RegExp(`\\[debug\\] < <\\d+ bytes of JSON nested deeper than ${MAX_JSON_DEPTH} levels, not shown>\\n`),
    );

    // The bound is the bound: an answer exactly that deep is printed as sent.
    const edge = nested(MAX_JSON_DEPTH - 1);
    t.reset(answer(200, `{"edge":${edge}}`));
    const [ok, jq] = await Promise.all([cli(['api', '/api/v1/edge', '--debug']), cli(['api', '/api/v1/edge', '--jq', '.edge'])]);
    expect(ok.code, ok.stderr.slice(-500)).toBe(0);
    expect(ok.json()).toEqual({ edge: JSON.parse(edge) });
    expect(jq.code, jq.stderr.slice(-500)).toBe(0);
    expect(jq.json()).toEqual(JSON.parse(edge));
  });

  it('in an error answer: the error is reported (details left out), not a crash', async () => {
    t.reset(answer(400, `{"code":3,"message":"bad","details":[${DEEP}]}`));
    const [text, json] = await Promise.all([cli(['rules', 'list', 'app1']), cli(['rules', 'list', 'app1', '-o', 'json'])]);
    expect(text.code, text.stderr.slice(-500)).toBe(7);
    expect(text.stderr).toBe('agctl: bad (HTTP 400, InvalidArgument)\n');
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'invalid_argument', message: 'bad', details: [] });
  });

  it('in a list: rules list -o json, mcp list -o json and the webhook runs table refuse it with exit 9', async () => {
    t.reset((req, res) =>
      answer(
        200,
        req.path.includes('/runs')
          ? `{"total":1,"runs":[{"number":1,"id":"run1","eventId":"e1","context":{"trigger":${DEEP}}}]}`
          : `{"list":[{"id":"r1","connectorId":"c1","displayName":"R","extra":${DEEP}}]}`,
      )(req, res),
    );
    for (const args of [
      ['rules', 'list', 'app1', '-o', 'json'],
      ['mcp', 'list', 'app1', '-o', 'json'],
      ['webhook', 'runs', 'l1', '-o', 'json'],
      ['webhook', 'runs', 'l1'],
    ]) {
      const r = await cli(args);
      expect(r.code, `${args.join(' ')}\n${r.stderr.slice(-2000)}`).toBe(9);
      expect(r.stderr).toMatch(
        new RegExp(`^(agctl: |\\{"error":\\{"code":"unavailable","message":")the answer nests deeper than ${MAX_JSON_DEPTH} levels`),
      );
    }
  });

  it("given by the user (an -f key, a --paginate POST body) is a usage error; one jq builds is jq's error", async () => {
    t.reset(answer(200, '{"list":[]}'));
    const key = `a${'[b]'.repeat(100_000)}=1`;
    const [field, body, jq] = await Promise.all([
      cli(['api', '/api/v1/x', '-f', key]),
      cli(['api', '/api/v1/x', '--method', 'POST', '--paginate', '--input', '-'], { input: DEEP }),
      cli(['version', '--jq', 'reduce range(5000) as $i (0; [.])']),
    ]);
    expect(field.code, field.stderr.slice(-500)).toBe(2);
    expect(field.stderr).toMatch(new RegExp(`^agctl: -f a\\[b\\]\\[b\\].*\\.\\.\\.: nests deeper than ${MAX_JSON_DEPTH} levels\\n$`));
    expect(body.code, body.stderr.slice(-500)).toBe(2);
    expect(body.stderr).toBe(`agctl: the --input body nests deeper than ${MAX_JSON_DEPTH} levels\n`);
    expect(jq.code, jq.stderr.slice(-500)).toBe(2);
    expect(JSON.parse(jq.stderr).error.message).toMatch(/^--jq: jq stopped: /);
    expect(t.seen).toHaveLength(0);
  });
});

describe('control characters a server sends', () => {
  /** Any C0 control but the line break that ends a line, DEL or a C1 control. */
  const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

  it('--debug logs them as escapes: a header value, a form-shaped text body, a JSON body', async () => {
    t.reset((req, res) => {
      // Node writes a header value's characters as latin-1 bytes: U+009B arrives as the C1 CSI.
      res.setHeader('x-note', 'a\u009b31mb');
      if (req.path.includes('form')) {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('k\u001b[2J=v&%1b]0;t%07=x&y=\u007f');
      } else sendJsonText(res, JSON.stringify({ name: 'n\u001b[2J\u009b31m\u007f', list: [] }));
    });
    const [form, json] = await Promise.all([cli(['api', '/api/v1/form', '--debug']), cli(['api', '/api/v1/json', '--debug'])]);
    for (const r of [form, json]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr, r.stderr).not.toMatch(RAW);
      expect(r.stderr).toMatch(/\[debug\] < x-note: a\S*\\x9b31mb\n/);
    }
    expect(form.stderr).toContain('[debug] < k\\x1b[2J=v&\\x1b]0;t\\x07=x&y=%7F\n');
    expect(json.stderr).toContain('[debug] < {"name":"n\\u001b[2J\\x9b31m\\x7f","list":[]}\n');
  });

  it("api --paginate's warning about members it left out, and an error's message", async () => {
    t.reset((req, res) => {
      if (req.path.includes('fail'))
        return sendJsonText(res, JSON.stringify({ code: 9, message: 'step s\u001b]0;x\u0007 \u009b2J in state \u007f' }), 400);
      const second = req.path.includes('page_token=');
      sendJsonText(
        res,
        JSON.stringify(
          second ? { list: [{ id: 'b' }], 'more\u001b[2J': [1], nextPageToken: '' } : { list: [{ id: 'a' }], nextPageToken: 'p\u001b[2J' },
        ),
      );
    });
    const [paged, failed] = await Promise.all([cli(['api', '/api/v1/list', '--paginate']), cli(['rules', 'list', 'fail'])]);
    expect(paged.code, paged.stderr).toBe(0);
    expect(paged.stderr).toBe(
      '! --paginate merged only list; more\\x1b[2J of the pages after the first were left out (page by hand to keep them)\n',
    );
    expect(failed.code).toBe(7);
    expect(failed.stderr).toBe('agctl: step s\\x1b]0;x\\x07 \\x9b2J in state \\x7f (HTTP 400, FailedPrecondition)\n');
  });
});

function sendJsonText(res: ServerResponse, body: string, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
