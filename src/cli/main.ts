// Entry point: fast paths first (`agctl --version` loads one small module), then the
// commander program tree, whose actions import their command modules lazily.
// Everything a run reads or writes comes in `deps`: bin/agctl.js passes the
// real process, tests an in-memory one.
import type { Clock } from '../lib/clock.js';
import { EXIT_NAMES, Exit, jsonError } from '../lib/exit.js';
import { version } from '../version.js';
import { escapeControls, safeJson } from './escape.js';
import { bindInvocation, type Invocation } from './invocation.js';
import type { IO } from './io.js';
import { colorEnabled, paintLabels } from './paint.js';

export { processIO } from './process-io.js';

interface MainDeps {
  io: IO;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  /** When the run started, in performance.now() ms (default: now); bin/agctl.js passes 0, the process's start. */
  startedAt?: number;
}

/** Runs one command line (`argv` as process.argv: node, script, arguments...) and returns its exit code. */
export async function main(argv: string[], deps: MainDeps): Promise<number> {
  const startedAt = deps.startedAt ?? performance.now();
  const { io, env } = deps;
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    io.stdout.write(version() + '\n');
    return 0;
  }
  const { buildProgram, walk, wantsJson, HELP_WIDTH } = await import('./program.js');
  const program = await buildProgram(args);
  const json = wantsJson(args, env, io.isStderrTTY);
  const invocation: Invocation = { io, env, clock: deps.clock, startedAt, json };
  bindInvocation(program, invocation);
  // Parse errors follow -o json too: one JSON object on stderr, like every other error.
  const jsonParseError = (str: string, write: (s: string) => void) =>
    write(safeJson(jsonError(EXIT_NAMES[Exit.Usage]!, str.replace(/^error: /, '').trim(), Exit.Usage)) + '\n');
  for (const cmd of walk(program)) {
    cmd.configureOutput({
      writeOut: (s) => io.stdout.write(s),
      // commander quotes the arguments it refuses: their control characters show as escapes.
      writeErr: (s) => io.stderr.write(paintLabels(escapeControls(s, '\n'), colorEnabled(io, env, !args.includes('--no-color'), 'stderr'))),
      getOutHelpWidth: () => helpWidth(io.isStdoutTTY, io.stdout, HELP_WIDTH),
      getErrHelpWidth: () => helpWidth(io.isStderrTTY, io.stderr, HELP_WIDTH),
      // The help text carries no colour of its own.
      getOutHasColors: () => false,
      getErrHasColors: () => false,
      ...(json ? { outputError: jsonParseError } : {}),
    });
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    // commander's own outcomes (help shown, bad flags) need nothing more loaded.
    const code = (err as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && code.startsWith('commander.')) {
      return code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help' ? 0 : 2;
    }
    const { handleTopLevelError } = await import('./run.js');
    return handleTopLevelError(err, args, json, io);
  }
  return invocation.exitCode ?? 0;
}

/**
 * Help is `max` columns wide (80), narrower on a narrower terminal: the pages
 * `agctl --help` and `agctl <group> --help` print from the build (bin/agctl.js)
 * are these, made at `max`.
 */
const helpWidth = (tty: boolean, stream: { columns?: number }, max: number): number =>
  tty && stream.columns ? Math.min(stream.columns, max) : max;
