// Completion scripts come from the program tree. The checked-in completions/
// must equal what the current tree generates: this test fails when a command
// or flag changed and `npm run completions` was not run.
//
// The scripts are also run: bash always (the function is called as bash calls
// it, with COMP_WORDS), zsh through its real completion system in a
// pseudo-terminal (test/helpers/zsh-complete.zsh), fish with `complete -C`.
// The zsh and fish tests are skipped where those shells are not installed.
// Dynamic values come from the real program: `agctl` on the shells' PATH is
// bin/agctl.js (dist/, rebuilt by the global setup), with a config dir of
// three profiles.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SHELLS, collectTree, valueFlags } from '../../src/cli/completion.js';
import { SHELL_NAMES, type ShellName as Shell } from '../../src/cli/commands/completion/command.js';
import { buildProgram, walk } from '../../src/cli/program.js';
import { HELP_TOPICS } from '../../src/cli/commands/help/command.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { bashComplete as bashCompleteIn } from '../helpers/bash-complete.js';

const configDir = mkdtempSync(join(tmpdir(), 'agctl-completion-'));
// a working directory with a file, a key file and a directory for file-name completion
const work = mkdtempSync(join(tmpdir(), 'agctl-completion-cwd-'));
writeFileSync(join(work, 'afile.json'), '{}');
writeFileSync(join(work, 'dd.key'), 'k');
mkdirSync(join(work, 'adir'));
// the program the scripts call, and its profiles
const binDir = mkdtempSync(join(tmpdir(), 'agctl-completion-bin-'));
symlinkSync(BIN, join(binDir, 'agctl'));
const profiles = mkdtempSync(join(tmpdir(), 'agctl-completion-profiles-'));
writeFileSync(join(profiles, 'config.json'), JSON.stringify({ currentProfile: 'ci', profiles: { ci: { baseUrl: 'https://ci.example.com' }, default: {}, staging: {} } }));
const PROFILES = ['ci', 'default', 'staging'];
const shellEnv = { ...process.env, PATH: `${binDir}:${process.env.PATH}`, AGCTL_CONFIG_DIR: profiles };
afterAll(() => {
  rmSync(profiles, { recursive: true, force: true });
  rmSync(binDir, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});
const shells = Object.keys(SHELLS) as Shell[];
const script = (sh: Shell) => join(ROOT, 'completions', `agctl.${sh}`);
const runs = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 }).status === 0;
const hasZsh = runs('zsh', ['-fc', 'zmodload zsh/zpty']);
const hasFish = runs('fish', ['--no-config', '-c', 'exit 0']);
const sorted = (a: string[]) => [...new Set(a)].sort();
const COMMANDS = ['login', 'logout', 'auth', 'rules', 'mcp', 'task', 'webhook', 'api', 'serve', 'help', 'completion', 'version'];
/** Flags whose value is a file name (the review's list and a few more), with a command line that reaches them. */
const FILE_FLAGS = [
  ['webhook send x', '--data-file'],
  ['webhook send x', '--secret-file'],
  ['webhook send x', '--jwt-key'],
  ['webhook verify', '--request'],
  ['webhook verify', '--body-file'],
  ['webhook verify', '--jwks'],
  ['mcp set-credentials a b', '--from-file'],
  ['mcp set-credentials a b', '--config-file'],
  ['mcp set-credentials a b', '--bearer-token-file'],
  ['mcp set-credentials a b', '--oauth2-client-secret-file'],
  ['mcp set-credentials a b', '--jwt-private-key-file'],
  ['serve', '--ready-file'],
  ['webhook keygen', '--out'],
  ['webhook listeners create', '--secret-out'],
  ['login', '--client-secret-file'],
  ['api /api/v1/x', '--input'],
] as const;

/** bash: COMPREPLY for `line` (test/helpers/bash-complete.ts). */
const bashComplete = (line: string) => bashCompleteIn(line, { cwd: work, env: shellEnv });

