// Completion scripts come from the program tree. The checked-in completions/
// must equal what the current tree generates: this test fails when a command
// or flag changed and `npm run completions` was not run.
//
// The scripts are also run: bash always (the function is called as bash calls
// it, with COMP_WORDS), zsh through its real completion system in a
// pseudo-terminal (test/helpers/zsh-complete.zsh), fish with `complete -C`.
// The zsh and fish tests are skipped where those shells are not installed.
// Dynamic values come from the program, with a config dir of three profiles,
// or one logged in to a hostile tenant whose IDs carry shell syntax.
// Once per shell, `agctl` on the shells' PATH is the real bin/agctl.js (dist/,
// rebuilt by the global setup); elsewhere it is a bash script that hands its
// config dir and arguments to this process, which runs the program on them
// (runCli) and sends back what it printed: the same answers without a node
// start-up a TAB.
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SHELLS, collectTree, valueFlags } from '../../src/cli/completion.js';
import { SHELL_NAMES, type ShellName as Shell } from '../../src/cli/commands/completion/command.js';
import { buildProgram, walk } from '../../src/cli/program.js';
import { HELP_TOPICS } from '../../src/cli/commands/help/command.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { bashCompleteAsync } from '../helpers/bash-complete.js';
import { NOT_OFFERED, OFFERED } from '../helpers/hostile-ids.js';
import { hostileTenant } from '../helpers/hostile-tenant.js';
import { tokenUrlFor } from '../../src/client/auth.js';
import { Vault } from '../../src/config/vault.js';

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
writeFileSync(
  join(profiles, 'config.json'),
  JSON.stringify({ currentProfile: 'ci', profiles: { ci: { baseUrl: 'https://ci.example.com' }, default: {}, staging: {} } }),
);
const PROFILES = ['ci', 'default', 'staging'];
/** The shells' environment with the real program on PATH. */
const realEnv = { ...process.env, PATH: `${binDir}:${process.env.PATH}`, AGCTL_CONFIG_DIR: profiles };
// The stand-in: "<config dir>\0<argc>\0<arg>\0..." in, the program's stdout back.
// (A budget no loaded machine overruns: these tests are about the values, not time.)
const program = createServer((sock) => {
  let received = '';
  sock.setEncoding('utf8').on('data', (d: string) => {
    received += d;
    const [dir, count, ...args] = received.split('\0');
    if (args.length <= Number(count)) return; // the last argument is complete when a \0 follows it
    void runCli(args.slice(0, Number(count)), { configDir: dir!, env: { AGCTL_COMPLETE_BUDGET_MS: '20000' } }).then((r) =>
      sock.end(r.stdout),
    );
  });
});
await new Promise<void>((r) => program.listen(0, '127.0.0.1', r));
/** A directory holding a stand-in `agctl` that runs the program with config dir `dir`. */
function standIn(dir: string): string {
  const bin = mkdtempSync(join(tmpdir(), 'agctl-completion-stub-'));
  const port = (program.address() as AddressInfo).port;
  writeFileSync(
    join(bin, 'agctl'),
    `#!/usr/bin/env bash\nexec 3<>/dev/tcp/127.0.0.1/${port} || exit 1\nprintf '%s\\0' '${dir}' "$#" "$@" >&3\ncat <&3\n`,
    { mode: 0o755 },
  );
  return bin;
}
const stubDir = standIn(profiles);
/** The shells' environment with the stand-in on PATH. */
const shellEnv = { ...realEnv, PATH: `${stubDir}:${process.env.PATH}` };
// A tenant whose rules, MCP servers and tasks carry hostile IDs, and a config dir with a token cached for it.
const tenant = await hostileTenant({ kind: 'ids', ids: [...OFFERED, ...NOT_OFFERED] });
const hostileConfig = mkdtempSync(join(tmpdir(), 'agctl-completion-hostile-'));
writeFileSync(
  join(hostileConfig, 'config.json'),
  JSON.stringify({ currentProfile: 'default', profiles: { default: { baseUrl: tenant.url, clientId: 'bot' } } }),
  { mode: 0o600 },
);
new Vault(hostileConfig, { AGCTL_CONFIG_DIR: hostileConfig }).saveToken(
  'default',
  tokenUrlFor(tenant.url),
  'bot',
  { accessToken: 't', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
  'the-secret',
);
const hostileStub = standIn(hostileConfig);
/** The shells' environment with a stand-in for that config dir on PATH. */
const hostileEnv = { ...shellEnv, PATH: `${hostileStub}:${process.env.PATH}` };
const hostileBin = mkdtempSync(join(tmpdir(), 'agctl-completion-hostile-bin-'));
writeFileSync(
  join(hostileBin, 'agctl'),
  `#!/bin/sh\nAGCTL_CONFIG_DIR='${hostileConfig}' AGCTL_COMPLETE_BUDGET_MS=20000 exec '${process.execPath}' '${BIN}' "$@"\n`,
  { mode: 0o755 },
);
/** The shells' environment with the real program for that config dir on PATH. */
const hostileRealEnv = { ...shellEnv, PATH: `${hostileBin}:${process.env.PATH}` };
afterAll(() => {
  program.close();
  for (const dir of [stubDir, hostileStub, hostileConfig, hostileBin]) rmSync(dir, { recursive: true, force: true });
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
const COMMANDS = ['login', 'logout', 'auth', 'rules', 'mcp', 'task', 'webhook', 'api', 'serve', 'doctor', 'help', 'completion', 'version'];
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
const bashComplete = (line: string, env = shellEnv) => bashCompleteAsync(line, { cwd: work, env });

/** Runs a shell without blocking this process (which answers the stand-in program); its stdout, when it succeeds and prints no error. */
function shell(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: work, env, encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      if (err || stderr) reject(new Error(`${cmd} failed (${err?.code ?? 'exit 0'}):\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Ends each line's answer, in the zsh and fish runs. */
const END = '<<<END>>>';

/**
 * zsh: the matches its completion system offers for `line` + TAB, $PATH inside the completion function, and (mode
 * insert) the command line after the TAB inserted what it completes.
 * Every line goes to one zsh-complete.zsh, which types the lines of a mode and PATH into one interactive zsh in turn
 * (the environments differ only in PATH: `env` gives the shell's PATH).
 */
async function zshComplete(
  line: string,
  mode: 'source' | 'fpath' | 'insert' = 'source',
  env = shellEnv,
): Promise<{ matches: string[]; paths: string[]; buffer?: string }> {
  zshRun ??= startZsh();
  const answer = new Promise<string>((resolve, reject) => zshRun!.waiting.push({ resolve, reject }));
  zshRun.child.stdin!.write(`${mode}\t${env.PATH}\t${line}\n`);
  const lines = (await answer).split('\n');
  return {
    matches: lines.filter((l) => l.startsWith('MATCH:')).map((l) => l.slice(6)),
    paths: lines.filter((l) => l.startsWith('PATH:')).map((l) => l.slice(5)),
    buffer: lines.find((l) => l.startsWith('BUFFER:'))?.slice(7),
  };
}
let zshRun: ReturnType<typeof startZsh> | undefined;
function startZsh() {
  const child = spawn('zsh', ['-f', join(ROOT, 'test', 'helpers', 'zsh-complete.zsh'), script('zsh')], { cwd: work, env: shellEnv });
  const waiting: { resolve: (out: string) => void; reject: (e: unknown) => void }[] = [];
  let out = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (let end = out.indexOf(`${END}\n`); end >= 0; end = out.indexOf(`${END}\n`)) {
      const w = waiting.shift();
      if (stderr) w?.reject(new Error(`zsh printed an error:\n${stderr}`));
      else w?.resolve(out.slice(0, end));
      out = out.slice(end + END.length + 1);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<void>((resolve) =>
    child.on('close', (code) => {
      waiting.splice(0).forEach((w) => w.reject(new Error(`zsh failed (${code}):\n${stderr}`)));
      resolve();
    }),
  );
  return { child, waiting, closed };
}
afterAll(async () => {
  zshRun?.child.stdin?.end();
  await zshRun?.closed;
});

/** fish: `complete --escape -C line`, the completions as fish inserts them, without their descriptions. Lines asked for together (Promise.all) run in one fish. */
function fishComplete(line: string, env = shellEnv): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let batch = fishBatches.get(env);
    if (!batch) {
      fishBatches.set(env, (batch = []));
      const lines = batch;
      setImmediate(() => {
        fishBatches.delete(env);
        runFish(lines, env).catch((e: unknown) => lines.forEach((l) => l.reject(e)));
      });
    }
    batch.push({ line, resolve, reject });
  });
}
const fishBatches = new Map<NodeJS.ProcessEnv, { line: string; resolve: (r: string[]) => void; reject: (e: unknown) => void }[]>();
async function runFish(batch: { line: string; resolve: (r: string[]) => void }[], env: NodeJS.ProcessEnv): Promise<void> {
  const out = await shell(
    'fish',
    [
      '--no-config',
      '-c',
      `source $argv[1]; for line in $argv[2..-1]; complete --escape -C $line; echo '${END}'; end`,
      script('fish'),
      ...batch.map((b) => b.line),
    ],
    env,
  );
  const answers = out.split(`${END}\n`);
  if (answers.length !== batch.length + 1 || answers.at(-1) !== '')
    throw new Error(`fish answered ${answers.length - 1} of ${batch.length} lines:\n${out}`);
  batch.forEach((b, i) =>
    b.resolve(
      answers[i]!.split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]!),
    ),
  );
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
    expect(list.options.map((o) => o.flags[0])).toEqual(
      expect.arrayContaining(['--limit', '--page-size', '--profile', '--output', '--help']),
    );
    expect(scripts.fish).toContain(
      "complete -c agctl -n 'test (__agctl_path) = '\\''rules list'\\''' -l output -s o -x -a 'table wide json yaml'",
    );
    expect(scripts.zsh).not.toMatch(/^\s*local\s[^\n#]*\bpath\b/m); // zsh ties path to PATH
    expect(scripts.zsh.startsWith('#compdef agctl\n')).toBe(true);
    expect(scripts.bash).toContain('complete -o default -F _agctl agctl');
  });

  it('the bash script is valid bash, and registers _agctl', () => {
    execFileSync('bash', ['-n', script('bash')]);
    expect(execFileSync('bash', ['--norc', '-c', `source ${script('bash')}; complete -p agctl`], { encoding: 'utf8' })).toBe(
      'complete -o default -F _agctl agctl\n',
    );
  });

  it('value flags: file and directory arguments come from the option definitions, choices from .choices()', async () => {
    const program = await buildProgram();
    const values = valueFlags(collectTree(program));
    for (const [, flag] of FILE_FLAGS) expect(values.get(flag)?.kind, flag).toBe('file');
    expect(values.get('--config-file')).toEqual({ kind: 'file', keyed: true });
    expect(values.get('--data-dir')).toEqual({ kind: 'dir' });
    expect(values.get('-o')).toEqual({ kind: 'choices', choices: ['table', 'wide', 'json', 'yaml'] });
    expect(values.get('--alg')).toEqual({ kind: 'choices', choices: ['ES256', 'RS256', 'EdDSA'] });
    expect(values.get('--profile')).toEqual({ kind: 'dynamic', source: 'profiles' });
    expect(values.get('--url')?.kind).toBe('none');
    // one table serves every command: a flag takes the same kind of value wherever it appears
    for (const cmd of walk(program))
      for (const o of cmd.options) {
        for (const f of [o.long, o.short]) {
          if (!f) continue;
          if (o.required || o.optional)
            expect(
              collectTree(program)
                .flatMap((n) => n.options)
                .filter((x) => x.flags.includes(f))
                .every((x) => x.takesValue),
              f,
            ).toBe(true);
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
  it('offers commands first, as gh: at a command with subcommands, flags only after a dash', async () => {
    expect(sorted(await bashComplete('agctl '))).toEqual(sorted(COMMANDS));
    expect(sorted(await bashComplete('agctl --profile p rules '))).toEqual(['delete', 'get', 'list']);
    expect(sorted(await bashComplete('agctl help '))).toEqual(sorted(['exit-codes', 'environment', ...COMMANDS]));
    expect(await bashComplete('agctl -')).toEqual(expect.arrayContaining(['--profile', '--base-url', '--help']));
    expect((await bashComplete('agctl -')).filter((w) => !w.startsWith('-'))).toEqual([]);
  });

  it('completes command names and flags', async () => {
    expect(await bashComplete('agctl rules l')).toEqual(['list']);
    expect(await bashComplete('agctl rules list --li')).toEqual(['--limit']);
    expect(await bashComplete('agctl --profile p rules ')).toEqual(expect.arrayContaining(['list', 'delete']));
    expect(await bashComplete('agctl -o json rules d')).toEqual(['delete']);
  });

  it('completes the values of enumerated flags, also as --flag=value', async () => {
    expect(sorted(await bashComplete('agctl -o '))).toEqual(['json', 'table', 'wide', 'yaml']);
    expect(await bashComplete('agctl rules list --output j')).toEqual(['json']);
    expect(await bashComplete('agctl --output=j')).toEqual(['json']);
    expect(sorted(await bashComplete('agctl --output='))).toEqual(['json', 'table', 'wide', 'yaml']);
    expect(sorted(await bashComplete('agctl webhook keygen --alg '))).toEqual(['ES256', 'EdDSA', 'RS256']);
    expect(sorted(await bashComplete('agctl webhook listeners create --auth-method '))).toEqual(['HMAC', 'JWT']);
    expect(await bashComplete('agctl webhook listeners l')).toEqual(['list']);
    expect(await bashComplete('agctl webhook r')).toEqual(['runs']);
  });

  it('completes file names for file flags, directories for --data-dir, nothing for other values', async () => {
    for (const [cmd, flag] of FILE_FLAGS)
      expect(sorted(await bashComplete(`agctl ${cmd} ${flag} `)), flag).toEqual(['adir', 'afile.json', 'dd.key']);
    expect(await bashComplete('agctl webhook send x --data-file=af')).toEqual(['afile.json']);
    expect(sorted(await bashComplete('agctl mcp set-credentials a b --config-file apiKey=a'))).toEqual(['adir', 'afile.json']);
    expect(await bashComplete('agctl serve --data-dir ')).toEqual(['adir']);
    expect(await bashComplete('agctl webhook send x --url ')).toEqual([]);
  });

  it('asks the program for profile names, also as --profile=value', async () => {
    // the real program, once per shell
    expect(await bashComplete('agctl --profile ', realEnv)).toEqual(PROFILES);
    expect(await bashComplete('agctl rules list x --profile s')).toEqual(['staging']);
    expect(await bashComplete('agctl --profile=d')).toEqual(['default']);
    expect(await bashComplete('agctl -o json --profile=')).toEqual(PROFILES);
  });

  it('completes after a very long earlier word (a pasted body), quoted or not, without reading it letter by letter', async () => {
    // bash takes a letter off a long word in time that grows with its length: a
    // 100,000-letter word read letter by letter keeps TAB busy for most of a minute
    const long = 'a'.repeat(100_000);
    expect(await bashComplete(`agctl rules list ${long} --profile s`)).toEqual(['staging']);
    expect(await bashComplete(`agctl rules list '${long}' --profile s`)).toEqual(['staging']);
  });

  it('offers nothing (neither flags nor file names) for a positional argument it cannot complete', async () => {
    expect(await bashComplete('agctl rules list ')).toEqual([]);
    expect(await bashComplete('agctl webhook send ')).toEqual([]);
    // rule IDs: without a cached token, nothing
    expect(await bashComplete('agctl rules delete crm-app ')).toEqual([]);
    // the flags still after a dash, and where no positional argument is expected
    expect(await bashComplete('agctl rules list -')).toEqual(expect.arrayContaining(['--limit', '--profile']));
    expect(await bashComplete('agctl rules list crm-app ')).toEqual(expect.arrayContaining(['--limit', '--profile']));
    expect(await bashComplete('agctl webhook keygen ')).toEqual(expect.arrayContaining(['--alg']));
    // the hidden command is not offered
    expect(await bashComplete('agctl __')).toEqual([]);
  });

  it('completes `completion <shell>` and `help <topic or command>`', async () => {
    expect(await bashComplete('agctl completion ')).toEqual(expect.arrayContaining([...SHELL_NAMES]));
    expect(await bashComplete('agctl completion z')).toEqual(['zsh']);
    expect(await bashComplete('agctl completion bash ')).not.toContain('zsh');
    expect(await bashComplete('agctl help ')).toEqual(expect.arrayContaining(['exit-codes', 'environment', ...COMMANDS]));
    expect(await bashComplete('agctl help ru')).toEqual(['rules']);
    expect(sorted(await bashComplete('agctl help e'))).toEqual(['environment', 'exit-codes']);
    expect(await bashComplete('agctl help rules ')).toEqual(expect.arrayContaining(['list', 'delete']));
    expect(await bashComplete('agctl help rules ')).not.toContain('exit-codes');
    expect(await bashComplete('agctl help webhook v')).toEqual(['verify']);
    expect((await bashComplete('agctl help exit-codes ')).filter((w) => !w.startsWith('-'))).toEqual([]);
  });
});

describe.skipIf(!hasZsh)('zsh completion (run in zsh, skipped without zsh)', () => {
  const matches = (lines: string[]) => Promise.all(lines.map(async (line) => (await zshComplete(line)).matches));

  it('keeps PATH inside the completion function, and completes commands (sourced and autoloaded from $fpath)', async () => {
    const modes = ['source', 'fpath'] as const;
    const runs = await Promise.all(modes.map((mode) => zshComplete('agctl rules l', mode)));
    modes.forEach((mode, i) => {
      expect(runs[i]!.matches, mode).toEqual(['list']);
      expect(new Set(runs[i]!.paths), mode).toEqual(new Set([shellEnv.PATH]));
    });
  });

  it('offers commands first, as gh: at a command with subcommands, flags only after a dash', async () => {
    const [root, rules, dash] = await matches(['agctl ', 'agctl rules ', 'agctl -']);
    expect(sorted(root!)).toEqual(sorted(COMMANDS));
    expect(sorted(rules!)).toEqual(['delete', 'get', 'list']);
    expect(dash).toEqual(expect.arrayContaining(['--profile', '--base-url']));
    expect(dash!.filter((w) => !w.startsWith('-'))).toEqual([]);
  });

  it('completes the values of enumerated flags', async () => {
    const [o, output, alg] = await matches(['agctl -o ', 'agctl --output=j', 'agctl webhook send x --alg ']);
    expect(sorted(o!)).toEqual(['json', 'table', 'wide', 'yaml']);
    expect(output).toEqual(['--output=json']);
    expect(sorted(alg!)).toEqual(['ES256', 'EdDSA', 'RS256']);
  });

  it('completes file names for file flags, directories for --data-dir, nothing for other values', async () => {
    const flags = FILE_FLAGS.filter((_, i) => i % 3 === 0);
    const [files, [keyed, dir, url]] = await Promise.all([
      matches(flags.map(([cmd, flag]) => `agctl ${cmd} ${flag} `)),
      matches(['agctl mcp set-credentials a b --config-file apiKey=a', 'agctl serve --data-dir ', 'agctl webhook send x --url ']),
    ]);
    flags.forEach(([, flag], i) => expect(sorted(files[i]!), flag).toEqual(['adir', 'afile.json', 'dd.key']));
    expect(sorted(keyed!)).toEqual(['apiKey=adir', 'apiKey=afile.json']);
    expect(sorted(dir!)).toEqual(['adir']);
    expect(url).toEqual([]);
  });

  it('asks the program for profile names, also as --profile=value', async () => {
    const [real, [s, d]] = await Promise.all([
      zshComplete('agctl --profile ', 'source', realEnv),
      matches(['agctl rules list x --profile s', 'agctl --profile=d']),
    ]);
    expect(sorted(real.matches)).toEqual(PROFILES);
    expect(s).toEqual(['staging']);
    expect(d).toEqual(['--profile=default']);
  });

  it('offers nothing for a positional argument it cannot complete', async () => {
    const [list, del, dash] = await matches(['agctl rules list ', 'agctl rules delete crm-app ', 'agctl rules list -']);
    expect(list).toEqual([]);
    expect(del).toEqual([]);
    expect(dash).toEqual(expect.arrayContaining(['--limit']));
  });

  it('completes `completion <shell>` and `help <topic or command>`', async () => {
    const [completion, help, ru, rules] = await matches(['agctl completion ', 'agctl help ', 'agctl help ru', 'agctl help rules ']);
    expect(completion).toEqual(expect.arrayContaining([...SHELL_NAMES]));
    expect(help).toEqual(expect.arrayContaining(['exit-codes', 'environment', ...COMMANDS]));
    expect(ru).toEqual(['rules']);
    expect(sorted(rules!.filter((w) => !w.startsWith('-')))).toEqual(['delete', 'get', 'list']);
  });
});

describe.skipIf(!hasFish)('fish completion (run in fish, skipped without fish)', () => {
  it('offers commands first, as gh: at a command with subcommands, flags only after a dash', async () => {
    const [root, rules] = await Promise.all([fishComplete('agctl '), fishComplete('agctl rules ')]);
    expect(sorted(root!)).toEqual(sorted(COMMANDS));
    expect(sorted(rules!)).toEqual(['delete', 'get', 'list']);
  });

  it('completes commands, and enumerated flag values', async () => {
    const [l, o, output, alg] = await Promise.all(
      ['agctl rules l', 'agctl -o ', 'agctl --output=j', 'agctl webhook keygen --alg '].map((line) => fishComplete(line)),
    );
    expect(l).toEqual(['list']);
    expect(sorted(o!)).toEqual(['json', 'table', 'wide', 'yaml']);
    expect(output).toEqual(['--output=json']);
    expect(sorted(alg!)).toEqual(['ES256', 'EdDSA', 'RS256']);
  });

  it('completes file names for file flags, directories for --data-dir, nothing for other values', async () => {
    const [files, keyed, dir, url] = await Promise.all([
      Promise.all(FILE_FLAGS.map(([cmd, flag]) => fishComplete(`agctl ${cmd} ${flag} `))),
      fishComplete('agctl mcp set-credentials a b --config-file apiKey=a'),
      fishComplete('agctl serve --data-dir '),
      fishComplete('agctl webhook send x --url '),
    ]);
    FILE_FLAGS.forEach(([, flag], i) => expect(sorted(files[i]!), flag).toEqual(['adir/', 'afile.json', 'dd.key']));
    expect(sorted(keyed)).toEqual(['apiKey=adir/', 'apiKey=afile.json']);
    expect(dir).toEqual(['adir/']);
    expect(url).toEqual([]);
  });

  it('asks the program for profile names, also as --profile=value', async () => {
    const [real, s, d] = await Promise.all([
      fishComplete('agctl --profile ', realEnv),
      fishComplete('agctl rules list x --profile s'),
      fishComplete('agctl --profile=d'),
    ]);
    expect(sorted(real)).toEqual(PROFILES);
    expect(s).toEqual(['staging']);
    expect(d).toEqual(['--profile=default']);
  });

  it('offers nothing for a positional argument it cannot complete', async () => {
    const [list, del] = await Promise.all([fishComplete('agctl rules list '), fishComplete('agctl rules delete crm-app ')]);
    expect(list).toEqual([]);
    expect(del).toEqual([]);
  });

  it('completes `completion <shell>` and `help <topic or command>`', async () => {
    const lines = [
      'agctl completion ',
      'agctl completion bash ',
      'agctl help ',
      'agctl help ru',
      'agctl help rules ',
      'agctl help exit-codes ',
    ];
    const [completion, afterShell, help, ru, rules, afterTopic] = await Promise.all(lines.map((line) => fishComplete(line)));
    expect(sorted(completion!)).toEqual(sorted([...SHELL_NAMES]));
    expect(afterShell).toEqual([]);
    expect(sorted(help!)).toEqual(sorted(['exit-codes', 'environment', ...COMMANDS]));
    expect(ru).toEqual(['rules']);
    expect(sorted(rules!)).toEqual(['delete', 'get', 'list']);
    expect(afterTopic).toEqual([]);
  });
});

/** What agctl receives when the shell runs each of `lines`, as Enter would (agctl a function printing its arguments). */
async function argumentsOf(sh: Shell, lines: string[]): Promise<string[][]> {
  const run: Record<Shell, [string, string[]]> = {
    bash: ['bash', ['--norc', '--noprofile', '-c', 'agctl() { printf "%s\\0" "$#" "$@"; }; for l; do eval "$l"; done', 'bash']],
    zsh: ['zsh', ['-f', '-c', 'agctl() { printf "%s\\0" "$#" "$@" }; for l; do eval "$l"; done', 'zsh']],
    fish: ['fish', ['--no-config', '-c', 'function agctl; printf "%s\\0" (count $argv) $argv; end; for l in $argv; eval $l; end']],
  };
  const [cmd, args] = run[sh];
  const fields = (await shell(cmd, [...args, ...lines], process.env)).split('\0');
  fields.pop();
  const read: string[][] = [];
  while (fields.length) read.push(fields.splice(0, Number(fields.shift())));
  return read;
}

describe('values from a hostile tenant are data, in every shell', () => {
  // rule IDs, connector IDs, task IDs: the tenant names each list's items with the IDs of hostile-ids.ts
  const LINES = ['agctl rules get app1 ', 'agctl mcp get app1 ', 'agctl task get '];
  const RULE = 'agctl rules get app1 ';
  /** The words `line` gives agctl, then `id`. */
  const withId = (line: string, id: string) => [...line.trim().split(' ').slice(1), id];
  /** The IDs one letter names (typed, then TAB: the single match is inserted). */
  const BY_LETTER = OFFERED.filter((id) => /^[a-z]/.test(id));
  const pwned = () => readdirSync(work).filter((f) => f.startsWith('PWNED'));
  afterAll(() => expect(pwned()).toEqual([]));

  it('the tenant names things with IDs no shell may read as code', () => {
    expect(NOT_OFFERED.length).toBeGreaterThan(0);
    expect(new Set(BY_LETTER.map((id) => id[0])).size).toBe(BY_LETTER.length);
  });

  it('bash: offers each ID quoted (printf %q) and nothing else; each reads back as the literal ID; nothing ran', async () => {
    for (const line of LINES) {
      const replies = await bashComplete(line, hostileEnv);
      expect(
        await argumentsOf(
          'bash',
          replies.map((r) => `${line}${r} `),
        ),
        line,
      ).toEqual(OFFERED.map((id) => withId(line, id)));
    }
    const one = await Promise.all([
      ...BY_LETTER.map((id) => bashComplete(`${RULE}${id[0]}`, hostileEnv)),
      bashComplete(`${RULE}a`, hostileRealEnv),
    ]);
    expect(one.map((r) => r.length)).toEqual([...BY_LETTER, 'a'].map(() => 1));
    expect(
      await argumentsOf(
        'bash',
        one.map(([r]) => `${RULE}${r} `),
      ),
    ).toEqual([...BY_LETTER, OFFERED[0]!].map((id) => withId(RULE, id)));
    // earlier words typed quoted reach the program as the shell reads them: the app is app1 in each
    for (const typed of ["'app1'", '"app1"', 'ap\\p1', "a'p'p1"]) {
      tenant.stats.lastPath = '';
      const replies = await bashComplete(`agctl rules get ${typed} `, hostileEnv);
      expect([typed, tenant.stats.lastPath]).toEqual([typed, expect.stringMatching(/^\/api\/v1\/apps\/app1\//)]);
      expect(replies.length, typed).toBe(OFFERED.length);
    }
    // a word bash would expand is passed as typed, never expanded here
    tenant.stats.lastPath = '';
    await bashComplete('agctl rules get $(touch${IFS}PWNED-dequote) ', hostileEnv);
    expect(tenant.stats.lastPath).toMatch(
      new RegExp(`^/api/v1/apps/${encodeURIComponent('$(touch${IFS}PWNED-dequote)').replace(/[$()]/g, '\\$&')}/`),
    );
    // a prefix typed quoted, as an earlier TAB inserted it, still completes
    const quoted = await bashComplete(`${RULE}a\\$\\(`, hostileEnv);
    expect(
      await argumentsOf(
        'bash',
        quoted.map((r) => RULE + r),
      ),
    ).toEqual([withId(RULE, OFFERED[0]!)]);
    expect(pwned()).toEqual([]);
  });

  it.skipIf(!hasZsh)('zsh: offers each ID quoted (compadd) and nothing else, reading back as the literal ID; nothing ran', async () => {
    const lists = await Promise.all(LINES.map((line) => zshComplete(line, 'source', hostileEnv)));
    for (const [i, line] of LINES.entries()) {
      // the matches as compadd inserts them
      const read = await argumentsOf(
        'zsh',
        lists[i]!.matches.map((m) => line + m),
      );
      expect(sorted(read.map((words) => JSON.stringify(words))), line).toEqual(
        sorted(OFFERED.map((id) => JSON.stringify(withId(line, id)))),
      );
    }
    const inserted = await Promise.all([
      ...BY_LETTER.map((id) => zshComplete(`${RULE}${id[0]}`, 'insert', hostileEnv)),
      zshComplete(`${RULE}a`, 'insert', hostileRealEnv),
    ]);
    expect(
      await argumentsOf(
        'zsh',
        inserted.map((r) => r.buffer!),
      ),
    ).toEqual([...BY_LETTER, OFFERED[0]!].map((id) => withId(RULE, id)));
    expect(pwned()).toEqual([]);
  });

  it.skipIf(!hasFish)('fish: offers each ID escaped as fish inserts it, reading back as the literal ID; nothing ran', async () => {
    const lists = await Promise.all(LINES.map((line) => fishComplete(line, hostileEnv)));
    for (const [i, line] of LINES.entries()) {
      const read = await argumentsOf(
        'fish',
        lists[i]!.map((c) => line + c),
      );
      expect(sorted(read.map((words) => JSON.stringify(words))), line).toEqual(
        sorted(OFFERED.map((id) => JSON.stringify(withId(line, id)))),
      );
    }
    const one = await Promise.all([
      ...BY_LETTER.map((id) => fishComplete(`${RULE}${id[0]}`, hostileEnv)),
      fishComplete(`${RULE}a`, hostileRealEnv),
    ]);
    expect(one.map((r) => r.length)).toEqual([...BY_LETTER, 'a'].map(() => 1));
    expect(
      await argumentsOf(
        'fish',
        one.map(([c]) => RULE + c),
      ),
    ).toEqual([...BY_LETTER, OFFERED[0]!].map((id) => withId(RULE, id)));
    expect(pwned()).toEqual([]);
  });
});

describe('suggested flag values', () => {
  it('offers for mcp set-credentials only values the command accepts', async () => {
    const { buildProgram } = await import('../../src/cli/program.js');
    const node = collectTree(await buildProgram(['mcp'])).find((n) => n.path.join(' ') === 'mcp set-credentials')!;
    // The values completed without commander's choices: the command parses their spellings itself.
    const suggested = Object.fromEntries(
      node.options.flatMap((o) => (o.value?.kind === 'choices' && !o.choices ? [[o.flags[0]!, o.value.choices]] : [])),
    );
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
