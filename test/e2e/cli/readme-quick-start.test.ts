// The README's Quick start block, run as written by bash (as if pasted into a
// terminal), with `agctl` as the built binary and its paths in a temporary
// directory: once as it should go, once with a serve that cannot start.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, baseEnv, tempDir } from '../../helpers/cli.js';

const hasJq = spawnSync('jq', ['--version']).status === 0;

/** Runs the Quick start block in bash; `dataDir` is the data directory of serve and --embedded. */
function quickStart(dataDir?: (work: string) => string) {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Configuration'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  const work = tempDir('agctl-quick-start-');
  const ready = join(work, 'agctl.json');
  // `agctl` on PATH, as after `npm link`: a background `agctl serve &` is then the server process itself.
  mkdirSync(join(work, 'bin'));
  writeFileSync(join(work, 'bin', 'agctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(work, 'bin', 'agctl'), 0o755);
  // A ready file left by an earlier run must not be taken for this one's.
  const script = [
    `trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT; trap 'exit 143' TERM`,
    `printf '%s' '{"baseUrl":"http://127.0.0.1:9","clients":[]}' > ${JSON.stringify(ready)}`,
    block.replaceAll('/tmp/agctl.json', ready),
  ].join('\n');
  const started = Date.now();
  const r = spawnSync('bash', ['-c', script], {
    cwd: work,
    env: {
      ...baseEnv(join(work, 'config')),
      AGCTL_DATA_DIR: dataDir?.(work) ?? join(work, 'data'),
      PATH: `${join(work, 'bin')}:${process.env.PATH}`,
    },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { ...r, seconds: (Date.now() - started) / 1000 };
}

describe('README Quick start', () => {
  it.skipIf(!hasJq)('runs as written: serve in the background, log in from its ready file, list rules', () => {
    const r = quickStart();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('Logged in to http://127.0.0.1:');
    expect(r.stderr).not.toContain('agctl serve stopped');
    // Both `rules list crm-app` commands printed the 26 demo rules.
    expect(r.stdout.match(/^10 +ecr-001 /gm)).toHaveLength(2);
  });

  it.skipIf(!hasJq)('gives up waiting as soon as serve fails to start, and says why', () => {
    // The data directory is a file: serve (and --embedded) exit 2 at once.
    const r = quickStart((work) => {
      writeFileSync(join(work, 'not-a-dir'), '');
      return join(work, 'not-a-dir');
    });
    expect(r.signal, r.stderr).toBeNull(); // not killed at the time-out: the loop ended by itself
    expect(r.seconds).toBeLessThan(10);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/^agctl: data directory .*not-a-dir/m);
    expect(r.stderr).toContain('agctl serve stopped (its error is above)\n');
  });
});
