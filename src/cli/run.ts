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
import { colorEnabled, paintLabels } from './paint.js';
import { columnKey, type ColumnPick } from './columns.js';
import { declaredColumns } from './tree/columns.js';

export async function execute(cmd: Command, fn: (ctx: CommandContext) => Promise<CommandResult>): Promise<void> {
  const invocation = invocationOf(cmd);
  const { io, env, clock } = invocation;
  const flags = cmd.optsWithGlobals() as GlobalFlags & { jq?: string };
  let ctx: CommandContext | undefined;
  let code: number;
  // --jq alone implies -o json; its errors are JSON only off a terminal (see wantsJson).
  const jqOnly = flags.jq !== undefined && flags.output === undefined;
  try {
    if (flags.jq !== undefined) flags.output = jqOutput(cmd, flags.output);
    ctx = new CommandContext({ io, env, flags, clock });
    if (ctx.out.color) await ctx.out.styles();
    if (flags.jq !== undefined) await ctx.out.useJq(flags.jq, env);
    await ctx.out.useYaml();
    ctx.out.usePager(pagerCommand(env), env);
    const pick = (cmd.opts() as { columns?: ColumnPick }).columns;
    const declared = cmd.options.map((o) => declaredColumns(o)).find(Boolean);
    if (pick === 'help' && declared) {
      // The columns a list declares are listed without asking the server (a get command's come from its answer).
      for (const name of declared) ctx.out.print(columnKey(name));
      code = 0;
    } else {
      ctx.out.pickColumns(pick);
      code = (await fn(ctx)) ?? 0;
    }
  } catch (err) {
    const json = ctx ? ctx.out.format === 'json' && !(jqOnly && io.isStderrTTY) : invocation.json;
    code = report(err, flags, io, json, settingsIfAny(ctx), colorEnabled(io, env, flags.color, 'stderr'));
  } finally {
    await ctx?.close();
  }
  invocation.exitCode = code;
}

/** --jq filters JSON: it implies -o json, contradicts -o table, and has nothing to filter where no JSON is printed. */
function jqOutput(cmd: Command, output: string | undefined): 'json' {
  if (!printsJson(cmd)) throw new UsageError(`--jq filters JSON output: \`${cmd.name()}\` prints none`, 'drop --jq');
  if (output !== undefined && output !== 'json')
    throw new UsageError(`--jq filters JSON output: it cannot be combined with -o ${output}`, `drop -o ${output} (--jq implies -o json)`);
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
function report(err: unknown, flags: Pick<GlobalFlags, 'debug'>, io: IO, json: boolean, settings?: Settings, color = false): number {
  const r = renderError(err);
  const hint = withProfile(r.hint, settings);
  if (json) {
    io.stderr.write(jsonErrorLine(r.json, { hint: hint ?? null }));
  } else {
    io.stderr.write(paintLabels(`agctl: ${r.line}\n${hint ? `hint: ${hint}\n` : ''}`, color));
  }
  // The stack's first line is the message, which may quote a server's text.
  if (flags.debug && r.exitCode === Exit.Bug && err instanceof Error && err.stack) io.stderr.write(escapeControls(err.stack, '\n') + '\n');
  return r.exitCode;
}

/** Errors that escaped a command's own handling (commander's are handled in main.ts); returns the exit code. */
export function handleTopLevelError(err: unknown, args: string[], json: boolean, io: IO): number {
  return report(err, { debug: args.includes('--debug') }, io, json);
}
