// Entry point: fast paths first (`agctl --version` loads one small module), then the
// commander program tree, whose actions import their command modules lazily.
import { setFlagsFromString } from 'node:v8';
import { version } from '../version.js';
import { safeJson } from './escape.js';

export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`agctl ... | head`, `| grep -q`) is not an
  // error: what is left to print goes nowhere, and the command still runs to
  // its end, so the exit code is its outcome (a step-up still pending is 10,
  // not 0) and nothing is left half done.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') return;
      throw err;
    });
  }
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(version() + '\n');
    return;
  }
  // undici parses HTTP with a WebAssembly build of llhttp. V8 optimises that
  // module on background threads and process exit waits for them: ~45 ms of
  // every short command. The baseline compiler alone is plenty for a CLI.
  setFlagsFromString('--liftoff-only');
  const { buildProgram, walk } = await import('./program.js');
  const program = await buildProgram(args);
  const json = wantsJson(args, process.env);
  if (json) {
    // Parse errors follow -o json too: one JSON object on stderr, like every other error.
    const outputError = (str: string, write: (s: string) => void) =>
      write(safeJson({ error: { status: null, code: 'usage', message: str.replace(/^error: /, '').trim(), details: [] } }) + '\n');
    for (const cmd of walk(program)) cmd.configureOutput({ outputError });
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    // commander's own outcomes (help shown, bad flags) need nothing more loaded.
    const code = (err as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && code.startsWith('commander.')) {
      process.exitCode = code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help' ? 0 : 2;
      return;
    }
    const { handleTopLevelError } = await import('./run.js');
    handleTopLevelError(err, args, json);
  }
}

/** Whether -o json (or AGCTL_OUTPUT=json) is asked for, read before commander parses anything. */
export function wantsJson(args: string[], env: NodeJS.ProcessEnv): boolean {
  let format = env.AGCTL_OUTPUT;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (a === '-o' || a === '--output') format = args[++i];
    else if (a.startsWith('--output=')) format = a.slice('--output='.length);
    else if (/^-o[^-]/.test(a)) format = a.slice(2);
  }
  return format === 'json';
}
