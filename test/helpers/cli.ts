// Runs the real bin/agctl.js in a child process, with an isolated config dir.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'agctl.js');

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
  cwd?: string;
}

/** A fresh temporary directory removed after the test file. */
export function tempDir(prefix = 'agctl-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The environment every spawned CLI starts from: no inherited AGCTL_* settings, no colour, CI set. */
export function baseEnv(configDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('AGCTL_') && k !== 'FORCE_COLOR') env[k] = v;
  return { ...env, AGCTL_CONFIG_DIR: configDir, NO_COLOR: '1', CI: '1' };
}

export function runCli(args: string[], opts: CliOptions & { configDir: string }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env = { ...baseEnv(opts.configDir), ...opts.env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    const child = spawn(process.execPath, [BIN, ...args], { env: env as NodeJS.ProcessEnv, cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
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
      });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** A CLI runner bound to one config dir (and default env), e.g. logged in to a test server. */
export function cliFor(configDir: string, defaults: Record<string, string | undefined> = {}) {
  return (args: string[], opts: CliOptions = {}) => runCli(args, { ...opts, configDir, env: { ...defaults, ...opts.env } });
}

/**
 * Spawns the CLI (env as given, see baseEnv) and lets the test react to its
 * stderr while it runs: confirm a step-up page mid-wait, send a signal.
 */
export function spawnCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
    for (const w of waiters.splice(0)) {
      const m = stderr.match(w.re);
      if (m) w.resolve(m);
      else waiters.push(w);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) });
    }),
  );
  return {
    done,
    kill: (signal: NodeJS.Signals) => child.kill(signal),
    waitForStderr(re: RegExp): Promise<RegExpMatchArray> {
      const m = stderr.match(re);
      if (m) return Promise.resolve(m);
      return new Promise((resolve, reject) => {
        waiters.push({ re, resolve });
        void done.then((r) => reject(new Error(`the CLI exited (${r.code}) before printing ${re}:\n${r.stderr}`)));
      });
    },
  };
}
