import { describe, expect, it } from 'vitest';
import { clean, formatDuration, resumeCommand, shellQuote } from '../../../src/cli/commands/task/approve-step-up.js';

describe('approve-step-up helpers', () => {
  it('quotes shell arguments only when needed', () => {
    expect(shellQuote('3MRDWnd7GeWPMoSDtJYbtJEXKxQ')).toBe('3MRDWnd7GeWPMoSDtJYbtJEXKxQ');
    expect(shellQuote('*')).toBe("'*'");
    expect(shellQuote("it's fine")).toBe(`'it'\\''s fine'`);
    expect(shellQuote('$(rm -rf /)')).toBe("'$(rm -rf /)'");
  });

  it('builds a resume command carrying the global flags that were given', () => {
    const args = { taskId: 't1', stepId: 's1', txId: '0f8fad5b-d9cb-469f-a165-70867728950e', comment: '', expand: undefined };
    expect(resumeCommand({ flags: {} }, args)).toBe('agctl task approve-step-up t1 --step s1 --transaction-id 0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(resumeCommand({ flags: { profile: 'ci', embedded: true } }, { ...args, comment: 'ok for Q3', expand: 'app,approvers' })).toBe(
      "agctl --profile ci --embedded task approve-step-up t1 --step s1 --transaction-id 0f8fad5b-d9cb-469f-a165-70867728950e --comment 'ok for Q3' --expand app,approvers",
    );
  });

  it('formats wait durations and strips control characters from server text', () => {
    expect(formatDuration(300_000)).toBe('5m00s');
    expect(formatDuration(61_500)).toBe('1m02s');
    expect(formatDuration(999)).toBe('1s');
    expect(clean('Task\x1b[31m red\r\n')).toBe('Task?[31m red??');
  });
});
