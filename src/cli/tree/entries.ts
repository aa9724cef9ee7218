// How a `subcommands.ts` lists the commands of the program
// (src/cli/commands/subcommands.ts) or of a group (its folder's): each
// declaration is imported when its parent is built, its run only when it runs.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Command } from 'commander';
import type { Input, Run } from '../declare.js';

/** A command folder's `command.ts`: it exports its declaration as `command`. */
type Declaration<C> = () => Promise<{ command: () => C }>;

/** A line of the tree: a command (with its action), or a group with its subcommands. */
export interface Entry {
  declare(): Promise<CommandUnknownOpts>;
  /** A group's subcommands (its folder's `subcommands.ts`), declared only when the command line needs the group (see program.ts). */
  readonly children?: () => Promise<{ subcommands: readonly Entry[] }>;
  readonly hidden?: boolean;
}

/** What a command's `run` receives from its parsed command. */
export const inputOf = <C extends CommandUnknownOpts>(cmd: C): Input<C> => ({ args: cmd.processedArgs, opts: cmd.opts() }) as Input<C>;

/**
 * A command: its declaration, and its run, checked against what the
 * declaration parses and imported only when the command runs (with the
 * runner, which builds its context).
 */
export function command<C extends CommandUnknownOpts>(declaration: Declaration<C>, load: () => Promise<{ run: Run<NoInfer<C>> }>): Entry {
  return { declare: async () => lazyRun((await declaration()).command(), load) };
}

/** A group: its declaration (name, description, help) in its folder's `command.ts`, and its folder's `subcommands.ts`. */
export function group(declaration: Declaration<CommandUnknownOpts>, children: () => Promise<{ subcommands: readonly Entry[] }>): Entry {
  return { declare: async () => (await declaration()).command(), children };
}

/**
 * A command hidden from help, run without a command context (`__complete`:
 * a context would report a bad setting, a completion stays silent).
 */
export function hiddenWithoutContext<C extends CommandUnknownOpts>(
  declaration: Declaration<C>,
  load: () => Promise<{ run(input: Input<NoInfer<C>>, cmd: C): Promise<void> }>,
): Entry {
  return {
    hidden: true,
    declare: async () => {
      const cmd = (await declaration()).command();
      cmd.action(async () => (await load()).run(inputOf(cmd), cmd));
      return cmd;
    },
  };
}

/** Makes `cmd` run `load()`'s `run` with its parsed arguments and options; the module (and what it imports) is loaded only when the command runs. */
export function lazyRun<C extends CommandUnknownOpts>(cmd: C, load: () => Promise<{ run: Run<NoInfer<C>> }>): C {
  cmd.action(async () => {
    const input = inputOf(cmd);
    const { execute } = await import('../run.js');
    await execute(cmd as unknown as Command, async (ctx) => (await load()).run(input, ctx, cmd));
  });
  return cmd;
}
