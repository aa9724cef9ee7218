// Error answers as a tenant may send them (service-notes.md §5): a numeric or
// a string `code`, with or without a message, or no JSON at all. The HTTP
// status decides the exit code; without a message the body itself is shown.
import { describe, expect, it } from 'vitest';
import { type ApiError, Code, parseCode } from '../../../src/api/errors.js';
import { MAX_MESSAGE_BYTES, bodyExcerpt, errorFromResponse, serverMessage } from '../../../src/client/api.js';
import { httpResponse } from '../../helpers/http-response.js';
import { renderError } from '../../../src/cli/errors.js';

const res = (status: number, body: unknown) => httpResponse(status, body, { 'content-type': 'application/json' });
const apiError = (status: number, body: unknown) => errorFromResponse(res(status, body)) as ApiError;

describe('parseCode', () => {
  it('maps gRPC code names in any case, with or without underscores, to their numbers', () => {
    const names: [string, number][] = [
      ['not_found', Code.NotFound],
      ['NOT_FOUND', Code.NotFound],
      ['NotFound', Code.NotFound],
      ['Not_Found', Code.NotFound],
      ['invalid_argument', Code.InvalidArgument],
      ['permission_denied', Code.PermissionDenied],
      ['unauthenticated', Code.Unauthenticated],
      ['already_exists', Code.AlreadyExists],
      ['resource_exhausted', Code.ResourceExhausted],
      ['failed_precondition', Code.FailedPrecondition],
      ['out_of_range', Code.OutOfRange],
      ['data_loss', Code.DataLoss],
      ['deadline_exceeded', Code.DeadlineExceeded],
      ['cancelled', Code.Cancelled],
      ['canceled', Code.Cancelled],
      ['internal', Code.Internal],
      ['unavailable', Code.Unavailable],
      ['unimplemented', Code.Unimplemented],
      ['aborted', Code.Aborted],
      ['unknown', Code.Unknown],
      [' not_found ', Code.NotFound],
    ];
    for (const [name, n] of names) expect([name, parseCode(name)]).toEqual([name, n]);
  });

  it('keeps integers and digit strings as numbers, other strings as sent, and ignores the rest', () => {
    expect([parseCode(5), parseCode(77), parseCode('5'), parseCode('07')]).toEqual([5, 77, 5, 7]);
    expect([parseCode('quota_exceeded'), parseCode('not-found')]).toEqual(['quota_exceeded', 'not-found']);
    for (const v of [undefined, null, '', '  ', 1.5, Number.NaN, true, {}, [5]]) expect(parseCode(v)).toBeUndefined();
  });
});

