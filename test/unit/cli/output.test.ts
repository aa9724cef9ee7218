// Tables on a terminal fit its width; on a pipe they are plain, whole columns.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../../src/cli/io.js';
import { Output, fitColumns, plainColumns, visible } from '../../../src/cli/output.js';

function capture(tty: boolean, columns?: number) {
  let text = '';
  const stdout = Object.assign(new PassThrough(), { isTTY: tty, columns });
  stdout.on('data', (d) => (text += String(d)));
  const io = { stdin: new PassThrough(), stdout, stderr: new PassThrough(), isStdoutTTY: tty, isStdinTTY: false, isStderrTTY: false } as unknown as IO;
  return { out: new Output(io, 'table', false), text: () => text };
}

const HEAD = ['PRIORITY', 'ID', 'NAME', 'ENABLED', 'CONDITION'];
const ROWS = [
  [10, 'ecr-001', 'Route 1: Sales and marketing', 'yes', 'subject.department == "Sales" && subject.region == "EMEA"'],
  [20, 'ecr-002', 'Route 2: Engineering', 'no', 'subject.department == "Engineering"'],
];

describe('Output.table', () => {
  it.each([80, 60])('fits a %i-column terminal, cutting the widest cells with …', async (columns) => {
    const c = capture(true, columns);
    await c.out.table(HEAD, ROWS);
    const lines = c.text().trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(columns);
    expect(c.text()).toContain('…');
    expect(c.text()).toContain('ecr-001');
  });

  it('leaves a table that fits, or one on a pipe, whole', async () => {
    const wide = capture(true, 200);
    await wide.out.table(HEAD, ROWS);
    expect(wide.text()).toContain('subject.department == "Sales" && subject.region == "EMEA"');
    const pipe = capture(false, 40);
    await pipe.out.table(HEAD, ROWS);
    expect(pipe.text()).toContain('subject.department == "Sales" && subject.region == "EMEA"');
  });

  it('shows records instead of a table on a terminal too narrow for its columns', async () => {
    const c = capture(true, 40);
    await c.out.table(HEAD, ROWS);
    const text = c.text();
    for (const l of text.trimEnd().split('\n')) expect(l.length, l).toBeLessThanOrEqual(40);
    expect(text).toBe(
      [
        'PRIORITY   10',
        'ID         ecr-001',
        'NAME       Route 1: Sales and marketing',
        'ENABLED    yes',
        'CONDITION  subject.department == "Sales…',
        '',
        'PRIORITY   20',
        'ID         ecr-002',
        'NAME       Route 2: Engineering',
        'ENABLED    no',
        'CONDITION  subject.department == "Engin…',
        '',
      ].join('\n'),
    );
    // Wide enough for the shortened columns: still a table.
    const table = capture(true, 60);
    await table.out.table(HEAD, ROWS);
    expect(table.text()).toMatch(/^┌/);
  });

  it('never narrows a column below 10, nor a shorter column at all', () => {
    const w = fitColumns(HEAD, ROWS.map((r) => r.map(String)), 10)!;
    expect(w).toEqual([10, 9, 10, 9, 10]);
  });
});

describe('plainColumns (piped tables)', () => {
  it('draws what cli-table3 draws without borders, for any plain text', async () => {
    const { default: Table } = await import('cli-table3');
    const none = { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '' };
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const word = () => Array.from({ length: rnd(12) }, () => 'abcXYZ09 ._-=>"'[rnd(15)]).join('');
    for (let t = 0; t < 50; t++) {
      const cols = 1 + rnd(6);
      const head = Array.from({ length: cols }, () => word().toUpperCase() || 'H');
      const rows = Array.from({ length: rnd(8) }, () => Array.from({ length: cols }, word));
      const table = new Table({ head, chars: none, style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 } });
      for (const r of rows) table.push(r);
      const expected = table.toString().split('\n').map((l) => l.trimEnd()).join('\n') + '\n';
      expect(plainColumns(head, rows), JSON.stringify({ head, rows })).toBe(expected);
    }
  });

  it('aligns wide characters and colour codes by the columns they take', () => {
    const out = plainColumns(['NAME', 'ID'], [['\u001b[32m漢字\u001b[39m', 'a'], ['ab', 'b'], ['e\u0301', 'c']]);
    expect(out.replace(/\u001b\[\d+m/g, '')).toBe('NAME  ID\n漢字  a\nab    b\ne\u0301     c\n');
    expect(visible('漢字')).toBe(4);
    expect(visible('🙂x')).toBe(3);
  });
});
