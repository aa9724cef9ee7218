// `agctl --help` and `agctl <group> --help` print pages made by the build
// (dist/help.json, printed by bin/agctl.js without the program tree): each must
// be what commander prints for the current sources, so the built pages cannot
// go stale. A terminal narrower than the pages gets help wrapped to its width.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { buildProgram } from '../../../src/cli/program.js';
import { ROOT, spawnCliProcess, tempDir } from '../../helpers/cli.js';
import { fakeIO } from '../../helpers/io.js';

const work = tempDir('agctl-built-help-');
const built = JSON.parse(readFileSync(join(ROOT, 'dist', 'help.json'), 'utf8')) as { width: number; pages: Record<string, string> };
const groups = (await buildProgram()).commands.filter((c) => c.commands.length > 0).map((c) => c.name());

/** What commander prints for `args` (main() in this process, on a pipe or a terminal `columns` wide). */
async function commanderHelp(args: string[], columns?: number): Promise<string> {
  const f = fakeIO({ tty: columns !== undefined });
  if (columns !== undefined) Object.assign(f.io.stdout, { columns });
  expect(await main(['node', 'agctl', ...args], { io: f.io, env: {} })).toBe(0);
  return f.out();
}

describe('the help pages made by the build', () => {
  it('are the root and every command group', () => {
    expect(groups).toEqual(expect.arrayContaining(['auth', 'rules', 'mcp', 'task', 'webhook']));
    expect(Object.keys(built.pages).sort()).toEqual(['', ...groups].sort());
  });

  it.each(['', ...groups])('%s: the built page is what commander prints, and what the launcher prints', async (group) => {
    const args = group ? [group, '--help'] : ['--help'];
    const expected = await commanderHelp(args);
    expect(built.pages[group]).toBe(expected);
    // The same at a terminal at least as wide as the pages: help is never wider than them.
    expect(await commanderHelp(args, built.width + 40)).toBe(expected);
    const r = await spawnCliProcess(args, { configDir: join(work, 'config') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected);
  });

  it('a narrower terminal gets the help wrapped to its width by commander', async () => {
    const narrow = await commanderHelp(['rules', '--help'], 50);
    expect(narrow).not.toBe(built.pages.rules);
    expect(narrow.split('\n').filter((l) => l.length > 50)).toEqual([]);
  });
});
