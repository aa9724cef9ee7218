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
