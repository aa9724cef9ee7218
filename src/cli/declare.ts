// How a command is declared: with commander's classes as typed by
// @commander-js/extra-typings, so the type of its options and arguments is
// inferred from its flags (a renamed flag still read somewhere does not
// compile). This module imports nothing but commander at run time, and the
// declarations nothing but it, help-text.ts, tree/util.ts and flag files
// next to them (commands/webhook/flags.ts).
import type * as typed from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import * as commander from 'commander';
import type { Command as PlainCommand } from 'commander';
import type { CommandContext } from './context.js';

// The package's own runtime only re-exports these classes (through one more
// CommonJS module at every start-up): its types are all that is used.
export const Command = commander.Command as unknown as typeof typed.Command;
export const Option = commander.Option as unknown as typeof typed.Option;
export const Argument = commander.Argument as unknown as typeof typed.Argument;
export const InvalidArgumentError = commander.InvalidArgumentError;

/** What a command's `run` receives: its positional arguments and its own options, as its declaration types them. */
export type Input<C> = C extends typed.Command<infer A, infer O, infer _G> ? { args: A; opts: O } : never;

/** What a command's `run` returns: its exit code (none: 0). */
export type CommandResult = number | undefined;

/** A command's `run`: `cmd` is the parsed commander command (help and completion read the tree from it). */
export type Run<C> = (input: Input<C>, ctx: CommandContext, cmd: CommandUnknownOpts) => Promise<CommandResult>;

const textOnly = new WeakSet<object>();

/** Declares that a command never prints JSON (so --jq, which would filter nothing, is refused). */
export function printsTextOnly<C extends CommandUnknownOpts>(cmd: C): C {
  textOnly.add(cmd);
  return cmd;
}

/** Whether a command may print JSON (all but those declared with `printsTextOnly`). */
export function printsJson(cmd: PlainCommand | CommandUnknownOpts): boolean {
  return !textOnly.has(cmd);
}

// ---- What completion and `agctl help environment` read from the declarations ----

/** Where a value completed by the program itself (`agctl __complete`) comes from. */
export type DynamicSource = 'profiles' | 'rule-ids' | 'connector-ids' | 'task-ids' | 'listener-ids';

/** How the value of a flag or positional argument completes. */
export type ValueSpec =
  | { kind: 'choices'; choices: string[] }
  | { kind: 'file'; keyed: boolean } // keyed: the value is key=path, the path after the last '='
  | { kind: 'dir' }
  | { kind: 'none'; name: string }
  | { kind: 'dynamic'; source: DynamicSource }; // asked of the program when completing

type Completable = typed.Option | typed.Argument | commander.Option | commander.Argument;
const completions = new WeakMap<object, ValueSpec>();

/**
 * Declares how a flag's or argument's value completes when its name alone
 * does not say it: values it accepts without commander's `.choices()` (which
 * would refuse the other spellings a command parses itself), a file name, or
 * values only the program knows (profile names, IDs read from the service;
 * for an ID, on the argument after the one that scopes it).
 */
export function completeWith<T extends Completable>(item: T, spec: readonly string[] | 'file' | 'dir' | { dynamic: DynamicSource }): T {
  completions.set(
    item,
    spec === 'file'
      ? { kind: 'file', keyed: false }
      : spec === 'dir'
        ? { kind: 'dir' }
        : 'dynamic' in spec
          ? { kind: 'dynamic', source: spec.dynamic }
          : { kind: 'choices', choices: [...spec] },
  );
  return item;
}

/** The completion declared with `completeWith`, if any. */
export function declaredCompletion(item: Completable): ValueSpec | undefined {
  return completions.get(item);
}

/** An environment variable a command reads, with what it means (for `agctl help environment`). */
export interface EnvVar {
  name: string;
  meaning: string;
  /** The flag that sets the same thing (and wins over the variable), if any. */
  flag?: string;
}

const envVars = new WeakMap<object, readonly EnvVar[]>();

/** Declares the environment variables a command reads. */
export function readsEnv<C extends CommandUnknownOpts>(cmd: C, ...vars: EnvVar[]): C {
  envVars.set(cmd, vars);
  return cmd;
}

/** The environment variables declared by `cmd` and its subcommands, each once, in tree order. */
export function declaredEnv(cmd: PlainCommand | CommandUnknownOpts): EnvVar[] {
  const seen = new Map<string, EnvVar>();
  const visit = (c: PlainCommand | CommandUnknownOpts) => {
    for (const v of envVars.get(c) ?? []) if (!seen.has(v.name)) seen.set(v.name, v);
    for (const s of c.commands) visit(s);
  };
  visit(cmd);
  return [...seen.values()];
}
