// Runs the CLI for tests. runCli/cliFor/startCli run main() in this process
// (fast: no node start-up, no build needed) with in-memory streams and an
// environment of their own; spawnCliProcess/spawnCli run the real
// bin/agctl.js in a child process, for what only a process shows (the
// launcher, signals, a closed pipe, several processes at once, preloads).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { IO } from '../../src/cli/io.js';
import { sleep, type Clock } from '../../src/lib/clock.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'agctl.js');

/**
 * The clock of in-process runs: the system's time, but every wait (a
 * request's retries, the pauses of a poll) takes at most 10 ms instead of the
 * back-off (whose policy test/unit/client/http.test.ts checks with recorded
 * waits), so a test of an unreachable server does not wait seconds for
 * nothing.
 */
export const testClock: Clock = { now: () => Date.now(), sleep: (ms, signal) => sleep(Math.min(ms, 10), signal) };

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws when it is not). */
  json<T = any>(): T;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  timeoutMs?: number;
  /** Working directory (spawnCliProcess only: an in-process run shares this process's). */
  cwd?: string;
  /** The script the process runs (spawnCliProcess only; default bin/agctl.js). */
  script?: string;
  /** A command the process is started through, node and its arguments following (spawnCliProcess only): `unshare ...`, `setpriv ...`. */
  launcher?: string[];
}

/** A fresh temporary directory removed after the test file. */
export function tempDir(prefix = 'agctl-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The environment every CLI run starts from: no inherited AGCTL_* settings, no colour, CI set. */
export function baseEnv(configDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('AGCTL_') && k !== 'FORCE_COLOR') env[k] = v;
  return { ...env, AGCTL_CONFIG_DIR: configDir, NO_COLOR: '1', CI: '1' };
}

function runEnv(opts: CliOptions & { configDir: string }): Record<string, string> {
  const env: Record<string, string | undefined> = { ...baseEnv(opts.configDir), ...opts.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env as Record<string, string>;
}

function result(code: number | null, stdout: string, stderr: string): CliResult {
  return {
    code,
    stdout,
    stderr,
    json: () => {
      try {
        return JSON.parse(stdout);
      } catch {
        throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
      }
    },
  };
}

/**
 * A run of main() in this process, on in-memory streams (none a terminal) and
 * the given environment; `interrupt()` is Ctrl-C as io.onInterrupt sees it.
 */
function startInProcess(args: string[], env: NodeJS.ProcessEnv, input: string | Buffer = '') {
  if (env.NODE_OPTIONS) throw new Error('NODE_OPTIONS takes effect only in a new process: use spawnCliProcess');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  const stderrListeners = new Set<() => void>();
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    for (const l of stderrListeners) l();
  });
  const interruptListeners = new Set<() => void>();
  const terminateListeners = new Set<() => void>();
  const io: IO = {
    stdin: Readable.from(input.length ? [Buffer.from(input)] : []),
    stdout,
    stderr,
    isStdinTTY: false,
    isStdoutTTY: false,
    isStderrTTY: false,
    onInterrupt(listener) {
      const l = () => listener();
      interruptListeners.add(l);
      return () => void interruptListeners.delete(l);
    },
    onTerminate(listener) {
      const l = () => listener();
      terminateListeners.add(l);
      return () => void terminateListeners.delete(l);
    },
  };
  const done = main(['node', BIN, ...args], { io, env, clock: testClock }).then(async (code) => {
    // Let what was written reach the collectors.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return result(code, out, err);
  });
  return {
    done,
    stderr: () => err,
    onStderr: (l: () => void) => stderrListeners.add(l),
    interrupt: () => {
      for (const l of [...interruptListeners]) l();
    },
    /** SIGTERM as io.onTerminate sees it. */
    terminate: () => {
      for (const l of [...terminateListeners]) l();
    },
  };
}

/** Runs the CLI in this process with an isolated config dir (and env from baseEnv + opts.env). */
export async function runCli(args: string[], opts: CliOptions & { configDir: string }): Promise<CliResult> {
  if (opts.cwd !== undefined || opts.script !== undefined || opts.launcher !== undefined)
    throw new Error('runCli runs main() in this process, in its directory: use spawnCliProcess');
  const run = startInProcess(args, runEnv(opts), opts.input);
  const timeoutMs = opts.timeoutMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`agctl ${args.join(' ')} did not finish in ${timeoutMs} ms; stderr so far:\n${run.stderr()}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([run.done, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

type Runner = (args: string[], opts: CliOptions & { configDir: string }) => Promise<CliResult>;

/** A CLI runner bound to one config dir (and default env), e.g. logged in to a test server. */
export function cliFor(configDir: string, defaults: Record<string, string | undefined> = {}, runner: Runner = runCli) {
  return (args: string[], opts: CliOptions = {}) => runner(args, { ...opts, configDir, env: { ...defaults, ...opts.env } });
}

/** Runs the real bin/agctl.js in a child process, with an isolated config dir (and env from baseEnv + opts.env). */
export function spawnCliProcess(args: string[], opts: CliOptions & { configDir: string }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const argv = [process.execPath, opts.script ?? BIN, ...args];
    const [command, ...rest] = [...(opts.launcher ?? []), ...argv];
    const child = spawn(command!, rest, { env: runEnv(opts), cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(result(code, stdout, stderr));
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Resolves when `stderr()` matches `re`, checked now and on each `onStderr`; rejects if `done` comes first. */
function stderrWaiter(stderr: () => string, onStderr: (l: () => void) => void, done: Promise<CliResult>) {
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  onStderr(() => {
    for (const w of waiters.splice(0)) {
      const m = stderr().match(w.re);
      if (m) w.resolve(m);
      else waiters.push(w);
    }
  });
  return (re: RegExp): Promise<RegExpMatchArray> => {
    const m = stderr().match(re);
    if (m) return Promise.resolve(m);
    return new Promise((resolve, reject) => {
      waiters.push({ re, resolve });
      void done.then((r) => reject(new Error(`the CLI exited (${r.code}) before printing ${re}:\n${r.stderr}`)));
    });
  };
}

/**
 * Starts the CLI in this process (env as given, see baseEnv) and lets the test
 * react to its stderr while it runs: confirm a step-up page mid-wait.
 * `interrupt()` is Ctrl-C and `terminate()` SIGTERM as the command sees them (for a real signal, use spawnCli).
 */
export function startCli(args: string[], env: Record<string, string>, input?: string | Buffer) {
  const run = startInProcess(args, env, input);
  return {
    done: run.done,
    interrupt: run.interrupt,
    terminate: run.terminate,
    waitForStderr: stderrWaiter(run.stderr, run.onStderr, run.done),
  };
}

/**
 * Spawns the real CLI (env as given, see baseEnv) and lets the test react to
 * its stderr while it runs: confirm a step-up page mid-wait, send a signal.
 */
export function spawnCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
    for (const l of listeners) l();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(result(code, stdout, stderr));
    }),
  );
  return {
    done,
    kill: (signal: NodeJS.Signals) => child.kill(signal),
    waitForStderr: stderrWaiter(
      () => stderr,
      (l) => listeners.add(l),
      done,
    ),
  };
}
