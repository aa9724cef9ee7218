// Before the tests: brings dist/ up to date with src/, so the tests that spawn
// the real bin/agctl.js run the current sources (scripts/build.mjs runs only
// when a source, package.json or tsconfig.json is newer than the last build).
// The run's temporary files go under one directory of their own (TMPDIR, which
// the workers, the CLI runs and the processes they spawn inherit), removed
// when the run ends: a test that leaves a directory behind leaves nothing on
// the machine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): () => void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
  const before = process.env.TMPDIR;
  const runDir = mkdtempSync(join(tmpdir(), 'agctl-tests-'));
  process.env.TMPDIR = runDir;
  // The CLI processes the tests start share one V8 compile cache (Node 22.1 and
  // later; Node 20 ignores it), in the run's own directory.
  const compileCacheBefore = process.env.NODE_COMPILE_CACHE;
  process.env.NODE_COMPILE_CACHE = join(runDir, 'node-compile-cache');
  return () => {
    if (compileCacheBefore === undefined) delete process.env.NODE_COMPILE_CACHE;
    else process.env.NODE_COMPILE_CACHE = compileCacheBefore;
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  };
}
