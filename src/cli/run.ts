// Runs a command module with its context, and maps every outcome to an exit code.
import type { Command } from 'commander';
import { Exit } from '../api/errors.js';
import type { GlobalFlags } from '../config/resolve.js';
import { CommandContext } from './context.js';
import { renderError } from './errors.js';
import { safeJson } from './escape.js';
import { processIO } from './io.js';

export type CommandResult = number | void;

export async function execute(cmd: Command, fn: (ctx: CommandContext) => Promise<CommandResult>): Promise<void> {
  const flags = cmd.optsWithGlobals() as GlobalFlags;
  let ctx: CommandContext | undefined;
  let code: number;
  try {
    ctx = new CommandContext({ io: processIO(), env: process.env, flags });
    if (ctx.out.color) await ctx.out.styles();
    code = (await fn(ctx)) ?? 0;
  } catch (err) {
    code = report(err, flags, ctx);
  } finally {
    await ctx?.close();
  }
  process.exitCode = code;
}

function report(err: unknown, flags: GlobalFlags, ctx?: CommandContext): number {
  const r = renderError(err);
  const json = ctx ? ctx.out.json : flags.output === 'json' || (!flags.output && process.env.AGCTL_OUTPUT === 'json');
  if (json) {
    process.stderr.write(safeJson(r.json) + '\n');
  } else {
    process.stderr.write(`agctl: ${r.line}\n`);
    if (r.hint) process.stderr.write(`hint: ${r.hint}\n`);
  }
  if (flags.debug && r.exitCode === Exit.Bug && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
  return r.exitCode;
}

/** Errors that escaped a command's own handling (commander's are handled in main.ts). */
export function handleTopLevelError(err: unknown, args: string[], json: boolean): void {
  process.exitCode = report(err, { output: json ? 'json' : 'table', debug: args.includes('--debug') });
}
