import { describe, expect, it } from 'vitest';
import { ApiError, Code, codeForHttpStatus, httpStatusForCode } from '../../../src/api/errors.js';
import { CliError, EXIT_CODE_TABLE, Exit, UsageError, exitCodeForStatus } from '../../../src/lib/exit.js';
import { renderError } from '../../../src/cli/errors.js';
import { escapeControls, safeJson } from '../../../src/cli/escape.js';

describe('exit codes', () => {
  it('map HTTP statuses as documented (DESIGN.md §4)', () => {
    const table: [number, number][] = [
      [200, 0],
      [204, 0],
      [400, 7],
      [405, 7],
      [413, 7],
      [422, 7],
      [401, 3],
      [403, 4],
      [404, 5],
      [409, 6],
      [429, 8],
      [500, 9],
      [501, 9],
      [502, 9],
      [503, 9],
      [504, 9],
      [0, 9],
      [418, 7],
    ];
    for (const [status, code] of table) expect([status, exitCodeForStatus(status)]).toEqual([status, code]);
  });

  it('are what the table says for every 3xx and 4xx status', () => {
    const meaning = new Map<number, string>(EXIT_CODE_TABLE);
    const named = (code: number) => (meaning.get(code)!.match(/\b[1-5]\d\d\b/g) ?? []).map(Number);
    // Every status a row names maps to that row's code.
    for (const [code] of EXIT_CODE_TABLE)
      for (const status of named(code)) expect([status, exitCodeForStatus(status)]).toEqual([status, code]);
    // Every other 4xx, and a 3xx (a webhook receiver's answer; the client turns the service's redirects into 9 before), is 7, as its row says.
    const elsewhere = new Set(EXIT_CODE_TABLE.flatMap(([c]) => (c === Exit.Invalid ? [] : named(c))));
    expect(meaning.get(Exit.Invalid)).toMatch(/any other 4xx no other row names; a webhook receiver's 3xx/);
    for (let status = 300; status < 500; status++)
      if (!elsewhere.has(status)) expect([status, exitCodeForStatus(status)]).toEqual([status, Exit.Invalid]);
  });

  it('are the documented table, 0 to 11', () => {
    expect(EXIT_CODE_TABLE.map(([c]) => c)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 130]);
    expect(Exit).toMatchObject({
      OK: 0,
      Bug: 1,
      Usage: 2,
      Unauthenticated: 3,
      PermissionDenied: 4,
      NotFound: 5,
      Conflict: 6,
      Invalid: 7,
      RateLimited: 8,
      Server: 9,
      Pending: 10,
      Environment: 11,
    });
  });

  it('follow the gRPC <-> HTTP mapping', () => {
    const pairs: [number, number][] = [
      [Code.InvalidArgument, 400],
      [Code.NotFound, 404],
      [Code.AlreadyExists, 409],
      [Code.PermissionDenied, 403],
      [Code.ResourceExhausted, 429],
      [Code.FailedPrecondition, 400],
      [Code.Unimplemented, 501],
      [Code.Internal, 500],
      [Code.Unavailable, 503],
      [Code.Unauthenticated, 401],
      [99, 500],
    ];
    for (const [code, status] of pairs) expect(httpStatusForCode(code)).toBe(status);
    for (const s of [400, 401, 403, 404, 409, 429, 501, 503, 504]) expect(httpStatusForCode(codeForHttpStatus(s))).toBe(s);
    expect(codeForHttpStatus(502)).toBe(Code.Internal);
    expect(codeForHttpStatus(418)).toBe(Code.Unknown);
  });
});

