// README.md's table of environment variables comes from the declarations
// `agctl help environment` prints: this test fails when a variable, flag or
// meaning changed and `npm run docs` (scripts/gen-docs.mjs) was not run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ENV_END,
  ENV_START,
  environment,
  environmentMarkdown,
  exitCodesMarkdown,
  withEnvironmentTable,
  withGeneratedTable,
} from '../../src/cli/environment.js';
import { EXIT_CODE_TABLE } from '../../src/lib/exit.js';
import { buildProgram } from '../../src/cli/program.js';
import { ROOT } from '../helpers/cli.js';

describe('README environment table', () => {
  it('is what the declarations generate', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const vars = environment(await buildProgram());
    expect(withEnvironmentTable(readme, environmentMarkdown(vars))).toBe(readme);
    // every declared variable is in it, with its flag when it has one
    for (const v of vars) expect(readme).toContain(`| \`${v.name}\` |`);
    expect(readme).toContain('| `--timeout SECONDS` | `AGCTL_TIMEOUT` |');
  });

  it('README exit-code table is the one `agctl help exit-codes` prints', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(withGeneratedTable(readme, 'exit-codes', exitCodesMarkdown())).toBe(readme);
    for (const [code] of EXIT_CODE_TABLE) expect(readme).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });

  it('replaces only what is between the markers', () => {
    const doc = `a\n${ENV_START}\nold\n${ENV_END}\nb\n`;
    expect(withEnvironmentTable(doc, 'new\n')).toBe(`a\n${ENV_START}\nnew\n${ENV_END}\nb\n`);
    expect(() => withEnvironmentTable('no markers', 'x')).toThrow(/env:start/);
  });

  it('escapes a | inside a cell', () => {
    expect(environmentMarkdown([{ name: 'X', meaning: 'a|b', flag: '-o t|j' }])).toContain('| `-o t\\|j` | `X` | a\\|b |');
  });
});
