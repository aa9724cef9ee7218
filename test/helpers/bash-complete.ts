// Real bash completion, for tests: calls _agctl of completions/agctl.bash as
// bash does for a command line (cursor at the end), with the words split as
// bash splits them (COMP_WORDBREAKS includes '='), and returns COMPREPLY.
// bashCompleteAsync leaves this process's event loop free while bash runs (for
// a completion that asks a server running in this process).
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT } from './cli.js';

interface Options {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The bash command line completing `line`. */
function bashArgs(line: string): string[] {
  const words = line.split(' ').flatMap((w, i, all) => {
    const parts = w.split(/(=)/).filter((p) => p !== '');
    return parts.length || i < all.length - 1 ? parts : [''];
  });
  const script = join(ROOT, 'completions', 'agctl.bash');
  return [
    '--norc',
    '--noprofile',
    '-c',
    'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _agctl; printf "%s\\n" "${COMPREPLY[@]}"',
    'bash',
    script,
    ...words,
  ];
}

function replies(r: { stdout: string; stderr: string; status: number | null }): string[] {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

export function bashComplete(line: string, opts: Options): string[] {
  return replies(spawnSync('bash', bashArgs(line), { ...opts, encoding: 'utf8', timeout: 20_000 }));
}

export function bashCompleteAsync(line: string, opts: Options): Promise<string[]> {
  return new Promise((resolve) => {
    execFile('bash', bashArgs(line), { ...opts, encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      resolve(replies({ stdout, stderr, status: err ? ((err as { code?: number }).code ?? 1) : 0 }));
    });
  });
}
