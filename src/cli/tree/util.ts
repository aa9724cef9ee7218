// Helpers for declaring commands. Flag parsers (positiveInt, collect) serve
// every declaration; lazyAction is the earlier way of wiring a command, still
// used by the groups declared in src/cli/tree/<group>.ts (a command declared in
// its own folder uses lazyRun from ../declare.js instead: see ../README.md).
import { InvalidArgumentError, type Command } from 'commander';
import type { CommandContext } from '../context.js';
import type { CommandResult } from '../run.js';

export type RunFn<O> = (opts: O, ctx: CommandContext) => Promise<CommandResult>;

/**
 * Wires a command to a lazily imported `run(options, ctx)`. `map` turns the
 * positional arguments and the command's own options into the options object.
 */
export function lazyAction<O>(load: () => Promise<{ run: RunFn<O> }>, map: (args: any[], opts: any, cmd: Command) => O) {
  return async (...all: unknown[]) => {
    const cmd = all[all.length - 1] as Command;
    const positional = all.slice(0, -2);
    const options = map(positional, cmd.opts(), cmd);
    const [{ execute }, mod] = await Promise.all([import('../run.js'), load()]);
    await execute(cmd, (ctx) => mod.run(options, ctx));
  };
}

/** Parses a positive integer option value. */
export function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max}`);
    return Number(v);
  };
}

/** Collects a repeatable option into an array. */
export function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}
