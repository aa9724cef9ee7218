#!/usr/bin/env node
// npm run bench: every benchmark, each reported as a ratio to a baseline
// measured in the same run. Loopback only; bounded in count and time.
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const here = fileURLToPath(new URL('.', import.meta.url));
if (!existsSync(join(here, '..', '..', 'dist', 'cli', 'main.js'))) {
  console.error('bench: dist/ is missing; run `npm run build` first');
  process.exit(1);
}
const only = process.argv.slice(2);
for (const file of [
  'startup.mjs',
  ...readdirSync(here)
    .filter((f) => f.endsWith('.mjs') && !['run.mjs', 'lib.mjs', 'startup.mjs'].includes(f))
    .sort(),
]) {
  if (only.length && !only.some((o) => file.startsWith(o))) continue;
  const mod = await import(pathToFileURL(join(here, file)).href);
  if (typeof mod.run === 'function') await mod.run();
}
