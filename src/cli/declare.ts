// How a command is declared: with commander's classes as typed by
// @commander-js/extra-typings, so the type of its options and arguments is
// inferred from its flags (a renamed flag still read somewhere does not
// compile), and with its run imported only when it runs. This module and the
// declarations import nothing but commander.
import type * as typed from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import * as commander from 'commander';
import type { Command as PlainCommand } from 'commander';
import type { CommandContext } from './context.js';
import type { CommandResult } from './run.js';

// The package's own runtime only re-exports these classes (through one more
// CommonJS module at every start-up): its types are all that is used.
export const Command = commander.Command as unknown as typeof typed.Command;
export const Option = commander.Option as unknown as typeof typed.Option;
export const Argument = commander.Argument as unknown as typeof typed.Argument;
export const InvalidArgumentError = commander.InvalidArgumentError;

/** What a command's `run` receives: its positional arguments and its own options, as its declaration types them. */
export type Input<C> = C extends typed.Command<infer A, infer O, infer _G> ? { args: A; opts: O } : never;

/** A command's `run`: `cmd` is the parsed commander command (help and completion read the tree from it). */
export type Run<C> = (input: Input<C>, ctx: CommandContext, cmd: CommandUnknownOpts) => Promise<CommandResult>;

/**
 * Makes `cmd` run `load()`'s `run` with its parsed arguments and options; the
 * module (and what it imports) is loaded only when the command runs.
 */
export function lazyRun<C extends CommandUnknownOpts>(cmd: C, load: () => Promise<{ run: Run<C> }>): C {
  cmd.action(async () => {
    const input = { args: cmd.processedArgs, opts: cmd.opts() } as Input<C>;
    const [{ execute }, mod] = await Promise.all([import('./run.js'), load()]);
    await execute(cmd as unknown as PlainCommand, (ctx) => mod.run(input, ctx, cmd));
  });
  return cmd;
}

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

/** Adds declared commands to a group (or the program). */
export function addCommands(group: PlainCommand, ...commands: CommandUnknownOpts[]): void {
  for (const c of commands) group.addCommand(c as unknown as PlainCommand);
}

/** The help text after the flags: prose, then examples (each line shown after `$ `), within 80 columns. */
export function helpText(prose: string, examples: readonly string[]): string {
  const text = prose ? `\n${prose.trim().split('\n').flatMap((l) => fill(l.split(' '), HELP_WIDTH, '')).join('\n')}\n` : '';
  return `${text}\nExamples:\n${examples.map((e) => `  $ ${e.split('\n').map(wrapCommand).join('\n')}`).join('\n')}`;
}

/** Help pages fit this many columns (as gh's). */
const HELP_WIDTH = 80;

/** Indentation of an example's continuation lines (under its command, after "  $ "). */
const CONTINUED = '      ';

/**
 * One line of an example command, broken with ` \` before its flags where it
 * would pass 80 columns (still a command to paste): a flag and its value stay
 * together, nothing inside quotes is split.
 */
function wrapCommand(line: string): string {
  const ending = line.endsWith(' \\') ? ' \\' : '';
  const body = ending ? line.slice(0, -ending.length) : line;
  const indent = /^ */.exec(body)![0];
  // The first line follows "  $ " (4 columns), continuation lines come as they are.
  if ((indent ? 0 : 4) + line.length <= HELP_WIDTH) return line;
  // Words, spaces inside quotes kept; then groups that start at each flag.
  const words = body.slice(indent.length).match(/(?:'[^']*'|"[^"]*"|\S)+/g) ?? [];
  const groups: string[] = [];
  for (const w of words) {
    if (groups.length === 0 || w.startsWith('-')) groups.push(w);
    else groups[groups.length - 1] += ` ${w}`;
  }
  if (groups.length) groups[0] = indent + groups[0];
  // Each line but the last ends in " \".
  const lines = fill(groups, HELP_WIDTH - 2 - (indent ? 0 : 4), indent || CONTINUED);
  return lines.map((l, i) => l + (i < lines.length - 1 ? ' \\' : ending)).join('\n');
}

/** Pieces joined by spaces into lines of at most `width` columns (a longer piece alone on its line); lines after the first start with `indent`. */
export function fill(pieces: readonly string[], width: number, indent: string): string[] {
  const lines: string[] = [];
  for (const p of pieces) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + p.length <= width) lines[last] += ` ${p}`;
    else lines.push(last < 0 ? p : indent + p);
  }
  return lines.length ? lines : [''];
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
    spec === 'file' ? { kind: 'file', keyed: false } : spec === 'dir' ? { kind: 'dir' } : 'dynamic' in spec ? { kind: 'dynamic', source: spec.dynamic } : { kind: 'choices', choices: [...spec] },
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
