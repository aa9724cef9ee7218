#!/usr/bin/env node
// Regenerates completions/agctl.{bash,zsh,fish} from the program tree (dist/).
// `--check` exits 1 when a checked-in file differs instead of writing it.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const { buildProgram } = await import(join(root, 'dist', 'cli', 'program.js'));
const { SHELLS } = await import(join(root, 'dist', 'cli', 'completion.js'));
const check = process.argv.includes('--check');
let stale = 0;
for (const [shell, gen] of Object.entries(SHELLS)) {
  const file = join(root, 'completions', `agctl.${shell}`);
  const text = gen(await buildProgram());
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {}
  if (current === text) continue;
  if (check) {
    console.error(`completions/agctl.${shell} is out of date: run npm run completions`);
    stale++;
  } else {
    writeFileSync(file, text);
    console.log(`wrote completions/agctl.${shell}`);
  }
}
process.exit(stale ? 1 : 0);
