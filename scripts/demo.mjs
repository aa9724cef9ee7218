#!/usr/bin/env node
// The tour: starts `agctl serve` on a fresh data directory, then runs every
// command against it through the real binary, section by section
// (scripts/demo/NN-*.mjs, in order). Exits non-zero when a step fails.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'agctl.js');
if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  console.error('demo: dist/ is missing; run `npm install` (or `npm run build`) first');
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'agctl-demo-'));
const configDir = join(work, 'config');
const dataDir = join(work, 'data');
const readyFile = join(work, 'ready.json');
const env = { ...process.env, AGCTL_CONFIG_DIR: configDir, AGCTL_DATA_DIR: dataDir };
for (const k of ['AGCTL_PROFILE', 'AGCTL_BASE_URL', 'AGCTL_CLIENT_ID', 'AGCTL_CLIENT_SECRET', 'AGCTL_ACCESS_TOKEN', 'AGCTL_OUTPUT'])
  delete env[k];

const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[0m` : s);
let failures = 0;

/** Runs agctl with args; prints the command and its output; checks the exit code. */
export function agctl(args, { input, expect = 0, quiet = false, extraEnv = {} } = {}) {
  const shown = args.map((a) => (/[\s'"$]/.test(a) ? `'${a.replace(/'/g, `'\\''`)}'` : a)).join(' ');
  console.log(`\n${bold('$ agctl ' + shown)}${input !== undefined ? bold('   # stdin supplied') : ''}`);
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: { ...env, ...extraEnv },
    input: input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (!quiet) {
    if (r.stdout) process.stdout.write(r.stdout);
    if (r.stderr) process.stdout.write(r.stderr);
  }
  if (r.status !== expect) {
    failures++;
    console.log(`!! expected exit ${expect}, got ${r.status}`);
  } else if (expect !== 0) {
    console.log(`(exit ${r.status}, as expected)`);
  }
  return r;
}

const server = spawn(
  process.execPath,
  [bin, 'serve', '--data-dir', dataDir, '--ready-file', readyFile, '--quiet', '--allow-insecure-jwks'],
  {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
let serverLog = '';
server.stderr.on('data', (d) => (serverLog += d));
const stopServer = () => {
  if (server.exitCode === null) server.kill('SIGTERM');
};
process.on('exit', () => {
  stopServer();
  // The tour's profiles leave no key behind in the OS keyring (logout removes it; nothing is sent).
  let profiles = [];
  try {
    profiles = Object.keys(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles ?? {});
  } catch {
    // no profile saved
  }
  for (const p of profiles) spawnSync(process.execPath, [bin, 'logout', '--profile', p], { env, stdio: 'ignore', timeout: 10_000 });
  rmSync(work, { recursive: true, force: true });
});

const deadline = Date.now() + 15_000;
while (!existsSync(readyFile)) {
  if (Date.now() > deadline || server.exitCode !== null) {
    console.error(`demo: the server did not start:\n${serverLog}`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 50));
}
const ready = JSON.parse(readFileSync(readyFile, 'utf8'));
console.log(bold(`agctl tour against the embedded server at ${ready.baseUrl}`));
console.log(serverLog.trimEnd());

const sectionsDir = join(root, 'scripts', 'demo');
const ctx = { agctl, ready, env, work, readyFile, bold };
for (const file of readdirSync(sectionsDir)
  .filter((f) => /^\d+-.*\.mjs$/.test(f))
  .sort()) {
  const mod = await import(pathToFileURL(join(sectionsDir, file)).href);
  console.log(`\n${bold('== ' + (mod.title ?? file) + ' ==')}`);
  try {
    await mod.default(ctx);
  } catch (err) {
    failures++;
    console.log(`!! section ${file} failed: ${err?.message ?? err}`);
  }
}

stopServer();
await new Promise((r) => (server.exitCode !== null ? r() : server.once('exit', r)));
console.log(
  `\n${failures === 0 ? bold('Tour complete: every step behaved as expected.') : bold(`Tour finished with ${failures} unexpected result(s).`)}`,
);
process.exit(failures === 0 ? 0 : 1);
