// Brings dist/ up to date with src/ before the tests, so the tests that spawn
// the real bin/agctl.js run the current sources. The build (scripts/build.mjs)
// runs only when a source, package.json or tsconfig.json is newer than the last one.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
}
