// agctl api end to end: raw requests to the in-process embedded server with the
// profile's token flow, and to a recording server (AGCTL_ACCESS_TOKEN) where
// what was sent on the wire must be seen.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { insertStepUpTask } from '../../../src/server/fixtures/tasks.js';
import { cliFor, spawnCliProcess, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { sendJson, tinyServer } from '../../unit/client/tiny-server.js';

const RULES = '/api/v1/apps/crm-app/entitlement_configuration_rules';
const SEARCH = '/api/v1/search/step-up/transactions';
const ids = (list: { id: string }[]) => list.map((x) => x.id);

describe('agctl api against the embedded server', async () => {
  const s = await startTestServer();
  const dir = tempDir();
  const cli = cliFor(dir, {
    AGCTL_BASE_URL: s.baseUrl,
    AGCTL_CLIENT_ID: s.plainClient.clientId,
    AGCTL_CLIENT_SECRET: s.plainClient.clientSecret,
  });
  const allRules = async () => ids((await s.api(`${RULES}?page_size=100`)).body.list);
  /** Issues a step-up transaction through agctl api itself: a POST whose -f field is the body. */
  const issueTransaction = async () => {
    const { taskId, stepId } = insertStepUpTask(s.server.store, s.clock);
    const r = await cli(['api', `/api/v1/tasks/${taskId}/action/approve-with-step-up`, '-f', `policyStepId=${stepId}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/step-up\//);
    return taskId;
  };
  const transactionIds = () =>
    (s.server.store.db.prepare('SELECT id FROM step_up_transactions ORDER BY created_at DESC, id DESC').all() as { id: string }[]).map(
      (r) => r.id,
    );

  it('GET prints the JSON answer, pretty, as the server sent it', async () => {
    const r = await cli(['api', RULES]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\{\n {2}"list": \[/);
    const direct = await s.api(RULES);
    expect(r.json()).toEqual(direct.body);
  });

  it('a path without its leading slash is the same path', async () => {
    const r = await cli(['api', RULES.slice(1)]);
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.json().list)).toEqual(ids((await s.api(RULES)).body.list));
  });

  it('-X GET with fields sends them as query parameters', async () => {
    const r = await cli(['api', '-X', 'GET', RULES, '-f', 'page_size=3']);
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.json().list)).toEqual((await allRules()).slice(0, 3));
    expect(r.json().nextPageToken).not.toBe('');
  });

  it('--paginate on a GET list follows page_token and prints every rule once, in order', async () => {
    const r = await cli(['api', '-X', 'GET', RULES, '-f', 'page_size=5', '--paginate']);
    expect(r.code, r.stderr).toBe(0);
    const all = await allRules();
    expect(all).toHaveLength(26);
    expect(ids(r.json().list)).toEqual(all);
    expect(r.json().nextPageToken).toBe('');
    // The same as the command made for it.
    const list = await cli(['rules', 'list', 'crm-app', '-o', 'json']);
    expect(ids(r.json().list)).toEqual(ids(list.json()));
  });

  it('POST with -F sends typed fields: a number is a number (-f sends a string, which the server refuses)', async () => {
    await issueTransaction();
    await issueTransaction();
    const typed = await cli(['api', SEARCH, '-F', 'pageSize=1']);
    expect(typed.code, typed.stderr).toBe(0);
    expect(ids(typed.json().list)).toEqual(transactionIds().slice(0, 1));
    const raw = await cli(['api', SEARCH, '-f', 'pageSize=1']);
    expect(raw.code).toBe(7);
    expect(raw.stdout).toContain('pageSize');
  });

  it('--paginate on a POST search sends pageToken in the body and merges the lists', async () => {
    await issueTransaction();
    const all = transactionIds();
    expect(all.length).toBeGreaterThanOrEqual(3);
    const r = await cli(['api', SEARCH, '-F', 'pageSize=1', '--paginate']);
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.json().list)).toEqual(all);
    // Fields combine with the paging: one task's transactions only.
    const taskId = await issueTransaction();
    const one = await cli(['api', SEARCH, '-F', 'pageSize=1', '-f', `taskId=${taskId}`, '--paginate']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.json().list).toHaveLength(1);
    expect(one.json().list[0].approveTask.taskId).toBe(taskId);
  });

  it('--input - sends standard input as the body (POST by default), and --paginate adds pageToken to it', async () => {
    const r = await cli(['api', SEARCH, '--input', '-'], { input: '{"pageSize": 2}' });
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.json().list)).toEqual(transactionIds().slice(0, 2));
    const paged = await cli(['api', SEARCH, '--input', '-', '--paginate'], { input: '{"pageSize": 2}' });
    expect(paged.code, paged.stderr).toBe(0);
    expect(ids(paged.json().list)).toEqual(transactionIds());
  });

  it('-F key=@file reads a file, -F key=@- standard input', async () => {
    const taskId = await issueTransaction();
    const file = join(dir, 'task-id.txt');
    writeFileSync(file, taskId);
    const fromFile = await cli(['api', SEARCH, '-F', `taskId=@${file}`]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.json().list.map((t: { approveTask: { taskId: string } }) => t.approveTask.taskId)).toEqual([taskId]);
    const fromStdin = await cli(['api', SEARCH, '-F', 'taskId=@-'], { input: taskId });
    expect(fromStdin.json().list).toEqual(fromFile.json().list);
  });

  it('-i prints the status line and the headers on stdout before the body', async () => {
    const r = await cli(['api', RULES, '-i']);
    expect(r.code, r.stderr).toBe(0);
    const [head, body] = r.stdout.split('\n\n', 2) as [string, string];
    expect(head.split('\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head).toMatch(/^Content-Type: application\/json/m);
    expect(JSON.parse(body).list).toHaveLength((await s.api(RULES)).body.list.length);
  });

  it('an error answer: its body on stdout, the error line on stderr, the exit code from the status', async () => {
    const missing = await cli(['api', '/api/v1/apps/no-such-app/entitlement_configuration_rules']);
    expect(missing.code).toBe(5);
    expect(missing.json()).toMatchObject({ code: 5, message: expect.stringContaining('no-such-app') });
    expect(missing.stderr).toMatch(/^agctl: .*no-such-app.*\(HTTP 404, NotFound\)/m);
    const notAllowed = await cli(['api', '-X', 'DELETE', RULES]);
    expect(notAllowed.code).toBe(7);
    const unauthenticated = await cli(['api', RULES], { env: { AGCTL_ACCESS_TOKEN: 'not-a-token' } });
    expect(unauthenticated.code).toBe(3);
    expect(unauthenticated.stdout).not.toBe('');
  });

  it('-X DELETE deletes, with the rule gone afterwards', async () => {
    const [first] = await allRules();
    const r = await cli(['api', '-X', 'DELETE', `${RULES}/${first}`, '--input', '-'], { input: '{}' });
    expect(r.code, r.stderr).toBe(0);
    expect(await allRules()).not.toContain(first);
    const again = await cli(['api', '-X', 'DELETE', `${RULES}/${first}`]);
    expect(again.code).toBe(5);
  });

  it('refuses a path outside /api/ unless --allow-any-path, and a URL always', async () => {
    for (const path of ['/auth/v1/token', '/api/../auth/v1/token', '/api/%2e%2e/auth/v1/token', '/apix/v1']) {
      const r = await cli(['api', path]);
      expect(r.code, path).toBe(2);
      expect(r.stderr, path).toContain('outside /api/');
      expect(r.stdout).toBe('');
    }
    // Allowed, it reaches the server (the token endpoint takes only POST).
    const allowed = await cli(['api', '/auth/v1/token', '--allow-any-path']);
    expect(allowed.code).toBe(7);
    for (const url of [`${s.baseUrl}${RULES}`, `//127.0.0.1${RULES}`, 'https://example.com/api/v1/x']) {
      const r = await cli(['api', url, '--allow-any-path']);
      expect(r.code, url).toBe(2);
      expect(r.stderr, url).toContain('not a URL');
    }
  });

  it("--paginate over a task search with an expand mask: every view's paths point at its own objects in the merged expanded", async () => {
    for (let i = 0; i < 12; i++) insertStepUpTask(s.server.store, s.clock);
    const search = (pageSize: number, more: string[] = []) =>
      cli(['api', '/api/v1/search/tasks', '-F', `pageSize=${pageSize}`, '-f', 'expandMask[paths][]=*', ...more]);
    const one = await search(100);
    expect(one.code, one.stderr).toBe(0);
    expect(one.json().list.length).toBeGreaterThan(10);
    const paged = await search(10, ['--paginate']);
    expect(paged.code, paged.stderr).toBe(0);
    /** Each view's path members, resolved to the objects they name. */
    const resolved = (doc: { list: Record<string, unknown>[]; expanded: unknown[] }) =>
      doc.list.map((view) =>
        Object.fromEntries(
          Object.entries(view)
            .filter(([k, v]) => k.endsWith('Path') && v !== '')
            .map(([k, v]) => [
              k,
              /^expanded\[([\d,]+)\]$/
                .exec(String(v))![1]!
                .split(',')
                .map((i) => doc.expanded[Number(i)]),
            ]),
        ),
      );
    expect(resolved(paged.json())).toEqual(resolved(one.json()));
    // Page 2 on really had paths of its own (re-based, not left pointing into page 1's objects).
    const later = paged.json().list.slice(10) as Record<string, string>[];
    expect(later.some((v) => /^expanded\[\d/.test(v.appPath ?? ''))).toBe(true);
    expect(paged.stderr).not.toContain('expanded');
  });

  it('works with --embedded', async () => {
    const r = await cliFor(tempDir(), { AGCTL_DATA_DIR: tempDir() })(['--embedded', 'api', RULES, '--paginate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().list).toHaveLength(26);
  });
});

describe('agctl api: what goes on the wire', async () => {
  const t = await tinyServer();
  const cli = cliFor(tempDir(), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok-123' });

  it('a POST of fields: JSON body with nested keys, content type, -H headers, the token', async () => {
    t.reset((_req, res) => sendJson(res, 200, { ok: true }));
    const r = await cli([
      'api',
      '/api/v1/things',
      '-f',
      'a[b]=c',
      '-F',
      'n=2',
      '-F',
      'flag=true',
      '-F',
      'none=null',
      '-f',
      'tags[]=x',
      '-f',
      'tags[]=y',
      '-H',
      'X-Trace: abc',
      '-H',
      'Accept: application/vnd.test+json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(t.seen).toHaveLength(1);
    const [seen] = t.seen;
    expect(seen!.method).toBe('POST');
    expect(JSON.parse(seen!.body)).toEqual({ a: { b: 'c' }, tags: ['x', 'y'], n: 2, flag: true, none: null });
    expect(seen!.headers).toMatchObject({
      authorization: 'Bearer tok-123',
      'content-type': 'application/json',
      'x-trace': 'abc',
      accept: 'application/vnd.test+json',
    });
  });

  it("a GET of fields: query parameters in the service's form, no body", async () => {
    t.reset((_req, res) => sendJson(res, 200, {}));
    const r = await cli(['api', '-X', 'get', '/api/v1/things?x=1', '-f', 'q=a b', '-f', 'mask[paths][]=p1', '-f', 'mask[paths][]=p2']);
    expect(r.code, r.stderr).toBe(0);
    expect(t.seen[0]!.method).toBe('GET');
    expect(t.seen[0]!.path).toBe('/api/v1/things?x=1&q=a+b&mask.paths=p1&mask.paths=p2');
    expect(t.seen[0]!.body).toBe('');
  });

  it('--input with fields: the body as given, the fields in the query', async () => {
    t.reset((_req, res) => sendJson(res, 200, {}));
    const r = await cli(['api', '/api/v1/things', '--input', '-', '-f', 'dry=1', '-H', 'Content-Type: text/plain'], {
      input: 'raw text, sent as is',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(t.seen[0]).toMatchObject({ method: 'POST', path: '/api/v1/things?dry=1', body: 'raw text, sent as is' });
    expect(t.seen[0]!.headers['content-type']).toBe('text/plain');
  });

  it('-H cannot set Authorization or Host: a usage error, nothing sent', async () => {
    t.reset((_req, res) => sendJson(res, 200, {}));
    for (const h of ['Authorization: Bearer other', 'authorization: x', 'Host: evil.example.com', 'Content-Length: 5']) {
      const r = await cli(['api', '/api/v1/things', '-H', h]);
      expect(r.code, h).toBe(2);
      expect(r.stderr, h).toMatch(/^agctl: -H /);
    }
    expect((await cli(['api', '/api/v1/things', '-H', 'Authorization: x'])).stderr).toContain(
      "agctl sends the profile's bearer token itself",
    );
    expect((await cli(['api', '/api/v1/things', '-H', 'HOST: x'])).stderr).toContain('the request goes to the configured server');
    expect(t.seen).toHaveLength(0);
  });

  it('refuses input it cannot take, before sending anything', async () => {
    t.reset((_req, res) => sendJson(res, 200, {}));
    const cases: [string[], RegExp, string?][] = [
      [['--input', '/dev/zero'], /--input \/dev\/zero: larger than 1048576 bytes/],
      [['--input', '/no/such/file'], /--input \/no\/such\/file: /],
      [['--input', '-', '-F', 'a=@-'], /both read standard input/, '{}'],
      [['-F', 'a=@-', '-F', 'b=@-'], /both read standard input/, 'x'],
      [['-f', 'a=1', '-f', 'a[b]=2'], /"a" is already a string/],
      [['-X', 'GE T'], /not an HTTP method/],
      [['-X', 'DELETE', '--paginate'], /--paginate follows the pages of a GET list or a POST search/],
      [['--input', '-', '--paginate'], /needs a JSON object as the body/, '[1]'],
    ];
    for (const [args, message, input] of cases) {
      const r = await cli(['api', '/api/v1/things', ...args], { input });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    expect(t.seen).toHaveLength(0);
  });

  it('a body that is not JSON is printed as is', async () => {
    t.reset((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('plain answer\nline 2');
    });
    const r = await cli(['api', '/api/v1/text']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('plain answer\nline 2');
  });

  it('--paginate stops on a repeated page token, printing nothing', async () => {
    t.reset((req, res) =>
      sendJson(res, 200, {
        list: [{ id: req.path }],
        nextPageToken: req.path.includes('page_token=B') ? 'A' : req.path.includes('page_token=A') ? 'B' : 'A',
      }),
    );
    const r = await cli(['api', '/api/v1/loop', '--paginate']);
    expect(r.code).toBe(9);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("the server's paging loops");
    expect(t.seen.map((s) => s.path)).toEqual(['/api/v1/loop', '/api/v1/loop?page_token=A', '/api/v1/loop?page_token=B']);
  });

  it("--paginate keeps the first page's other members and says which later ones were left out", async () => {
    t.reset((req, res) =>
      req.path.includes('page_token')
        ? sendJson(res, 200, { list: [2], warnings: [{ n: 2 }], nextPageToken: '' })
        : sendJson(res, 200, { list: [1], warnings: [{ n: 1 }], nextPageToken: 'next' }),
    );
    const r = await cli(['api', '/api/v1/things', '--paginate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ list: [1, 2], warnings: [{ n: 1 }], nextPageToken: '' });
    expect(r.stderr).toContain('warnings');
  });

  it("--paginate merges expanded and re-bases the later pages' paths into it", async () => {
    const A = { '@type': 'App', id: 'a' };
    const B = { '@type': 'User', id: 'b' };
    const C = { '@type': 'App', id: 'c' };
    const D = { '@type': 'User', id: 'd' };
    t.reset((req, res) =>
      req.path.includes('page_token')
        ? sendJson(res, 200, {
            list: [{ id: 't2', appPath: 'expanded[0]', approversPath: 'expanded[0,1]', insightsPath: '' }],
            expanded: [C, D],
            nextPageToken: '',
          })
        : sendJson(res, 200, {
            list: [{ id: 't1', appPath: 'expanded[0]', approversPath: 'expanded[1]' }],
            expanded: [A, B],
            nextPageToken: 'next',
          }),
    );
    const r = await cli(['api', '/api/v1/things', '--paginate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({
      list: [
        { id: 't1', appPath: 'expanded[0]', approversPath: 'expanded[1]' },
        { id: 't2', appPath: 'expanded[2]', approversPath: 'expanded[2,3]', insightsPath: '' },
      ],
      expanded: [A, B, C, D],
      nextPageToken: '',
    });
    expect(r.stderr).toBe('');
  });

  it('--paginate refuses to merge a later page whose path it cannot re-base, printing nothing', async () => {
    t.reset((req, res) =>
      req.path.includes('page_token')
        ? sendJson(res, 200, { list: [{ id: 't2', appPath: '$.expanded[*]' }], expanded: [{ id: 'c' }], nextPageToken: '' })
        : sendJson(res, 200, { list: [{ id: 't1', appPath: 'expanded[0]' }], expanded: [{ id: 'a' }], nextPageToken: 'next' }),
    );
    const r = await cli(['api', '/api/v1/things', '--paginate']);
    expect(r.code).toBe(9);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('appPath "$.expanded[*]"');
  });

  it('--paginate on a route that is not a list prints its answer unchanged, after one request', async () => {
    const answer = { taskView: { task: { id: 't1' }, appPath: 'expanded[0]' }, expanded: [{ id: 'a' }] };
    t.reset((_req, res) => sendJson(res, 200, answer));
    const r = await cli(['api', '/api/v1/tasks/t1', '--paginate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual(answer);
    expect(t.seen).toHaveLength(1);
    expect(r.stderr).toBe('');
  });
});

describe('agctl api --debug never prints a secret it sends', async () => {
  const t = await tinyServer();
  const env = { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok-debug-123' };
  const cli = cliFor(tempDir(), env);
  // The MCP credential fields are secret by their schema: that test runs in a process of its own, which
  // loads only its command's modules (this test process has loaded every schema module, the embedded
  // server's too). The other fields and headers are secret by redaction's own names: in-process.
  const cliProcess = cliFor(tempDir(), env, spawnCliProcess);
  const CREDENTIALS = '/api/v1/apps/ai-tools/mcp_servers/wiki-mcp/credentials';
  const expectHidden = (r: { code: number | null; stderr: string }, secrets: string[], sent: string) => {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('> POST ');
    for (const secret of secrets) expect(r.stderr, secret).not.toContain(secret);
    // It was sent, only not printed.
    for (const secret of secrets) expect(`${JSON.stringify(t.seen[0]!.headers)} ${t.seen[0]!.body}`, sent).toContain(secret);
  };

  it('the MCP credential fields, from -F fields and from --input, as mcp set-credentials hides them', async () => {
    t.reset((_req, res) => sendJson(res, 200, {}));
    const fields = await cliProcess([
      'api',
      CREDENTIALS,
      '-F',
      'externalConfig[bearerToken][token]=TOPSECRET-F',
      '-f',
      'updateMask=bearerToken',
      '--debug',
    ]);
    expectHidden(fields, ['TOPSECRET-F'], 'fields');
    expect(fields.stderr).toContain('"token":"<redacted>"');
    t.reset((_req, res) => sendJson(res, 200, {}));
    const body = {
      hostedConfig: { basicAuth: { username: 'u', password: 'PW-SECRET' }, configFields: { api_key: 'CF-SECRET' } },
      updateMask: 'basicAuth,configFields',
    };
    const input = await cliProcess(['api', CREDENTIALS, '--input', '-', '--debug'], { input: JSON.stringify(body) });
    expectHidden(input, ['PW-SECRET', 'CF-SECRET'], 'input');
  });

  it('a JSON body labelled as a form, a form body, and a body that is neither', async () => {
    t.reset((_req, res) => sendJson(res, 200, {}));
    const labelled = await cli([
      'api',
      '/auth/v1/token',
      '--allow-any-path',
      '-f',
      'client_secret=CS-SECRET',
      '-H',
      'Content-Type: application/x-www-form-urlencoded',
      '--debug',
    ]);
    expectHidden(labelled, ['CS-SECRET'], 'json as form');
    expect(labelled.stderr).toContain('"client_secret":"<redacted>"');
    t.reset((_req, res) => sendJson(res, 200, {}));
    const form = await cli(
      ['api', '/auth/v1/token', '--allow-any-path', '--input', '-', '-H', 'Content-Type: application/x-www-form-urlencoded', '--debug'],
      {
        input: 'grant_type=client_credentials&client_secret=FORM-SECRET',
      },
    );
    expectHidden(form, ['FORM-SECRET'], 'form');
    expect(form.stderr).toContain('client_secret=<redacted>');
    t.reset((_req, res) => sendJson(res, 200, {}));
    const neither = await cli(['api', '/api/v1/things', '--input', '-', '-H', 'Content-Type: application/json', '--debug'], {
      input: '{"token": "RAW-SECRET"',
    });
    expectHidden(neither, ['RAW-SECRET'], 'unparseable');
    expect(neither.stderr).toContain('<22 bytes of application/json, not shown>');
  });

  it('the token and -H headers whose names say they hold a secret', async () => {
    t.reset((_req, res) => sendJson(res, 200, {}));
    const r = await cli([
      'api',
      '/api/v1/things',
      '-f',
      'a=1',
      '-H',
      'X-Api-Key: KEY-SECRET',
      '-H',
      'X-Auth-Token: AT-SECRET',
      '-H',
      'Cookie: s=COOKIE-SECRET',
      '--debug',
    ]);
    expectHidden(r, ['tok-debug-123', 'KEY-SECRET', 'AT-SECRET', 'COOKIE-SECRET'], 'headers');
    expect(r.stderr).toMatch(/> x-api-key: <redacted>/i);
  });
});
