// Benchmark part 1: whole-process wall time of agctl start-up paths, each as a
// ratio to `node -e 0` measured in the same run (median of >= 10 runs, the
// commands taking turns so that the machine's speed changes reach all alike).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, timeInterleaved, printTable, startServeProcess } from './lib.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'agctl.js');

export async function run({ runs = 15 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'agctl-bench-'));
  // The server runs in its own process: the timed runs block this one.
  const server = await startServeProcess(dir);
  try {
    const info = server.info;
    const client = info.clients.find((c) => c.form === 'plain');
    const env = { ...process.env, AGCTL_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
    for (const k of ['AGCTL_PROFILE', 'AGCTL_BASE_URL', 'AGCTL_CLIENT_ID', 'AGCTL_CLIENT_SECRET', 'AGCTL_ACCESS_TOKEN', 'AGCTL_OUTPUT'])
      delete env[k];
    const { spawnSync } = await import('node:child_process');
    const login = spawnSync(
      process.execPath,
      [bin, 'login', '--base-url', info.baseUrl, '--client-id', client.clientId, '--client-secret-stdin'],
      { env, input: client.clientSecret },
    );
    if (login.status !== 0) throw new Error(`login failed: ${login.stderr}`);
    const app = info.demo.rules.appId;

    const cases = [
      ['agctl --version', ['--version'], 1.2],
      ['agctl --help', ['--help'], 1.2],
      [`agctl rules list ${app} (cached token)`, ['rules', 'list', app], 2.4],
    ];
    const [baseline, ...timed] = timeInterleaved(
      [[process.execPath, ['-e', '0']], ...cases.map(([, args]) => [process.execPath, [bin, ...args]])],
      { runs, env },
    );
    const rows = [['node -e 0 (baseline)', baseline.median.toFixed(1), '1.00', '-', '-']];
    const results = [];
    cases.forEach(([name, , target], i) => {
      const t = timed[i];
      // The median of each round's ratio: a round takes well under a second,
      // so the machine's speed changes between rounds cancel out.
      const ratio = median(t.times.map((ms, r) => ms / baseline.times[r]));
      results.push({ name, ms: t.median, ratio, target });
      rows.push([name, t.median.toFixed(1), ratio.toFixed(2), `<= ${target.toFixed(2)}`, ratio <= target ? 'met' : 'MISSED']);
    });
    console.log(`\nStart-up (median of ${runs} runs each, taking turns; ms; ratio: median of each round's ratio to node -e 0)\n`);
    printTable(['command', 'median ms', 'ratio', 'target', ''], rows);
    return { baselineMs: baseline.median, results };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
