// Shared helpers for the benchmarks: timing of whole processes, medians, tables.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'agctl.js');

/** Starts `agctl serve` on loopback in a child process; resolves once its ready file exists. */
export async function startServeProcess(dir, extraArgs = []) {
  const ready = join(dir, 'ready.json');
  const child = spawn(process.execPath, [BIN, 'serve', '--quiet', '--data-dir', join(dir, 'data'), '--ready-file', ready, ...extraArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  const deadline = Date.now() + 15_000;
  while (!existsSync(ready)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`agctl serve did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    child,
    info: JSON.parse(readFileSync(ready, 'utf8')),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/**
 * Wall time (ms) of whole processes, each command's median of `runs` after
 * `warmup` runs, with every sample (`times`, by round). The commands take
 * turns (one run of each per round), so a change in the machine's speed
 * during the run reaches every command alike. Fails on a non-zero exit.
 */
export function timeInterleaved(commands, { runs = 15, warmup = 2, env = process.env } = {}) {
  const times = commands.map(() => []);
  for (let i = 0; i < warmup + runs; i++) {
    commands.forEach(([cmd, args], c) => {
      const t0 = process.hrtime.bigint();
      const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      if (i >= warmup) times[c].push(ms);
    });
  }
  return times.map((t) => ({ median: median(t), min: Math.min(...t), runs, times: t }));
}

export function printTable(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => '| ' + cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
}
