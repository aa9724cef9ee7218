// Terminal facts decided in one place (after gh's iostreams): TTYs, colour, prompting.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { ciSet } from '../lib/ci.js';
import { UsageError } from '../lib/exit.js';
import { FileReadError, describeLimit, readFileLimited } from '../lib/read-file.js';

/** The most a secret, a key or a JSON configuration given on stdin or in a file may hold. */
const MAX_SMALL_INPUT_BYTES = 1024 * 1024;

export interface IO {
  stdin: Readable & { isTTY?: boolean };
  /** `columns` and `rows`: the terminal's size, when stdout is one (tables fit it; long ones are paged). */
  stdout: Writable & { isTTY?: boolean; columns?: number; rows?: number };
  /** `columns`: the terminal's current width, when stderr is one (live lines are fitted to it). */
  stderr: Writable & { isTTY?: boolean; columns?: number };
  /** stdout is a terminal. */
  isStdoutTTY: boolean;
  isStdinTTY: boolean;
  isStderrTTY: boolean;
  /**
   * Calls `listener` on Ctrl-C (SIGINT) until the returned function is called.
   * While a listener is there, Ctrl-C no longer ends the process: the command
   * stops what it is doing and returns 130 itself. Subscribe only around a wait.
   */
  onInterrupt(listener: () => void): () => void;
  /** Calls `listener` on SIGTERM until the returned function is called (`serve` stops cleanly). */
  onTerminate(listener: () => void): () => void;
}

/**
 * The pager for long tables on a terminal: AGCTL_PAGER, else PAGER (as gh's
 * GH_PAGER and PAGER), else `less` when it is on PATH (as git does); none
 * when empty or `cat`.
 */
export function pagerCommand(env: NodeJS.ProcessEnv): string | undefined {
  const command = (env.AGCTL_PAGER ?? env.PAGER ?? (onPath('less', env.PATH) ? 'less' : '')).trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/** Whether an executable file `name` is in one of the directories of `path`. */
function onPath(name: string, path: string | undefined): boolean {
  return (path ?? '').split(delimiter).some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return statSync(join(dir, name)).isFile();
    } catch {
      return false;
    }
  });
}

/** Why agctl does not prompt here, in a hint's words; empty when it may. */
function promptsOff(io: IO, env: NodeJS.ProcessEnv, inputFlag: boolean | undefined): string[] {
  const why: string[] = [];
  if (inputFlag === false) why.push('--no-input was given');
  if (ciSet(env)) why.push(`the CI variable is set (CI=${env.CI})`);
  const notTTY = [!io.isStdinTTY && 'stdin', !io.isStdoutTTY && 'stdout'].filter(Boolean);
  if (notTTY.length) why.push(`${notTTY.join(' and ')} ${notTTY.length > 1 ? 'are not terminals' : 'is not a terminal'}`);
  return why;
}

/** Prompts only when stdin and stdout are terminals, CI is unset and --no-input is absent. */
export function promptsAllowed(io: IO, env: NodeJS.ProcessEnv, inputFlag: boolean | undefined): boolean {
  return promptsOff(io, env, inputFlag).length === 0;
}

/** The hint for a command that would have asked: when agctl asks, and what stops it here. */
export function noPromptHint(io: IO, env: NodeJS.ProcessEnv, inputFlag: boolean | undefined): string {
  const why = promptsOff(io, env, inputFlag);
  return `agctl asks only on a terminal, with CI unset and without --no-input${why.length ? `; here ${why.join(' and ')}` : ''}`;
}

/** Reads all of stdin as bytes, refusing more than `maxBytes`. */
export async function readStdinBytes(io: IO, what: string, maxBytes = MAX_SMALL_INPUT_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > maxBytes) throw new UsageError(`the ${what} on standard input is larger than ${describeLimit(maxBytes)}`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** Reads all of stdin as text (for --...-stdin flags). */
export async function readStdin(io: IO, what: string, maxBytes = MAX_SMALL_INPUT_BYTES): Promise<string> {
  return (await readStdinBytes(io, what, maxBytes)).toString('utf8');
}

/**
 * Reads a file named by a flag, at most `maxBytes` (enforced while reading, so
 * /dev/zero or a FIFO cannot grow without end). A file that cannot be read, a
 * directory or a file over the limit is a usage error naming the flag:
 * `--flag FILE: larger than N bytes`.
 */
export function readFileBytes(path: string, flag: string, maxBytes = MAX_SMALL_INPUT_BYTES): Buffer {
  try {
    return readFileLimited(path, maxBytes);
  } catch (err) {
    if (err instanceof FileReadError) throw new UsageError(`${flag} ${path}: ${err.message}`);
    throw err;
  }
}
