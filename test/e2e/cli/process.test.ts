// What only a real process shows: the launcher, the exit code it sets, and
// what the fast paths load (bin/agctl.js on the built dist/, whose
// dist/contents.json names the sources each output file holds).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, spawnCliProcess, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import { Vault } from '../../../src/config/vault.js';

const work = tempDir('agctl-process-');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

/**
 * What a help page must not load. A command's folder holds its declaration
 * (command.ts, part of the help; a group's flags.ts, the flags its commands
 * share) and its runtime (the rest).
 */
const HEAVY =
  /^(src\/cli\/commands\/.*(?<!\/(command|subcommands|flags)\.ts)$|src\/cli\/(context|run|embedded)\.ts|src\/client\/|src\/server\/|src\/webhook\/|node_modules\/(undici|jose|conf|@inquirer|better-sqlite3|chalk|zod|jq-wasm|@napi-rs)\/)/;

/**
 * Runs the launcher (or another script) and returns its result with the files it imported (paths
 * under the repository, or package paths under node_modules) and the sources
 * those files hold (a built file stands for the sources bundled into it).
 */
async function traced(args: string[], name: string, env: Record<string, string> = {}, script = BIN) {
  const trace = join(work, `${name}.trace`);
  const r = await spawnCliProcess(args, {
    script,
    configDir: join(work, 'config'),
    env: {
      ...env,
      NODE_OPTIONS: `--import=${pathToFileURL(join(ROOT, 'test', 'helpers', 'trace-imports.mjs')).href}`,
      AGCTL_TEST_TRACE: trace,
    },
  });
  const files = [
    ...new Set(
      readFileSync(trace, 'utf8')
        .split('\n')
        .filter((u) => u.startsWith('file:'))
        .map((u) => u.replace(/^.*\/node_modules\//, 'node_modules/').replace(pathToFileURL(ROOT).href.replace(/\/?$/, '/'), '')),
    ),
  ];
  const contents = JSON.parse(readFileSync(join(ROOT, 'dist', 'contents.json'), 'utf8')) as Record<string, string[]>;
  const sources = files.flatMap((f) => {
    if (!f.startsWith('dist/')) return [f];
    expect(contents[f], `${f} is not listed in dist/contents.json`).toBeDefined();
    return contents[f]!;
  });
  return { ...r, files, sources };
}

describe('the launcher', () => {
  it('--version and -V print the version and load nothing but the launcher', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await traced([flag], `version${flag}`);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
      expect(r.stderr).toBe('');
      expect(r.files).toEqual(['bin/agctl.js']);
    }
  });

  it('--help and <group> --help print the pages the build made, loading nothing but the launcher', async () => {
    for (const [args, usage] of [
      [['--help'], 'agctl'],
      [['-h'], 'agctl'],
      [['rules', '--help'], 'agctl rules'],
      [['webhook', '-h'], 'agctl webhook'],
    ] as const) {
      const r = await traced([...args], `help${args.join('')}`);
      expect(r.code, r.stderr).toBe(0); // the process's exit code on success
      expect(r.stdout).toMatch(new RegExp(`^Usage: ${usage} `));
      expect(r.files).toEqual(['bin/agctl.js']);
    }
  });

  it("a command's --help loads no command runtime, HTTP client, JWT, config store, prompt, schema or database library", async () => {
    const r = await traced(['rules', 'list', '--help'], 'help-rules-list');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: agctl rules list /);
    expect(r.sources).toContain('src/cli/main.ts');
    expect(r.sources).toContain('src/cli/program.ts');
    expect(r.sources.filter((m) => HEAVY.test(m))).toEqual([]);
  });

  it('the help pages of every command, one after another in one process, load none of that either', async () => {
    // main() for `<command> --help` of each command of the tree, on streams of its own; prints what each page began with.
    const driver = join(work, 'help-pages.mjs');
    const dist = pathToFileURL(join(ROOT, 'dist', 'cli')).href;
    writeFileSync(
      driver,
      `import { PassThrough, Readable } from 'node:stream';
const { main } = await import('${dist}/main.js');
const { buildProgram, walk } = await import('${dist}/program.js');
const path = (cmd) => (cmd.parent ? [...path(cmd.parent), cmd.name()] : []);
const pages = [];
for (const cmd of walk(await buildProgram())) {
  let out = '';
  const stdout = new PassThrough().setEncoding('utf8').on('data', (d) => (out += d));
  const stderr = new PassThrough().setEncoding('utf8').on('data', (d) => process.stderr.write(d));
  const io = { stdin: Readable.from([]), stdout, stderr, isStdinTTY: false, isStdoutTTY: false, isStderrTTY: false, onInterrupt: () => () => {} };
  const code = await main(['node', 'agctl', ...path(cmd), '--help'], { io, env: process.env });
  await new Promise((resolve) => setImmediate(resolve));
  pages.push({ command: ['agctl', ...path(cmd)].join(' '), code, usage: out.split('\\n')[0] });
}
process.stdout.write(JSON.stringify(pages));
`,
    );
    const r = await traced([], 'help-pages', {}, driver);
    expect(r.code, r.stderr).toBe(0);
    const pages = r.json<{ command: string; code: number; usage: string }[]>();
    expect(pages.map((p) => p.command)).toEqual(
      expect.arrayContaining(['agctl', 'agctl webhook send', 'agctl serve', 'agctl completion', 'agctl task approve-step-up']),
    );
    for (const p of pages) {
      expect(p.code, p.command).toBe(0);
      expect(p.usage, p.command).toMatch(new RegExp(`^Usage: ${p.command} `));
    }
    expect(r.sources).toContain('src/cli/program.ts');
    expect(r.sources.filter((m) => HEAVY.test(m))).toEqual([]);
  });

  it('loads the schema library only for the commands that need it: rules list and auth status do not, mcp get does', async () => {
    const s = await startTestServer();
    const env = { AGCTL_BASE_URL: s.baseUrl, AGCTL_ACCESS_TOKEN: await s.token() };
    // The auth method table (src/api/mcp-auth.ts) loads nothing and names the secret fields redaction hides: every command may load it.
    const zod = (sources: string[]) =>
      sources.filter((m) => m.startsWith('node_modules/zod/') || (m.startsWith('src/api/mcp') && m !== 'src/api/mcp-auth.ts'));
    const rules = await traced(['rules', 'list', s.demo.rules.appId as string], 'rules-list-zod', env);
    expect(rules.code, rules.stderr).toBe(0);
    expect(zod(rules.sources)).toEqual([]);
    // agctl api --debug hides the MCP secret fields from their names alone (src/api/secret-fields.ts), not from the schemas.
    const api = await traced(['api', `/api/v1/apps/${s.demo.mcp.appId as string}/mcp_servers`, '--debug'], 'api-debug-zod', env);
    expect(api.code, api.stderr).toBe(0);
    expect(zod(api.sources)).toEqual([]);
    // auth status asks who the caller is (introspect), and loads nothing of the task shapes.
    const status = await traced(['auth', 'status'], 'auth-status-zod', env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.sources).toContain('src/client/introspect.ts');
    expect(zod(status.sources)).toEqual([]);
    const mcp = await traced(['mcp', 'get', s.demo.mcp.appId as string, s.demo.mcp.external as string], 'mcp-get', env);
    expect(mcp.code, mcp.stderr).toBe(0);
    expect(zod(mcp.sources)).toContain('src/api/mcp-schema.ts');
    expect(zod(mcp.sources).some((m) => m.startsWith('node_modules/zod/'))).toBe(true);
  });

  it('loads the keyring binding only for a profile whose key is in the keyring', async () => {
    const s = await startTestServer();
    const dir = join(work, 'keyring-load');
    const login = await runCli(['login', '--base-url', s.baseUrl, '--client-id', s.plainClient.clientId, '--client-secret-stdin'], {
      configDir: dir,
      input: s.plainClient.clientSecret,
    });
    expect(login.code, login.stderr).toBe(0);
    // CI unset, no session bus: only the profile's mark keeps the binding out
    const env = { AGCTL_CONFIG_DIR: dir, CI: undefined, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' } as unknown as Record<
      string,
      string
    >;
    const keyring = (sources: string[]) => sources.filter((m) => m.startsWith('node_modules/@napi-rs/'));
    const fileKept = await traced(['rules', 'list', s.demo.rules.appId as string], 'rules-list-file-kept', env);
    expect(fileKept.code, fileKept.stderr).toBe(0);
    expect(keyring(fileKept.sources)).toEqual([]);
    // the same credential marked as kept in the keyring: the binding is loaded to ask for its key (none here)
    const cred = new Vault(dir, {}).credentialPath({ profile: 'default', baseUrl: s.baseUrl, clientId: s.plainClient.clientId });
    writeFileSync(cred, readFileSync(cred, 'utf8').replace('"keptIn":"file"', '"keptIn":"keyring"'));
    const inKeyring = await traced(['rules', 'list', s.demo.rules.appId as string], 'rules-list-keyring-kept', env);
    expect(inKeyring.code).toBe(3);
    expect(inKeyring.stderr).toMatch(/its key is kept in the OS keyring, which cannot be read here \(.*DBus error/);
    expect(keyring(inKeyring.sources)).toContain('node_modules/@napi-rs/keyring/index.js');
  });

  it('a command loads its own runtime, and only then the HTTP client', async () => {
    const r = await traced(['rules', 'list', 'crm-app'], 'rules-list');
    // the process's exit code is the command's: 2, a usage error
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agctl: no base URL configured$/m);
    expect(r.sources).toContain('src/cli/commands/rules/list/run.ts');
    // Of the other groups, only their declarations (name and description, for the root help) load.
    expect(r.sources.filter((m) => /^src\/cli\/commands\/(mcp|task|webhook)\/(?!command\.ts$)/.test(m))).toEqual([]);
    expect(r.sources.filter((m) => m.startsWith('node_modules/jq-wasm/') || m === 'src/cli/jq.ts')).toEqual([]);
  });

  it('loads jq only for --jq', async () => {
    const r = await traced(['version', '--jq', '.version'], 'version-jq');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.sources).toContain('src/cli/jq.ts');
    expect(r.sources.some((m) => m.startsWith('node_modules/jq-wasm/'))).toBe(true);
  });

  it("sets the process's exit code to the command's, also when commander rejects the command line", async () => {
    // A command's own exit code (2 without a base URL) and success (0) are the traced runs' above
    // (a command loads its own runtime; --help); here, a parse error, which ends before any command runs.
    const r = await spawnCliProcess(['rules', 'list', '--no-such-flag'], { configDir: join(work, 'exit-config') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agctl: unknown option '--no-such-flag'/m);
  });

  it('says how to build when dist/ is missing', () => {
    const bin = join(work, 'unbuilt', 'bin');
    mkdirSync(bin, { recursive: true });
    copyFileSync(BIN, join(bin, 'agctl.js'));
    const r = spawnSync(process.execPath, [join(bin, 'agctl.js'), '--help'], { encoding: 'utf8' });
    expect(r.stderr).toBe('agctl: not built yet; run `npm run build` (npm install does it for you)\n');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
  });
});
