// Brings dist/ up to date with src/ before the tests, so the tests that spawn
// the real bin/agctl.js run the current sources. `tsc -b` rebuilds only when a
// source (or tsconfig.json) is newer than the last build.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
}
