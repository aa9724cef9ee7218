// Stress: processes racing on one lock over a stale lock file, and two serves
// started at once over a stale serve.pid. Each round starts from a lock left
// by a process that died; the children (test/stress/child.ts) take it at once.
// AGCTL_STRESS_SRC=<another src/> runs the same rounds against another tree
// (an earlier agctl) to measure it. Bounded: ROUNDS, or TIME_CAP_MS.
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';

const CHILD = join(import.meta.dirname, 'child.ts');
// A bound on a busy machine; idle, the rounds take 25-40 s.
const TIME_CAP_MS = 110_000;
/** A PID that ran and exited. */
const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;

type Reply = {
  round?: number;
  tx?: string;
  kept?: boolean;
  ready?: boolean;
  twice?: boolean;
  busy?: string;
  started?: boolean;
  why?: string;
  released?: boolean;
};

function start(
  n: number,
  env: Record<string, string>,
): Promise<{ children: ChildProcess[]; ask: (i: number, msg: object) => Promise<Reply> }> {
  const children = Array.from({ length: n }, () =>
    fork(CHILD, [], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  afterAll(() => children.forEach((c) => c.kill()));
  const waiting = children.map(() => [] as ((r: Reply) => void)[]);
  children.forEach((c, i) => c.on('message', (r: Reply) => waiting[i]!.shift()?.(r)));
  const ask = (i: number, msg: object) =>
    new Promise<Reply>((done) => {
      waiting[i]!.push(done);
      if (Object.keys(msg).length) children[i]!.send(msg);
    });
  return Promise.all(children.map((_, i) => ask(i, {}))).then(() => ({ children, ask }));
}

describe('stress', () => {
  it('10 processes take one lock over a stale lock file, 1000 rounds: never two inside, never a waiter refused, nothing left behind', {
    timeout: 150_000,
  }, async () => {
    const dir = tempDir('agctl-stress-lock-');
    const path = join(dir, 'config.lock');
    const N = Number(process.env.STRESS_N ?? 10);
    const ROUNDS = 1000;
    const { ask } = await start(N, {
      STRESS_MODE: 'lock',
      LOCK_PATH: path,
      MARKER: join(dir, 'inside'),
      WAIT_MS: '5000',
      INSIDE_NS: process.env.INSIDE_NS ?? '500000',
    });
    const stale = JSON.stringify({ pid: deadPid, host: hostname(), id: 'dead' });
    let twice = 0;
    let refused = 0;
    let leftBehind = 0;
    let rounds = 0;
    const began = Date.now();
    for (; rounds < ROUNDS && Date.now() - began < TIME_CAP_MS; rounds++) {
      writeFileSync(path, stale);
      const replies = await Promise.all(Array.from({ length: N }, (_, i) => ask(i, { round: rounds })));
      twice += replies.filter((r) => r.twice).length;
      refused += replies.filter((r) => r.busy).length;
      const left = readdirSync(dir);
      if (left.length) {
        leftBehind++;
        for (const f of left) rmSync(join(dir, f), { force: true });
      }
    }
    const figures = {
      rounds,
      seconds: (Date.now() - began) / 1000,
      twoInside: twice,
      waitersRefused: refused,
      roundsWithALockOrFileLeft: leftBehind,
    };
    console.log(`lock stress (${process.env.AGCTL_STRESS_SRC ?? 'this tree'}):`, JSON.stringify(figures));
    expect(figures).toMatchObject({ rounds: ROUNDS, twoInside: 0, waitersRefused: 0, roundsWithALockOrFileLeft: 0 });
  });

  it('two serves on a stale serve.pid, 2000 rounds: never both running, one always', { timeout: 150_000 }, async () => {
    const dir = tempDir('agctl-stress-serve-');
    const ROUNDS = 2000;
    const { ask } = await start(2, { STRESS_MODE: 'serve', DATA_DIR: dir });
    let both = 0;
    let none = 0;
    let rounds = 0;
    const began = Date.now();
    for (; rounds < ROUNDS && Date.now() - began < TIME_CAP_MS; rounds++) {
      writeFileSync(join(dir, 'serve.pid'), `${deadPid}\n`);
      const replies = await Promise.all([0, 1].map((i) => ask(i, { round: rounds })));
      const started = replies.filter((r) => r.started).length;
      if (started === 2) both++;
      if (started === 0) none++;
      await Promise.all([0, 1].map((i) => ask(i, { round: rounds, op: 'release' })));
      if (existsSync(join(dir, 'serve.pid'))) rmSync(join(dir, 'serve.pid'));
    }
    const figures = { rounds, seconds: (Date.now() - began) / 1000, bothRunning: both, noneRunning: none };
    console.log(`serve lock stress (${process.env.AGCTL_STRESS_SRC ?? 'this tree'}):`, JSON.stringify(figures));
    expect(figures).toMatchObject({ rounds: ROUNDS, bothRunning: 0, noneRunning: 0 });
  });

  it('6 processes keeping a step-up URL at once, 100 rounds: every one is kept (step-up-urls.json is changed holding its lock)', {
    timeout: 150_000,
  }, async () => {
    const dir = tempDir('agctl-stress-urls-');
    const N = 6;
    const ROUNDS = 100;
    const { ask } = await start(N, { STRESS_MODE: 'urls', AGCTL_CONFIG_DIR: dir });
    let lost = 0;
    let rounds = 0;
    const began = Date.now();
    for (; rounds < ROUNDS && Date.now() - began < TIME_CAP_MS; rounds++) {
      rmSync(join(dir, 'step-up-urls.json'), { force: true });
      const replies = await Promise.all(Array.from({ length: N }, (_, i) => ask(i, { round: rounds })));
      const kept = Object.keys(JSON.parse(readFileSync(join(dir, 'step-up-urls.json'), 'utf8')) as object);
      lost += replies.filter((r) => !r.kept || !kept.includes(r.tx!)).length;
    }
    const figures = { rounds, seconds: (Date.now() - began) / 1000, urlsLost: lost };
    console.log(`step-up URL stress (${process.env.AGCTL_STRESS_SRC ?? 'this tree'}):`, JSON.stringify(figures));
    expect(figures).toMatchObject({ rounds: ROUNDS, urlsLost: 0 });
  });
});
