// Runs a command module with its context, and maps every outcome to an exit code.
import type { Command } from 'commander';
import { Exit, UsageError } from '../lib/exit.js';
import { printsJson, type CommandResult } from './declare.js';
import type { GlobalFlags, Settings } from '../config/resolve.js';
import { CommandContext } from './context.js';
import { jsonErrorLine, renderError, withProfile } from './errors.js';
import { escapeControls } from './escape.js';
import { invocationOf } from './invocation.js';
import { pagerCommand, type IO } from './io.js';

export async function execute(cmd: Command, fn: (ctx: CommandContext) => Promise<CommandResult>): Promise<void> {
  const invocation = invocationOf(cmd);
  const { io, env, clock } = invocation;
  const flags = cmd.optsWithGlobals() as GlobalFlags & { jq?: string };
  let ctx: CommandContext | undefined;
  let code: number;
  try {
    if (flags.jq !== undefined) flags.output = jqOutput(cmd, flags.output);
    ctx = new CommandContext({ io, env, flags, clock });
    if (ctx.out.color) await ctx.out.styles();
    if (flags.jq !== undefined) await ctx.out.useJq(flags.jq, env);
    ctx.out.usePager(pagerCommand(env), env);
    code = (await fn(ctx)) ?? 0;
  } catch (err) {
    code = report(err, flags, io, ctx?.out.json ?? invocation.json, settingsIfAny(ctx));
  } finally {
    await ctx?.close();
  }
  invocation.exitCode = code;
}

/** --jq filters JSON: it implies -o json, contradicts -o table, and has nothing to filter where no JSON is printed. */
function jqOutput(cmd: Command, output: string | undefined): 'json' {
  if (!printsJson(cmd)) throw new UsageError(`--jq filters JSON output: \`${cmd.name()}\` prints none`, 'drop --jq');
  if (output !== undefined && output !== 'json') throw new UsageError('--jq filters JSON output: it cannot be combined with -o table', 'drop -o table (--jq implies -o json)');
  return 'json';
}

/** The settings of the command, when they resolve (an error may be about them). */
function settingsIfAny(ctx: CommandContext | undefined): Settings | undefined {
  try {
    return ctx?.settingsWithoutProfileCheck;
  } catch {
    return undefined;
  }
}

/** `settings`: the command's, for the profile a hint to log in names. */
function report(err: unknown, flags: Pick<GlobalFlags, 'debug'>, io: IO, json: boolean, settings?: Settings): number {
  const r = renderError(err);
  const hint = withProfile(r.hint, settings);
  if (json) {
    io.stderr.write(jsonErrorLine(r.json, { hint: hint ?? null }));
  } else {
    io.stderr.write(`agctl: ${r.line}\n`);
    if (hint) io.stderr.write(`hint: ${hint}\n`);
  }
  // The stack's first line is the message, which may quote a server's text.
  if (flags.debug && r.exitCode === Exit.Bug && err instanceof Error && err.stack) io.stderr.write(escapeControls(err.stack, '\n') + '\n');
  return r.exitCode;
}

/** Errors that escaped a command's own handling (commander's are handled in main.ts); returns the exit code. */
export function handleTopLevelError(err: unknown, args: string[], json: boolean, io: IO): number {
  return report(err, { debug: args.includes('--debug') }, io, json);
}
