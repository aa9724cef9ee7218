// The pure part of agctl doctor: an error in one bounded line (the store's
// own messages are tested with it, test/unit/server/store-sqlite.test.ts).
import { describe, expect, it } from 'vitest';
import { describeError } from '../../../src/cli/commands/doctor/store.js';

describe('describeError', () => {
  it('keeps the first line, at most 300 characters', () => {
    expect(describeError(new Error('disk on fire\n    at x (y.js:1:1)'))).toBe('disk on fire');
    expect(describeError('x'.repeat(400))).toHaveLength(301);
    expect(describeError({ message: '' })).toBe('[object Object]');
  });
});
