#!/usr/bin/env node
// Thin launcher: the compiled entry point does all the work on this process's
// streams and environment; its result is the exit code.
import('../dist/cli/main.js').then(async (m) => {
  process.exitCode = await m.main(process.argv, { io: m.processIO(), env: process.env });
}).catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
    process.stderr.write('agctl: not built yet; run `npm run build` (npm install does it for you)\n');
    process.exit(1);
  }
  process.stderr.write(`agctl: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
