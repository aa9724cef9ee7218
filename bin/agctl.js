#!/usr/bin/env node
// Thin launcher: the built entry point (dist/, see scripts/build.mjs) does all
// the work on this process's streams and environment; its result is the exit
// code. `--version` is answered here from package.json, and `--help`
// (`<group> --help`) from the pages the build made (dist/help.json), loading
// nothing else.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const isHelp = (a) => a === '--help' || a === '-h';

/** The built help page a command line asks for ('' the root's, else a group's), or undefined. */
function builtHelp() {
  const name = args.length === 1 && isHelp(args[0]) ? '' : args.length === 2 && isHelp(args[1]) ? args[0] : undefined;
  if (name === undefined) return undefined;
  let built;
  try {
    built = JSON.parse(readFileSync(new URL('../dist/help.json', import.meta.url), 'utf8'));
  } catch {
    return undefined; // not built (yet): the program says so
  }
  // A terminal narrower than the pages: the program wraps the help to it.
  if (process.stdout.isTTY && process.stdout.columns && process.stdout.columns < built.width) return undefined;
  return Object.hasOwn(built.pages, name) ? built.pages[name] : undefined;
}

const help = builtHelp();
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.on('error', () => {}); // a closed pipe (agctl -V | true) is no error
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else if (help !== undefined) {
  process.stdout.on('error', () => {});
  process.stdout.write(help);
} else {
  import('../dist/cli/main.js')
    .then(async (m) => {
      // startedAt 0: the process's start (performance.timeOrigin), where a completion's time budget begins
      process.exitCode = await m.main(process.argv, { io: m.processIO(), env: process.env, startedAt: 0 });
    })
    .catch((err) => {
      if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
        process.stderr.write('agctl: not built yet; run `npm run build` (npm install does it for you)\n');
        process.exit(1);
      }
      process.stderr.write(`agctl: ${err?.stack ? err.stack : err}\n`);
      process.exit(1);
    });
}
