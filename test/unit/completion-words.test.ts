// The words bash completion passes to `agctl __complete`, with COMP_WORDS as
// an interactive bash splits them: quoted text stays one word ('=', 'x y',
// "b=c"); an unquoted '=' is a word of its own (COMP_WORDBREAKS). The program
// is a stand-in that writes down its arguments.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'agctl-completion-words-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const program = join(dir, 'agctl');
const got = join(dir, 'args');
writeFileSync(program, `#!/bin/sh\nprintf '%s\\0' "$@" > '${got}'\n`, { mode: 0o755 });

/** The arguments `__complete` gets for the words (the last one at the cursor). */
function passed(words: string[]): string[] {
  writeFileSync(got, '');
  const r = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _agctl || :',
      'bash',
      join(ROOT, 'completions', 'agctl.bash'),
      program,
      ...words,
    ],
    { encoding: 'utf8', timeout: 20_000 },
  );
  expect([r.status, r.stderr]).toEqual([0, '']);
  return readFileSync(got, 'utf8').split('\0').slice(0, -1);
}

describe('bash completion: the earlier words as the program reads them', () => {
  it('takes the quotes off', () => {
    expect(passed(['rules', 'get', "'crm app'", ''])).toEqual(['__complete', '--', 'rules', 'get', 'crm app', '']);
    expect(passed(['--profile', '=', "'x y'", 'task', 'get', ''])).toEqual(['__complete', '--', '--profile', 'x y', 'task', 'get', '']);
    expect(passed(['rules', 'get', 'a', '=', '"b=c"', ''])).toEqual(['__complete', '--', 'rules', 'get', 'a=b=c', '']);
  });

  it("keeps a quoted '=' a word of its own, not the '=' bash splits key=value at", () => {
    expect(passed(['rules', 'get', "'='", ''])).toEqual(['__complete', '--', 'rules', 'get', '=', '']);
    expect(passed(['rules', 'get', '\\=', ''])).toEqual(['__complete', '--', 'rules', 'get', '=', '']);
  });
});
