#!/usr/bin/env node
// The package as a user gets it: packs the tarball (`npm pack`, which builds
// dist/ in `prepack`), installs it globally into a temporary prefix with an
// empty npm cache (every dependency downloaded, no dev dependency), then runs
// the installed `agctl` as the README tells a new user to. Exits non-zero on
// the first thing that is wrong, naming it. Slow (a real install: better-sqlite3
// may compile where no prebuilt binary can be fetched: 85 s on an idle 2-core
// machine, over 10 min on a loaded one), so it is its own
// script: `npm run test:pack`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'agctl-pack-'));
const prefix = join(work, 'prefix');
const cache = join(work, 'npm-cache');
const home = join(work, 'home');
for (const d of [prefix, cache, home]) mkdirSync(d);

let failed = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failed++;
};

/** Runs a program, at most `timeoutMs`; prints what it took. */
function run(cmd, args, { cwd = work, env = process.env, timeoutMs = 60_000, label } = {}) {
  const started = performance.now();
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (label) console.log(`     ${label}: ${seconds} s`);
  if (r.error || r.status !== 0) {
    console.error(`${[cmd, ...args].join(' ')} failed (${r.error ? r.error.message : `exit ${r.status}`}):\n${r.stdout}\n${r.stderr}`);
  }
  return r;
}

try {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const pack = run(npm, ['pack', '--pack-destination', work, '--json'], { cwd: root, timeoutMs: 300_000, label: 'npm pack' });
  if (pack.status !== 0) throw new Error('npm pack failed');
  const [{ filename, files }] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')));
  const shipped = new Set(files.map((f) => f.path));
  // What the README links to is in the package: the docs, the license, the contributor guide.
  for (const f of [
    'LICENSE',
    'README.md',
    'docs/commands.md',
    'docs/architecture.md',
    'src/cli/README.md',
    'bin/agctl.js',
    'dist/cli/main.js',
    'dist/help.json',
    'completions/agctl.bash',
  ])
    check(shipped.has(f), `the tarball holds ${f}`);
  check(
    ![...shipped].some((f) => f.endsWith('.ts') || f.endsWith('.map') || f.startsWith('test/') || f === 'dist/contents.json'),
    'the tarball holds no sources, tests or build records',
  );
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const links = [...readme.matchAll(/\]\(([^)#:]+)(#[^)]*)?\)/g)].map((m) => m[1]);
  for (const l of new Set(links)) check(shipped.has(l), `README link ${l} is in the tarball`);

  // An empty cache and a fresh prefix: what `npm i -g` does on a machine that never saw agctl.
  const env = { ...process.env, HOME: home, npm_config_cache: cache, npm_config_prefix: prefix, npm_config_update_notifier: 'false' };
  for (const k of Object.keys(env)) if (/^AGCTL_/.test(k) || k === 'npm_config_global') delete env[k];
  const install = run(npm, ['install', '--global', '--prefix', prefix, '--cache', cache, '--no-audit', '--no-fund', join(work, filename)], {
    env,
    timeoutMs: 1_200_000,
    label: 'npm i -g of the tarball',
  });
  check(install.status === 0, 'npm i -g of the tarball');
  if (install.status !== 0) throw new Error('install failed');
  const installed = join(prefix, process.platform === 'win32' ? '' : 'lib', 'node_modules', 'agctl');
  const devDeps = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies);
  const presentDev = devDeps.filter((d) => existsSync(join(installed, 'node_modules', d)));
  check(presentDev.length === 0, `no dev dependency installed${presentDev.length ? ` (found ${presentDev.join(', ')})` : ''}`);

  const agctl = join(prefix, 'bin', process.platform === 'win32' ? 'agctl.cmd' : 'agctl');
  const runEnv = { ...env, AGCTL_CONFIG_DIR: join(work, 'config'), AGCTL_DATA_DIR: join(work, 'data'), NO_COLOR: '1', CI: '1' };
  const version = run(agctl, ['--version'], { env: runEnv });
  check(
    version.status === 0 && version.stdout.trim() === JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version,
    'agctl --version prints the package version',
  );
  const help = run(agctl, ['--help'], { env: runEnv });
  const builtRoot = JSON.parse(readFileSync(join(installed, 'dist', 'help.json'), 'utf8')).pages[''];
  check(
    help.status === 0 && help.stdout.startsWith('Usage: agctl ') && help.stdout === builtRoot,
    'agctl --help prints the page the build made',
  );
  const list = run(agctl, ['--embedded', 'rules', 'list', 'crm-app', '-o', 'json'], { env: runEnv, timeoutMs: 120_000 });
  let rules;
  try {
    rules = JSON.parse(list.stdout);
  } catch {
    rules = undefined;
  }
  check(
    list.status === 0 && Array.isArray(rules) && rules.length > 0,
    `agctl --embedded rules list crm-app (${Array.isArray(rules) ? rules.length : 'no'} rules)`,
  );
  const bash = run(agctl, ['completion', 'bash'], { env: runEnv });
  check(bash.status === 0 && bash.stdout.includes('complete ') && bash.stdout.includes('agctl'), 'agctl completion bash');
} catch (err) {
  console.error(`pack test: ${err.message}`);
  failed++;
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(failed ? `${failed} check(s) failed` : 'the packed tarball installs and runs');
process.exit(failed ? 1 : 0);
