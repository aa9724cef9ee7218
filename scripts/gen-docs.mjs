#!/usr/bin/env node
// Regenerates README.md's table of environment variables (between
// <!-- env:start --> and <!-- env:end -->) from the declarations that
// `agctl help environment` prints, using the program tree in dist/.
// `--check` exits 1 when README.md differs instead of writing it.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const { buildProgram } = await import(join(root, 'dist', 'cli', 'program.js'));
const { environment, environmentMarkdown, withEnvironmentTable } = await import(join(root, 'dist', 'cli', 'environment.js'));
const file = join(root, 'README.md');
const current = readFileSync(file, 'utf8');
const text = withEnvironmentTable(current, environmentMarkdown(environment(await buildProgram())));
if (text === current) process.exit(0);
if (process.argv.includes('--check')) {
  console.error('README.md is out of date: run npm run docs');
  process.exit(1);
}
writeFileSync(file, text);
console.log('wrote README.md');