/** zsh: the matches its completion system offers for `line` + TAB, and $PATH inside the completion function. */
function zshComplete(line: string, mode: 'source' | 'fpath' = 'source'): { matches: string[]; paths: string[] } {
  const r = spawnSync('zsh', ['-f', join(ROOT, 'test', 'helpers', 'zsh-complete.zsh'), mode, script('zsh'), line], {
    cwd: work,
    env: { ...shellEnv, AGCTL_TEST_ZCOMPDUMP: join(configDir, 'zcompdump') },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const lines = r.stdout.split('\n');
  return { matches: lines.filter((l) => l.startsWith('MATCH:')).map((l) => l.slice(6)), paths: lines.filter((l) => l.startsWith('PATH:')).map((l) => l.slice(5)) };
}

/** fish: `complete -C line`, the completions without their descriptions. */
function fishComplete(line: string): string[] {
  const r = spawnSync('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', script('fish'), line], { cwd: work, env: shellEnv, encoding: 'utf8', timeout: 20_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!);
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

  it('the bash script is valid bash, and registers _agctl', () => {
    execFileSync('bash', ['-n', script('bash')]);
    expect(execFileSync('bash', ['--norc', '-c', `source ${script('bash')}; complete -p agctl`], { encoding: 'utf8' })).toBe('complete -o default -F _agctl agctl\n');
  });

  it('value flags: file and directory arguments come from the option definitions, choices from .choices()', async () => {
    const program = await buildProgram();
    const values = valueFlags(collectTree(program));
    for (const [, flag] of FILE_FLAGS) expect(values.get(flag)?.kind, flag).toBe('file');
    expect(values.get('--config-file')).toEqual({ kind: 'file', keyed: true });
    expect(values.get('--data-dir')).toEqual({ kind: 'dir' });
    expect(values.get('-o')).toEqual({ kind: 'choices', choices: ['table', 'json'] });
    expect(values.get('--alg')).toEqual({ kind: 'choices', choices: ['ES256', 'RS256', 'EdDSA'] });
    expect(values.get('--profile')).toEqual({ kind: 'dynamic', source: 'profiles' });
    expect(values.get('--url')?.kind).toBe('none');
    // one table serves every command: a flag takes the same kind of value wherever it appears
    for (const cmd of walk(program))
      for (const o of cmd.options) {
        for (const f of [o.long, o.short]) {
          if (!f) continue;
          if (o.required || o.optional) expect(collectTree(program).flatMap((n) => n.options).filter((x) => x.flags.includes(f)).every((x) => x.takesValue), f).toBe(true);
          else expect(values.has(f), `${f} takes no value here but a value elsewhere`).toBe(false);
        }
      }
  });

  it('`agctl help <topic>` answers every topic the completions offer', async () => {
    for (const [topic] of HELP_TOPICS) {
      const r = await runCli(['help', topic], { configDir });
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it('refuses an unknown shell with a usage error', async () => {
    const r = await runCli(['completion', 'powershell'], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('agctl: unsupported shell "powershell"\nhint: use bash, zsh or fish\n');
  });
});

describe('bash completion (run)', () => {
  it('completes command names and flags', () => {
    expect(bashComplete('agctl rules l')).toEqual(['list']);
    expect(bashComplete('agctl rules list --li')).toEqual(['--limit']);
    expect(bashComplete('agctl --profile p rules ')).toEqual(expect.arrayContaining(['list', 'delete']));
    expect(bashComplete('agctl -o json rules d')).toEqual(['delete']);
  });

  it('completes the values of enumerated flags, also as --flag=value', () => {
    expect(sorted(bashComplete('agctl -o '))).toEqual(['json', 'table']);
    expect(bashComplete('agctl rules list --output j')).toEqual(['json']);
    expect(bashComplete('agctl --output=j')).toEqual(['json']);
    expect(sorted(bashComplete('agctl --output='))).toEqual(['json', 'table']);
    expect(sorted(bashComplete('agctl webhook keygen --alg '))).toEqual(['ES256', 'EdDSA', 'RS256']);
    expect(sorted(bashComplete('agctl webhook listeners create --auth-method '))).toEqual(['HMAC', 'JWT']);
    expect(bashComplete('agctl webhook listeners l')).toEqual(['list']);
    expect(bashComplete('agctl webhook r')).toEqual(['runs']);
  });

  it('completes file names for file flags, directories for --data-dir, nothing for other values', () => {
    for (const [cmd, flag] of FILE_FLAGS) expect(sorted(bashComplete(`agctl ${cmd} ${flag} `)), flag).toEqual(['adir', 'afile.json', 'dd.key']);
    expect(bashComplete('agctl webhook send x --data-file=af')).toEqual(['afile.json']);
    expect(sorted(bashComplete('agctl mcp set-credentials a b --config-file apiKey=a'))).toEqual(['adir', 'afile.json']);
    expect(bashComplete('agctl serve --data-dir ')).toEqual(['adir']);
    expect(bashComplete('agctl webhook send x --url ')).toEqual([]);
  });

  it('asks the program for profile names, also as --profile=value', () => {
    expect(bashComplete('agctl --profile ')).toEqual(PROFILES);
    expect(bashComplete('agctl rules list x --profile s')).toEqual(['staging']);
    expect(bashComplete('agctl --profile=d')).toEqual(['default']);
    expect(bashComplete('agctl -o json --profile=')).toEqual(PROFILES);
  });

  it('offers nothing (neither flags nor file names) for a positional argument it cannot complete', () => {
    expect(bashComplete('agctl rules list ')).toEqual([]);
    expect(bashComplete('agctl webhook send ')).toEqual([]);
    // rule IDs: without a cached token, nothing
    expect(bashComplete('agctl rules delete crm-app ')).toEqual([]);
    // the flags still after a dash, and where no positional argument is expected
    expect(bashComplete('agctl rules list -')).toEqual(expect.arrayContaining(['--limit', '--profile']));
    expect(bashComplete('agctl rules list crm-app ')).toEqual(expect.arrayContaining(['--limit', '--profile']));
    expect(bashComplete('agctl webhook keygen ')).toEqual(expect.arrayContaining(['--alg']));
    // the hidden command is not offered
    expect(bashComplete('agctl __')).toEqual([]);
  });

  it('completes `completion <shell>` and `help <topic or command>`', () => {
    expect(bashComplete('agctl completion ')).toEqual(expect.arrayContaining([...SHELL_NAMES]));
    expect(bashComplete('agctl completion z')).toEqual(['zsh']);
    expect(bashComplete('agctl completion bash ')).not.toContain('zsh');
    expect(bashComplete('agctl help ')).toEqual(expect.arrayContaining(['exit-codes', 'environment', ...COMMANDS]));
    expect(bashComplete('agctl help ru')).toEqual(['rules']);
    expect(sorted(bashComplete('agctl help e'))).toEqual(['environment', 'exit-codes']);
    expect(bashComplete('agctl help rules ')).toEqual(expect.arrayContaining(['list', 'delete']));
    expect(bashComplete('agctl help rules ')).not.toContain('exit-codes');
    expect(bashComplete('agctl help webhook v')).toEqual(['verify']);
    expect(bashComplete('agctl help exit-codes ').filter((w) => !w.startsWith('-'))).toEqual([]);
  });
});

describe.skipIf(!hasZsh)('zsh completion (run in zsh, skipped without zsh)', () => {
  it('keeps PATH inside the completion function, and completes commands (sourced and autoloaded from $fpath)', () => {
    for (const mode of ['source', 'fpath'] as const) {
      const r = zshComplete('agctl rules l', mode);
      expect(r.matches, mode).toEqual(['list']);
      expect(new Set(r.paths), mode).toEqual(new Set([shellEnv.PATH]));
    }
  });

  it('completes the values of enumerated flags', () => {
    expect(sorted(zshComplete('agctl -o ').matches)).toEqual(['json', 'table']);
    expect(zshComplete('agctl --output=j').matches).toEqual(['--output=json']);
    expect(sorted(zshComplete('agctl webhook send x --alg ').matches)).toEqual(['ES256', 'EdDSA', 'RS256']);
  });

  it('completes file names for file flags, directories for --data-dir, nothing for other values', () => {
    for (const [cmd, flag] of FILE_FLAGS.filter((_, i) => i % 3 === 0)) expect(sorted(zshComplete(`agctl ${cmd} ${flag} `).matches), flag).toEqual(['adir', 'afile.json', 'dd.key']);
    expect(sorted(zshComplete('agctl mcp set-credentials a b --config-file apiKey=a').matches)).toEqual(['apiKey=adir', 'apiKey=afile.json']);
    expect(sorted(zshComplete('agctl serve --data-dir ').matches)).toEqual(['adir']);
    expect(zshComplete('agctl webhook send x --url ').matches).toEqual([]);
  });

  it('asks the program for profile names, also as --profile=value', () => {
    expect(sorted(zshComplete('agctl --profile ').matches)).toEqual(PROFILES);
    expect(zshComplete('agctl rules list x --profile s').matches).toEqual(['staging']);
    expect(zshComplete('agctl --profile=d').matches).toEqual(['--profile=default']);
  });

  it('offers nothing for a positional argument it cannot complete', () => {
    expect(zshComplete('agctl rules list ').matches).toEqual([]);
    expect(zshComplete('agctl rules delete crm-app ').matches).toEqual([]);
    expect(zshComplete('agctl rules list -').matches).toEqual(expect.arrayContaining(['--limit']));
  });

  it('completes `completion <shell>` and `help <topic or command>`', () => {
    expect(zshComplete('agctl completion ').matches).toEqual(expect.arrayContaining([...SHELL_NAMES]));
    expect(zshComplete('agctl help ').matches).toEqual(expect.arrayContaining(['exit-codes', 'environment', ...COMMANDS]));
    expect(zshComplete('agctl help ru').matches).toEqual(['rules']);
    expect(sorted(zshComplete('agctl help rules ').matches.filter((w) => !w.startsWith('-')))).toEqual(['delete', 'get', 'list']);
  });
});

describe.skipIf(!hasFish)('fish completion (run in fish, skipped without fish)', () => {
  it('completes commands, and enumerated flag values', () => {
    expect(fishComplete('agctl rules l')).toEqual(['list']);
    expect(sorted(fishComplete('agctl -o '))).toEqual(['json', 'table']);
    expect(fishComplete('agctl --output=j')).toEqual(['--output=json']);
    expect(sorted(fishComplete('agctl webhook keygen --alg '))).toEqual(['ES256', 'EdDSA', 'RS256']);
  });

  it('completes file names for file flags, directories for --data-dir, nothing for other values', () => {
    for (const [cmd, flag] of FILE_FLAGS) expect(sorted(fishComplete(`agctl ${cmd} ${flag} `)), flag).toEqual(['adir/', 'afile.json', 'dd.key']);
    expect(sorted(fishComplete('agctl mcp set-credentials a b --config-file apiKey=a'))).toEqual(['apiKey=adir/', 'apiKey=afile.json']);
    expect(fishComplete('agctl serve --data-dir ')).toEqual(['adir/']);
    expect(fishComplete('agctl webhook send x --url ')).toEqual([]);
  });

  it('asks the program for profile names, also as --profile=value', () => {
    expect(sorted(fishComplete('agctl --profile '))).toEqual(PROFILES);
    expect(fishComplete('agctl rules list x --profile s')).toEqual(['staging']);
    expect(fishComplete('agctl --profile=d')).toEqual(['--profile=default']);
  });

  it('offers nothing for a positional argument it cannot complete', () => {
    expect(fishComplete('agctl rules list ')).toEqual([]);
    expect(fishComplete('agctl rules delete crm-app ')).toEqual([]);
  });

  it('completes `completion <shell>` and `help <topic or command>`', () => {
    expect(sorted(fishComplete('agctl completion '))).toEqual(sorted([...SHELL_NAMES]));
    expect(fishComplete('agctl completion bash ')).toEqual([]);
    expect(sorted(fishComplete('agctl help '))).toEqual(sorted(['exit-codes', 'environment', ...COMMANDS]));
    expect(fishComplete('agctl help ru')).toEqual(['rules']);
    expect(sorted(fishComplete('agctl help rules '))).toEqual(['delete', 'get', 'list']);
    expect(fishComplete('agctl help exit-codes ')).toEqual([]);
  });
});

describe('suggested flag values', () => {
  it('offers for mcp set-credentials only values the command accepts', async () => {
    const { buildProgram } = await import('../../src/cli/program.js');
    const node = collectTree(await buildProgram(['mcp'])).find((n) => n.path.join(' ') === 'mcp set-credentials')!;
    // The values completed without commander's choices: the command parses their spellings itself.
    const suggested = Object.fromEntries(node.options.flatMap((o) => (o.value?.kind === 'choices' && !o.choices ? [[o.flags[0]!, o.value.choices]] : [])));
    const { draftFromFlags } = await import('../../src/cli/commands/mcp/draft.js');
    const base = { appId: 'a', connectorId: 'c' };
    const flagsFor: Record<string, (v: string) => Record<string, unknown>> = {
      '--transport': (v) => ({ transport: v }),
      '--token-sharing': (v) => ({ tokenSharing: v }),
      '--require-tool-approval': (v) => ({ requireToolApproval: v }),
      '--auth': (v) => ({ auth: v, ...(v === 'aws-sigv4' || v === 'google-service-account' ? { hosted: true } : { external: true }) }),
      '--oauth2-mode': (v) => ({ auth: 'oauth2', oauth2Mode: v }),
      '--oauth2-client-id-mode': (v) => ({ auth: 'oauth2', oauth2ClientIdMode: v }),
      '--oauth2-pkce': (v) => ({ auth: 'oauth2', oauth2Pkce: v }),
    };
    expect(Object.keys(suggested).sort()).toEqual(Object.keys(flagsFor).sort());
    for (const [flag, values] of Object.entries(suggested)) {
      for (const v of values) expect(() => draftFromFlags({ ...base, ...flagsFor[flag]!(v) } as never), `${flag} ${v}`).not.toThrow();
    }
    // And the scripts offer them: bash lists the values after the flag.
    expect(readFileSync(join(ROOT, 'completions', 'agctl.bash'), 'utf8')).toContain('streamable-http sse unspecified');
  });
});
