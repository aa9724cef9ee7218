#!/usr/bin/env node
// Thin launcher: the built entry point (dist/, see scripts/build.mjs) does all
// the work on this process's streams and environment; its result is the exit
// code. `--version` is answered here from package.json, loading nothing else.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.on('error', () => {}); // a closed pipe (agctl -V | true) is no error
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  import('../dist/cli/main.js').then(async (m) => {
    // startedAt 0: the process's start (performance.timeOrigin), where a completion's time budget begins
    process.exitCode = await m.main(process.argv, { io: m.processIO(), env: process.env, startedAt: 0 });
  }).catch((err) => {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
      process.stderr.write('agctl: not built yet; run `npm run build` (npm install does it for you)\n');
      process.exit(1);
    }
    process.stderr.write(`agctl: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
}