describe('errorFromResponse', () => {
  it('understands a string code with a message; the status still decides the exit code', () => {
    const e = apiError(404, { code: 'not_found', message: 'rule ecr-9 not found' });
    expect([e.status, e.code, e.message, e.details]).toEqual([404, Code.NotFound, 'rule ecr-9 not found', []]);
    const r = renderError(e);
    expect([r.exitCode, r.line]).toEqual([5, 'rule ecr-9 not found (HTTP 404, NotFound)']);
    expect(r.json).toEqual({
      error: { code: 'not_found', message: 'rule ecr-9 not found', hint: null, exitCode: 5, status: 404, details: [] },
    });
    // a code that disagrees with the status: the status decides
    expect(renderError(apiError(400, { code: 'not_found', message: 'x' })).exitCode).toBe(7);
    // a string that names no gRPC code is kept as sent
    const odd = renderError(apiError(429, { code: 'quota_exceeded', message: 'slow down', details: [{ a: 1 }] }));
    expect([odd.exitCode, odd.line, odd.json.error.code, odd.json.error.details]).toEqual([
      8,
      'slow down (HTTP 429, quota_exceeded)',
      'quota_exceeded',
      [{ a: 1 }],
    ]);
  });

  it('shows the body when the message is missing or empty, never just "HTTP n"', () => {
    const noMessage = apiError(400, { code: 'invalid_argument' });
    expect([noMessage.code, noMessage.message]).toEqual([
      Code.InvalidArgument,
      'the server\'s answer has no message: {"code":"invalid_argument"}',
    ]);
    expect(renderError(noMessage).line).toBe(
      'the server\'s answer has no message: {"code":"invalid_argument"} (HTTP 400, InvalidArgument)',
    );
    const blank = apiError(409, { code: 6, message: ' ' });
    expect([blank.code, blank.message]).toEqual([6, 'the server\'s answer has no message: {"code":6,"message":" "}']);
    // no code and no message: the code follows the status, the body is shown
    const bare = apiError(500, { detail: 'database down' });
    expect([bare.code, bare.message]).toEqual([Code.Internal, 'the server\'s answer has no message: {"detail":"database down"}']);
    const html = apiError(502, '<html>\n  <body>Bad\tgateway</body>\n</html>\n');
    expect([html.code, html.message]).toEqual([
      Code.Internal,
      "the server's answer has no message: <html> <body>Bad gateway</body> </html>",
    ]);
    const empty = apiError(500, '');
    expect(empty.message).toBe("the server's answer is empty");
    for (const e of [noMessage, blank, bare, html, empty]) expect(e.message).not.toMatch(/^the server answered HTTP/);
  });

  it('keeps a message given with an integer code, and OAuth errors', () => {
    const e = apiError(400, { code: 3, message: 'bad', details: [{ x: 1 }] });
    expect([e.code, e.message, e.details]).toEqual([3, 'bad', [{ x: 1 }]]);
    const oauth = apiError(401, { error: 'invalid_client' });
    expect([oauth.code, oauth.message]).toEqual(['invalid_client', 'invalid_client']);
  });

  it('cuts a long body to one line of about 200 characters; control characters are escaped when printed', () => {
    const long = `<html>${'\r\n  x\u001b[2J'.repeat(300)}</html>`;
    const e = apiError(503, long);
    const r = renderError(e);
    expect(r.line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(r.line).toMatch(/^the server's answer has no message: <html> x\\x1b\[2J x\\x1b\[2J .*… \(HTTP 503, Unavailable\)$/);
    const shown = Array.from(e.message.slice("the server's answer has no message: ".length)).length;
    expect(shown).toBeGreaterThan(190);
    expect(shown).toBeLessThanOrEqual(200);
    expect(r.json.error.message).toBe(e.message);
  });
});

describe('bodyExcerpt', () => {
  it('joins white space into single spaces and cuts at 200 characters, never inside a character', () => {
    expect(bodyExcerpt('  a \n\n b\t ')).toBe('a b');
    expect(bodyExcerpt('x'.repeat(200))).toBe('x'.repeat(200));
    expect(bodyExcerpt('x'.repeat(201))).toBe(`${'x'.repeat(199)}…`);
    const emoji = bodyExcerpt('😀'.repeat(300));
    expect(Array.from(emoji)).toHaveLength(200);
    expect(emoji).toBe(`${'😀'.repeat(199)}…`);
    expect(bodyExcerpt(`${' '.repeat(5000)}late`)).toBe('late');
  });
});

describe('serverMessage', () => {
  it('keeps a message of at most MAX_MESSAGE_BYTES; cuts a longer one at a character, telling the bytes left out', () => {
    expect(serverMessage('a'.repeat(MAX_MESSAGE_BYTES))).toBe('a'.repeat(MAX_MESSAGE_BYTES));
    expect(serverMessage('a'.repeat(MAX_MESSAGE_BYTES + 10))).toBe(`${'a'.repeat(MAX_MESSAGE_BYTES)}…(10 bytes more)`);
    // 3 bytes each in UTF-8: 682 fit in 2048 bytes; the rest are 2 characters left out.
    const euros = '€'.repeat(684);
    expect(serverMessage(euros)).toBe(`${'€'.repeat(682)}…(${684 * 3 - 682 * 3} bytes more)`);
    // A character of two UTF-16 units is never split.
    expect(serverMessage(`a${'😀'.repeat(600)}`)).toBe(`a${'😀'.repeat(511)}…(${600 * 4 - 511 * 4} bytes more)`);
  });

  it('a long string code is cut too', () => {
    const e = apiError(400, { code: 'c'.repeat(5000), message: 'm' });
    expect(e.code).toBe(`${'c'.repeat(99)}…`);
  });
});
