// Completion scripts come from the program tree. The checked-in completions/
// must equal what the current tree generates: this test fails when a command
// or flag changed and `npm run completions` was not run.
//
// The scripts are also run: zsh through its real completion system in a
// pseudo-terminal (test/helpers/zsh-complete.zsh), skipped where zsh is not
// installed.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SHELLS, collectTree, type Shell } from '../../src/cli/completion.js';
import { buildProgram, walk } from '../../src/cli/program.js';
import { ROOT, runCli } from '../helpers/cli.js';

const configDir = mkdtempSync(join(tmpdir(), 'agctl-completion-'));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
const shells = Object.keys(SHELLS) as Shell[];
const script = (sh: Shell) => join(ROOT, 'completions', `agctl.${sh}`);
const runs = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 }).status === 0;
const hasZsh = runs('zsh', ['-fc', 'zmodload zsh/zpty']);

/** zsh: the matches its completion system offers for `line` + TAB, and $PATH inside the completion function. */
function zshComplete(line: string, mode: 'source' | 'fpath' = 'source'): { matches: string[]; paths: string[] } {
  const r = spawnSync('zsh', ['-f', join(ROOT, 'test', 'helpers', 'zsh-complete.zsh'), mode, script('zsh'), line], { cwd: configDir, encoding: 'utf8', timeout: 20_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const lines = r.stdout.split('\n');
  return { matches: lines.filter((l) => l.startsWith('MATCH:')).map((l) => l.slice(6)), paths: lines.filter((l) => l.startsWith('PATH:')).map((l) => l.slice(5)) };
}

describe('shell completions', () => {
  it('`agctl completion <shell>` prints what the program tree generates, and it is checked in', async () => {
    expect(shells).toEqual(['bash', 'zsh', 'fish']);
    const runs = await Promise.all(shells.map((sh) => runCli(['completion', sh], { configDir })));
    const program = await buildProgram();
    shells.forEach((sh, i) => {
      const r = runs[i]!;
      expect(r.code, r.stderr).toBe(0);
      const generated = SHELLS[sh](program);
      expect(r.stdout).toBe(generated);
      const checkedIn = readFileSync(join(ROOT, 'completions', `agctl.${sh}`), 'utf8');
      expect(checkedIn, `completions/agctl.${sh} is out of date: run npm run completions`).toBe(generated);
    });
  });

  it('`node scripts/gen-completions.mjs --check` passes', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-completions.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('cover every command and flag of the tree', async () => {
    const program = await buildProgram();
    const scripts = Object.fromEntries(shells.map((sh) => [sh, SHELLS[sh](program)])) as Record<Shell, string>;
    const nodes = collectTree(program);
    for (const cmd of walk(program)) {
      if (cmd === program) continue;
      for (const sh of shells) expect(scripts[sh]).toContain(cmd.name());
      for (const o of cmd.options) if (o.long) expect(scripts.bash).toContain(o.long);
    }
    const list = nodes.find((n) => n.path.join(' ') === 'rules list')!;
    expect(list.options.map((o) => o.flags[0])).toEqual(expect.arrayContaining(['--limit', '--page-size', '--profile', '--output', '--help']));
    expect(scripts.fish).toContain("complete -c agctl -n 'test (__agctl_path) = '\\''rules list'\\''' -l output -s o -x -a 'table json'");
    expect(scripts.zsh).not.toMatch(/^\s*local\s[^\n#]*\bpath\b/m); // zsh ties path to PATH
    expect(scripts.zsh.startsWith('#compdef agctl\n')).toBe(true);
    expect(scripts.bash).toContain('complete -o default -F _agctl agctl');
  });

  it('the bash script is valid bash', () => {
    const hasBash = spawnSync('bash', ['--version']).status === 0;
    if (!hasBash) return;
    execFileSync('bash', ['-n', join(ROOT, 'completions', 'agctl.bash')]);
    // and it completes: `agctl rules l<TAB>` offers list
    const out = execFileSync('bash', ['-c', `source ${join(ROOT, 'completions', 'agctl.bash')}; COMP_WORDS=(agctl rules l); COMP_CWORD=2; _agctl; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
    expect(out.trim()).toBe('list');
  });

  it('refuses an unknown shell with a usage error', async () => {
    const r = await runCli(['completion', 'powershell'], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('agctl: unsupported shell "powershell"\nhint: use bash, zsh or fish\n');
  });
});

describe.skipIf(!hasZsh)('zsh completion (run in zsh, skipped without zsh)', () => {
  it('keeps PATH inside the completion function, and completes commands (sourced and autoloaded from $fpath)', () => {
    for (const mode of ['source', 'fpath'] as const) {
      const r = zshComplete('agctl rules l', mode);
      expect(r.matches, mode).toEqual(['list']);
      expect(new Set(r.paths), mode).toEqual(new Set([process.env.PATH]));
    }
  });
});
