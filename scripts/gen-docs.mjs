#!/usr/bin/env node
// Regenerates README.md's table of environment variables (between
// <!-- env:start --> and <!-- env:end -->) from the declarations that
// `agctl help environment` prints, using the program tree from src/ (run by tsx), and its
// table of exit codes (<!-- exit-codes:... -->) from the one `agctl help
// exit-codes` prints.
// `--check` exits 1 when README.md differs instead of writing it.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const { buildProgram } = await import(join(root, 'src', 'cli', 'program.ts'));
const { environment, environmentMarkdown, withEnvironmentTable, withGeneratedTable, exitCodesMarkdown } = await import(
  join(root, 'src', 'cli', 'environment.ts')
);
const file = join(root, 'README.md');
const current = readFileSync(file, 'utf8');
const text = withGeneratedTable(
  withEnvironmentTable(current, environmentMarkdown(environment(await buildProgram()))),
  'exit-codes',
  exitCodesMarkdown(),
);
if (text === current) process.exit(0);
if (process.argv.includes('--check')) {
  console.error('README.md is out of date: run npm run docs');
  process.exit(1);
}
writeFileSync(file, text);
console.log('wrote README.md');
