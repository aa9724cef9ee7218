// Paging of the embedded server's list routes: page sizes and page tokens.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { decodePageToken, pageOf, parsePageSize } from '../../../src/server/paging.js';

const isKey = (v: unknown): v is { i: string } => typeof v === 'object' && v !== null && typeof (v as { i?: unknown }).i === 'string';

describe('server paging', () => {
  it('a page of rows read with one extra: the page, and a token naming its last row (none at the end)', () => {
    const rows = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    const first = pageOf(rows, 2, (r) => ({ i: r.id }));
    expect(first.page).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(decodePageToken(first.nextPageToken, isKey, 'page_token')).toEqual({ i: 'b' });
    expect(pageOf(rows.slice(2), 2, (r) => ({ i: r.id }))).toEqual({ page: [{ id: 'c' }], nextPageToken: '' });
  });

  it('a token this server did not issue is InvalidArgument naming the member', () => {
    for (const token of ['not base64 json', Buffer.from('{"x":1}').toString('base64url')]) {
      expect(() => decodePageToken(token, isKey, 'pageToken')).toThrow(ApiError);
      expect(() => decodePageToken(token, isKey, 'pageToken')).toThrow('pageToken is not a valid page token');
    }
  });

  it('page_size: absent or 0 is the default, more than the cap is the cap, anything else not a number is refused', () => {
    expect(parsePageSize(null, 50, 500)).toBe(50);
    expect(parsePageSize('', 50, 500)).toBe(50);
    expect(parsePageSize('0', 50, 500)).toBe(50);
    expect(parsePageSize('7', 50, 500)).toBe(7);
    expect(parsePageSize('9999', 50, 500)).toBe(500);
    for (const raw of ['-1', '1.5', 'ten']) expect(() => parsePageSize(raw, 50, 500)).toThrow('page_size must be a non-negative integer');
  });
});
