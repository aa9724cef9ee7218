// Values quoted for a POSIX shell, in the commands agctl prints for the user to copy.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../../src/cli/shell-quote.js';

describe('shellQuote', () => {
  it('quotes shell arguments only when needed', () => {
    expect(shellQuote('3MRDWnd7GeWPMoSDtJYbtJEXKxQ')).toBe('3MRDWnd7GeWPMoSDtJYbtJEXKxQ');
    expect(shellQuote('*')).toBe("'*'");
    expect(shellQuote("it's fine")).toBe(`'it'\\''s fine'`);
    expect(shellQuote('$(rm -rf /)')).toBe("'$(rm -rf /)'");
  });

  it('quotes for a POSIX shell, control characters in ANSI-C quotes', () => {
    expect(shellQuote('abc-1.2/x')).toBe('abc-1.2/x');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('$HOME')).toBe("'$HOME'");
    // Control characters: one line in ANSI-C quotes, nothing raw.
    expect(shellQuote("a\nb's\\\u001b[2J")).toBe("$'a\\nb\\'s\\\\\\x1b[2J'");
  });

  it.each(['bash', 'zsh'].filter((sh) => spawnSync(sh, ['-c', 'true']).status === 0))(
    'gives back every value exactly when %s reads it',
    (sh) => {
      const values = [
        "it's",
        'a b',
        '$HOME `x`',
        'line 1\nline 2\ttab\r',
        "\u001b]0;title\u0007 \u001b[2J'\\",
        'C1 \u009b31m and DEL \u007f',
        'x\u001bA\u009bF',
        'ünïcode ✓ 漢字',
      ];
      const script = values.map((v) => `printf '%s\\0' ${shellQuote(v)}`).join('\n');
      expect(script).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      const r = spawnSync(sh, ['-c', script], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.split('\0').slice(0, -1)).toEqual(values);
    },
  );
});
