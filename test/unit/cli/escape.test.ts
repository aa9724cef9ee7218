// Invisible characters (bidi controls, zero-width and other format characters,
// default-ignorable code points) from a server show as visible escapes, as
// control characters do: in the one escaping home, src/cli/escape.ts.
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { escapeControls, safeJson } from '../../../src/cli/escape.js';
import { shellCommand, shellQuote } from '../../../src/cli/shell-quote.js';
import { Output, fitTable, visible } from '../../../src/cli/output.js';
import type { IO } from '../../../src/cli/io.js';

/** Bidi controls (Trojan Source, CVE-2021-42574). */
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
/** Characters that take no room: two IDs differing only by one print alike. */
const ZERO_WIDTH = [
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u180e',
  '\u2061',
  '\u2064',
  '\u206a',
  '\u206f',
  '\ufff9',
  '\ufffb',
  '\u3164',
  '\ufe0f',
  '\u{e0001}',
  '\u{e0041}',
  '\u{e007f}',
  '\u2028',
  '\u2029',
];

describe('escapeControls: invisible characters', () => {
  it.each([...BIDI, ...ZERO_WIDTH].map((c) => [`U+${c.codePointAt(0)!.toString(16)}`, c]))('%s shows as an escape', (_, c) => {
    const code = c.codePointAt(0)!;
    const expected =
      code < 0x100 ? `\\x${code.toString(16)}` : code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
    expect(escapeControls(`a${c}b`)).toBe(`a${expected}b`);
  });

  it('shows a Trojan Source line as it is stored, and IDs differing only by a zero-width space apart', () => {
    expect(escapeControls('r-001\u202e\u2066// ok\u2069\u2066')).toBe('r-001\\u202e\\u2066// ok\\u2069\\u2066');
    expect(escapeControls('r-001')).not.toBe(escapeControls('r-\u200b001'));
    // Visible text stays as it is: accents, symbols, wide characters, a no-break space, an emoji.
    expect(escapeControls('é ✓ 漢字 \u00a0 🔥 Ωmega')).toBe('é ✓ 漢字 \u00a0 🔥 Ωmega');
  });

  it('safeJson writes them as JSON escapes: the same value, nothing raw', () => {
    const value = { id: 'r-\u202e1', tag: 'x\u{e0041}', zw: 'a\u200bb' };
    const s = safeJson(value, 2);
    expect(s).toContain('"r-\\u202e1"');
    expect(s).toContain('"x\\udb40\\udc41"');
    expect(s).not.toMatch(/[\u202e\u200b]|\u{e0041}/u);
    expect(JSON.parse(s)).toEqual(value);
  });

  it('a table measures the escapes: a cell with a bidi control is as wide as its escaped text', () => {
    const cell = escapeControls('ab\u202e\u200b');
    expect(cell).toBe('ab\\u202e\\u200b');
    expect(visible(cell)).toBe(cell.length);
    expect(
      fitTable(
        [
          ['ID', 1],
          ['NAME', 2],
        ],
        [[cell, 'x']],
        undefined,
      ),
    ).toEqual({ keep: [0, 1], widths: [cell.length, 4] });
  });

  it('a table on a 40-column terminal: escaped cells, every line within the width, columns aligned', async () => {
    let text = '';
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 40 });
    stdout.on('data', (d) => (text += String(d)));
    const io = {
      stdin: new PassThrough(),
      stdout,
      stderr: new PassThrough(),
      isStdoutTTY: true,
      isStdinTTY: false,
      isStderrTTY: false,
    } as unknown as IO;
    // Raw, the bidi controls and zero-width spaces take no columns (string-width counts 0), so the table would be measured narrower than it prints escaped.
    const name = `${'\u202e\u2066\u200b'.repeat(4)}x`;
    await new Output(io, 'table', false).table(
      ['ID', 'NAME', 'STATE'],
      [
        [`r-\u200b1`, name, 'on'],
        ['r-2', 'plain name', 'off'],
      ],
    );
    const lines = text.trimEnd().split('\n');
    expect(text).not.toMatch(/[\u202e\u2066\u200b]/u);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(40);
    expect(lines[1]).toMatch(/^r-\\u200b1 {2}/);
    const stateAt = lines[0]!.indexOf('STATE');
    expect(lines.slice(1).map((l) => l.search(/(on|off)$/))).toEqual([stateAt, stateAt]);
  });
});

describe('commands to paste', () => {
  it('shellQuote writes invisible characters in ANSI-C quotes, never raw', () => {
    expect(shellQuote('a\u202eb')).toBe("$'a\\u202eb'");
    expect(shellQuote('a\u{e0041}')).toBe("$'a\\U000e0041'");
  });

  it.each(['bash', 'zsh'].filter((sh) => spawnSync(sh, ['-c', 'true']).status === 0))('%s reads them back exactly', (sh) => {
    const values = ['a\u202eb', 'r-\u200b001', 'x\u{e0041}\ufeff', "it's \u2066x\u2069"];
    const script = values.map((v) => `printf '%s\\0' ${shellQuote(v)}`).join('\n');
    expect(script).not.toMatch(/[\u202e\u200b\ufeff\u2066\u2069]|\u{e0041}/u);
    const r = spawnSync(sh, ['-c', script], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\0').slice(0, -1)).toEqual(values);
  });

  it('shellCommand gives no command to paste when a word holds one, and says which', () => {
    expect(shellCommand(['agctl', 'task', 'get', 't 1'])).toEqual({ line: "agctl task get 't 1'" });
    expect(shellCommand(['agctl', 'task', 'get', 't\n1'])).toEqual({ line: "agctl task get $'t\\n1'" });
    const r = shellCommand(['agctl', 'task', 'approve-step-up', 't\u202e1', '--step', 's\u200b1']);
    expect(r).toEqual({ why: 'a value in it holds U+202E, U+200B, a character that reorders or hides text' });
  });
});
