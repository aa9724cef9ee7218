// Preloaded (NODE_OPTIONS=--import) into a spawned agctl to cut it short at a
// chosen step: the process kills itself (SIGKILL, as a power cut or `kill -9`
// would) right after its Nth change under AGCTL_TEST_KILL_DIR: a file written,
// renamed into place, linked or removed there. A test runs a command with N =
// 1, 2, 3, ... until it finishes uncut, and so stops it after each of its
// steps in turn. AGCTL_TEST_KILL_LOG, when set, names a file where each change
// is written as it happens (for a failing test's message). Read only here:
// agctl itself knows nothing of it.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const after = Number(process.env.AGCTL_TEST_KILL_AFTER);
const dir = process.env.AGCTL_TEST_KILL_DIR;
const log = process.env.AGCTL_TEST_KILL_LOG;
const appendFileSync = fs.appendFileSync;
let changes = 0;
/** Writing the log is no change of the command's (appendFileSync writes through writeFileSync). */
let logging = false;

function changed(what, path) {
  if (logging || !dir || !String(path).startsWith(`${dir}/`)) return;
  changes++;
  if (log) {
    logging = true;
    try {
      appendFileSync(log, `${changes} ${what} ${String(path).slice(dir.length)}\n`);
    } finally {
      logging = false;
    }
  }
  if (changes === after) process.kill(process.pid, 'SIGKILL');
}

for (const [name, what, pathArg] of [
  ['writeFileSync', 'write', 0],
  ['renameSync', 'rename', 1],
  ['linkSync', 'link', 1],
  ['rmSync', 'remove', 0],
  ['unlinkSync', 'remove', 0],
]) {
  const original = fs[name];
  fs[name] = function (...args) {
    const result = original.apply(this, args);
    changed(what, args[pathArg]);
    return result;
  };
}
syncBuiltinESMExports();
