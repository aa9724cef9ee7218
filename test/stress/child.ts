// A child process of the stress tests (lock.stress.test.ts): takes a lock when
// told, through the source tree named by AGCTL_STRESS_SRC (default this one's
// src/), and answers what happened.
//   lock:  acquireLock on LOCK_PATH, an O_EXCL marker file created inside (a
//          second holder inside finds it), released.
//   serve: lockDataDir on DATA_DIR, held until told to let go.
//   urls:  rememberStepUpUrl in AGCTL_CONFIG_DIR (a read-modify-write of step-up-urls.json).
import { openSync, closeSync, unlinkSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';

const src = resolve(process.env.AGCTL_STRESS_SRC ?? join(import.meta.dirname, '../../src'));
const mode = process.env.STRESS_MODE;

type Msg = { round: number; op?: 'release' };

if (mode === 'lock') {
  const { acquireLock } = (await import(pathToFileURL(join(src, 'config/lock.ts')).href)) as typeof import('../../src/config/lock.js');
  const path = process.env.LOCK_PATH!;
  const marker = process.env.MARKER!;
  const waitMs = Number(process.env.WAIT_MS ?? 5000);
  process.on('message', async ({ round }: Msg) => {
    let release: () => void;
    try {
      release = await acquireLock(path, { waitMs, sleep: (ms: number) => new Promise((r) => setTimeout(r, Math.min(ms, 2))) } as Parameters<
        typeof acquireLock
      >[1]);
    } catch (err) {
      process.send!({ round, busy: String((err as Error).message) });
      return;
    }
    let inside = false;
    let twice = false;
    try {
      closeSync(openSync(marker, 'wx'));
      inside = true;
    } catch {
      twice = true;
    }
    // A little work inside, so that a second holder has time to arrive.
    const until = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * Number(process.env.INSIDE_NS ?? 300_000)));
    while (process.hrtime.bigint() < until);
    if (inside) unlinkSync(marker);
    release();
    process.send!({ round, twice });
  });
} else if (mode === 'serve') {
  const { lockDataDir } = (await import(pathToFileURL(join(src, 'server/lock.ts')).href)) as typeof import('../../src/server/lock.js');
  const dir = process.env.DATA_DIR!;
  let lock: { release(): void } | undefined;
  process.on('message', ({ round, op }: Msg) => {
    if (op === 'release') {
      lock?.release();
      lock = undefined;
      process.send!({ round, released: true });
      return;
    }
    try {
      lock = lockDataDir(dir, { dataDirFlag: '--data-dir' });
      process.send!({ round, started: true });
    } catch (err) {
      process.send!({ round, started: false, why: String((err as Error).message) });
    }
  });
}
if (mode === 'urls') {
  const { rememberStepUpUrl } = (await import(
    pathToFileURL(join(src, 'cli/commands/task/approve-step-up/urls.ts')).href
  )) as typeof import('../../src/cli/commands/task/approve-step-up/urls.js');
  process.on('message', ({ round }: Msg) => {
    const tx = `tx-${round}-${process.pid}`;
    const kept = rememberStepUpUrl(process.env, Date.now(), tx, `https://t.example/su/${tx}`);
    process.send!({ round, tx, kept });
  });
}
process.send!({ ready: true });
