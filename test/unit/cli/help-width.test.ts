// Every help page fits 80 columns (on a pipe, or a terminal 80 columns wide), as gh's do.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { main } from '../../../src/cli/main.js';
import { buildProgram, walk } from '../../../src/cli/program.js';
import { fakeIO } from '../../helpers/io.js';

const path = (cmd: Command): string[] => (cmd.parent ? [...path(cmd.parent), cmd.name()] : []);
const pages = [...walk(await buildProgram())].filter((c) => c.name() !== '__complete').map(path);

describe('help pages', () => {
  it('are many (the whole tree is walked)', () => expect(pages.length).toBeGreaterThan(25));

  it.each(pages.map((p) => [p.join(' ') || '(agctl)', p]))('%s --help: no line over 80 columns', async (_, words) => {
    const f = fakeIO();
    const code = await main(['node', 'agctl', ...(words as string[]), '--help'], { io: f.io, env: {} });
    expect(code).toBe(0);
    const long = f
      .out()
      .split('\n')
      .filter((l) => l.length > 80);
    expect(long).toEqual([]);
  });
});