describe('renderError', () => {
  it('renders an ApiError as one line with the HTTP status and code name', () => {
    const r = renderError(new ApiError(404, Code.NotFound, 'rule ecr-1 not found', [{ x: 1 }]));
    expect(r.exitCode).toBe(5);
    expect(r.line).toBe('rule ecr-1 not found (HTTP 404, NotFound)');
    expect(r.json).toEqual({
      error: { code: 'not_found', message: 'rule ecr-1 not found', hint: null, exitCode: 5, status: 404, details: [{ x: 1 }] },
    });
    expect(r.line).not.toContain('\n');
  });

  it('adds a hint for 401 and 429, and keeps OAuth error strings', () => {
    const auth = renderError(new ApiError(401, 'invalid_token', 'expired'));
    expect([auth.exitCode, auth.line]).toEqual([3, 'expired (HTTP 401, invalid_token)']);
    expect(auth.hint).toMatch(/agctl login/);
    const rate = renderError(ApiError.of(Code.ResourceExhausted, 'slow down'));
    expect([rate.exitCode, rate.hint]).toEqual([8, 'the server is rate limiting; try again later']);
    expect(renderError(new ApiError(500, 77, 'odd')).line).toBe('odd (HTTP 500, code 77)');
    expect(renderError(new ApiError(400, Code.InvalidArgument, 'bad')).exitCode).toBe(7);
    expect(renderError(new ApiError(403, Code.PermissionDenied, 'no')).exitCode).toBe(4);
    expect(renderError(new ApiError(409, Code.AlreadyExists, 'dup')).exitCode).toBe(6);
    expect(renderError(new ApiError(503, Code.Unavailable, 'down')).exitCode).toBe(9);
  });

  it('names every gRPC code in the line; a string code that names none is shown as sent, and kept in JSON', () => {
    for (const [name, n] of Object.entries(Code)) expect(renderError(new ApiError(500, n, 'm')).line).toBe(`m (HTTP 500, ${name})`);
    const r = renderError(new ApiError(409, 'version_mismatch', 'stale'));
    expect([r.exitCode, r.line, r.json.error.code]).toEqual([6, 'stale (HTTP 409, version_mismatch)', 'version_mismatch']);
  });

  it('renders a UsageError as exit 2 with its hint', () => {
    const r = renderError(new UsageError('missing client ID: pass --client-id or set AGCTL_CLIENT_ID', 'try this'));
    expect(r).toEqual({
      exitCode: 2,
      line: 'missing client ID: pass --client-id or set AGCTL_CLIENT_ID',
      hint: 'try this',
      json: {
        error: {
          code: 'usage',
          message: 'missing client ID: pass --client-id or set AGCTL_CLIENT_ID',
          hint: 'try this',
          exitCode: 2,
          status: null,
          details: [],
        },
      },
    });
  });

  it('renders a CliError with its own exit code, status and code', () => {
    const r = renderError(
      new CliError('authentication failed: bad (invalid_client)', Exit.Unauthenticated, { hint: 'h', status: 401, code: 'invalid_client' }),
    );
    expect(r).toEqual({
      exitCode: 3,
      line: 'authentication failed: bad (invalid_client)',
      hint: 'h',
      json: {
        error: {
          code: 'invalid_client',
          message: 'authentication failed: bad (invalid_client)',
          hint: 'h',
          exitCode: 3,
          status: 401,
          details: [],
        },
      },
    });
    expect(renderError(new CliError('pending', Exit.Pending)).json.error).toEqual({
      code: 'pending',
      message: 'pending',
      hint: null,
      exitCode: 10,
      status: null,
      details: [],
    });
  });

  it('renders anything else as an unexpected error (exit 1), without a stack', () => {
    const err = new TypeError('x is undefined');
    const r = renderError(err);
    expect(r.exitCode).toBe(1);
    expect(r.line).toBe('unexpected error: x is undefined');
    expect(r.hint).toMatch(/--debug/);
    expect(JSON.stringify(r)).not.toContain(' at ');
    expect(renderError('plain string').line).toBe('unexpected error: plain string');
    expect(renderError(undefined).exitCode).toBe(1);
  });

  it('renders a cancelled prompt as exit 130', () => {
    const e = Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' });
    expect(renderError(e)).toMatchObject({ exitCode: 130, line: 'cancelled', json: { error: { code: 'cancelled', exitCode: 130 } } });
  });

  it('gives every JSON error one shape: a string code, the message, hint, exit code, status and details', () => {
    const errors = [
      new ApiError(400, Code.FailedPrecondition, 'step moved on'),
      new ApiError(500, 77, 'odd'),
      new ApiError(401, 'invalid_token', 'expired'),
      new UsageError('bad flag'),
      new CliError('timed out', Exit.Server),
      new CliError('loop', Exit.Server, { code: 'paging_loop' }),
      new TypeError('bug'),
      Object.assign(new Error('x'), { name: 'AbortPromptError' }),
    ];
    const codes = errors.map((e) => {
      const r = renderError(e);
      expect(Object.keys(r.json.error)).toEqual(['code', 'message', 'hint', 'exitCode', 'status', 'details']);
      expect(r.json.error.exitCode).toBe(r.exitCode);
      expect(typeof r.json.error.code).toBe('string');
      return r.json.error.code;
    });
    expect(codes).toEqual(['failed_precondition', '77', 'invalid_token', 'usage', 'unavailable', 'paging_loop', 'unexpected', 'cancelled']);
    expect(renderError(new ApiError(400, Code.FailedPrecondition, 'm')).json.error.status).toBe(400);
    expect(renderError(new ApiError(401, 'invalid_token', 'm')).json.error.hint).toMatch(/agctl login/);
  });

  it('shows control characters of messages and hints as escapes; JSON keeps the text', () => {
    const r = renderError(new ApiError(400, Code.InvalidArgument, 'bad \u001b[31mred\u009b\r\n'));
    expect(r.line).toBe('bad \\x1b[31mred\\x9b\\r\\n (HTTP 400, InvalidArgument)');
    expect(r.json.error.message).toBe('bad \u001b[31mred\u009b\r\n');
    const u = renderError(new UsageError('invalid rule ID "\u0007"', 'try \u007f'));
    expect([u.line, u.hint]).toEqual(['invalid rule ID "\\x07"', 'try \\x7f']);
    expect(renderError(new TypeError('x\u001bq')).line).toBe('unexpected error: x\\x1bq');
  });
});

describe('escapeControls', () => {
  it('replaces every C0 and C1 control character and DEL, and nothing else', () => {
    expect(escapeControls('a\tb\nc\rd\u0000\u001b\u007f\u0080\u009f')).toBe('a\\tb\\nc\\rd\\x00\\x1b\\x7f\\x80\\x9f');
    expect(escapeControls('plain é ✓ \u00a0 \\')).toBe('plain é ✓ \u00a0 \\');
    expect(escapeControls('a\nb\u001b', '\n')).toBe('a\nb\\x1b');
    for (let c = 0; c < 0x100; c++) {
      const out = escapeControls(String.fromCharCode(c));
      expect(/[\u0000-\u001f\u007f-\u009f]/.test(out), `U+${c.toString(16)}`).toBe(false);
    }
  });

  it('safeJson also escapes DEL and C1, which JSON.stringify leaves raw', () => {
    const s = safeJson({ m: 'a\u001b\u007f\u009b' });
    expect(s).toBe('{"m":"a\\u001b\\u007f\\u009b"}');
    expect(JSON.parse(s)).toEqual({ m: 'a\u001b\u007f\u009b' });
  });
});
