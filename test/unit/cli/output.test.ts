// Tables on a terminal fit its width; on a pipe they are plain, whole columns.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../../src/cli/io.js';
import { Output, fitColumns } from '../../../src/cli/output.js';

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

  it('never narrows a column below 10, nor a shorter column at all', () => {
    const w = fitColumns(HEAD, ROWS.map((r) => r.map(String)), 10)!;
    expect(w).toEqual([10, 9, 10, 9, 10]);
  });
});
