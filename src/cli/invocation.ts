// What one run of the CLI works with (its streams, environment and clock) and
// the exit code it ends with. Kept per program instance, so runs in one
// process (tests, a host embedding the CLI) never share them.
import type { Command } from 'commander';
import type { Clock } from '../lib/clock.js';
import type { IO } from './io.js';

export interface Invocation {
  io: IO;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  /** When the run started, in performance.now() ms: 0, the process's start, for bin/agctl.js; else when main() was called. */
  startedAt: number;
  /** Whether errors met before a command's context exists are JSON (main's `wantsJson`). */
  json: boolean;
  /** Set by the command that ran. */
  exitCode?: number;
}

const invocations = new WeakMap<Command, Invocation>();

export function bindInvocation(program: Command, inv: Invocation): void {
  invocations.set(program, inv);
}

/** The invocation of the program `cmd` belongs to. */
export function invocationOf(cmd: Command): Invocation {
  let root = cmd;
  while (root.parent) root = root.parent;
  const inv = invocations.get(root);
  if (!inv) throw new Error('a command ran outside main()');
  return inv;
}
