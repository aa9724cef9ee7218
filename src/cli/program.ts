// The program tree: names, arguments, flags and help only. Building it imports
// the top-level declarations (src/cli/commands/subcommands.ts); a group's
// subcommands are declared only when the command line names the group (every
// group for completion scripts and tests), and each action imports its run
// lazily.
import { Command, Help } from 'commander';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { version } from '../version.js';
import { environmentSummary } from './environment.js';
import { escapeControls } from './escape.js';
import { globalOptions, readLine } from './global-flags.js';
import { subcommands } from './commands/subcommands.js';
import type { Entry } from './tree/entries.js';

/**
 * The groups a command line needs (of `groups`): the one it names (also after
 * `help`), all of them for `completion`, `help environment` (commands declare
 * the variables they read) or when the line cannot be read with certainty.
 */
export function groupsFor(args: readonly string[], groups: readonly string[]): Set<string> {
  const all = new Set(groups);
  const { words, dashes } = readLine(args);
  const [first, second] = words;
  if (dashes && words.length < 2) return all;
  if (first === undefined) return new Set();
  if (first === 'completion' || (first === 'help' && second === 'environment')) return all;
  const named = first === 'help' ? second : first;
  if (named === undefined) return new Set();
  return all.has(named) ? new Set([named]) : new Set();
}

/**
 * Whether errors are JSON, read before commander parses anything: -o/--output
 * on the command line decides, else --jq (which implies JSON), else
 * AGCTL_OUTPUT. (Once a command's context exists, its resolved output format
 * decides: a profile's too.)
 */
export function wantsJson(args: readonly string[], env: NodeJS.ProcessEnv, stderrTTY = false): boolean {
  const { given, values } = readLine(args);
  const format = values.get('output');
  if (format !== undefined) return format.toLowerCase() === 'json';
  // --jq alone implies JSON output, but its errors are JSON only for a program reading them (a person gets a line in words).
  return (given.has('jq') && !stderrTTY) || env.AGCTL_OUTPUT?.toLowerCase() === 'json';
}

/** commander's parse errors as `agctl: ...`, an argument's control characters shown as escapes (commander's own line breaks stay). */
const outputError = (str: string, write: (s: string) => void) =>
  // commander's typo suggestion is a hint like every other.
  write(
    `agctl: ${escapeControls(str.replace(/^error: /, '').replace(/\n?\(Did you mean (.+)\?\)\s*$/, '\nhint: did you mean $1?\n'), '\n')}`,
  );

/**
 * Every help page fits 80 columns: a subcommand listed by its name alone (its
 * arguments are on its own page, as gh's "Available Commands"), descriptions
 * wrapped beside the flags.
 */
const HELP: Partial<Help> = {
  subcommandTerm: (cmd) => cmd.name(),
  // Descriptions wrap even beside long flags (commander's default needs 40 columns for them).
  minWidthToWrap: 24,
};

/** A subcommand's help lists the global flags under "Inherited flags" (as gh's), all but --version (the program's alone). */
const INHERITED_FLAGS: Partial<Help> = {
  ...HELP,
  showGlobalOptions: true,
  visibleGlobalOptions(cmd) {
    return Help.prototype.visibleGlobalOptions.call(this, cmd).filter((o) => o.long !== '--version');
  },
  formatItemList(heading, items, helper) {
    return Help.prototype.formatItemList.call(this, heading === 'Global Options:' ? 'Inherited flags:' : heading, items, helper);
  },
};

/** After a missing or extra argument, the command's usage line (as gh prints it). */
const withUsage =
  (cmd: Command) =>
  (str: string, write: (s: string) => void): void => {
    outputError(str, write);
    if (/^error: (missing required argument|too many arguments)/.test(str)) {
      write(`Usage: ${cmd.createHelp().commandUsage(cmd)}\nSee \`${commandPath(cmd)} --help\`.\n`);
    }
  };

/** "agctl rules list". */
const commandPath = (cmd: Command): string => (cmd.parent ? `${commandPath(cmd.parent)} ${cmd.name()}` : cmd.name());

/**
 * Builds the program. With `args`, only the groups that command line needs are
 * declared with their subcommands (the others appear in help with their
 * description alone); without, the whole tree is built.
 */
export async function buildProgram(args?: readonly string[]): Promise<Command> {
  const top = await Promise.all(subcommands.map((e) => e.declare()));
  const groups = subcommands.flatMap((e, i) => (e.children ? [top[i]!.name()] : []));
  const wanted = args ? groupsFor(args, groups) : new Set(groups);
  const program = new Command('agctl');
  program
    .description('Administer the access governance service: rules, MCP server credentials, step-up approvals and webhooks')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      outputError,
    })
    .addHelpText('after', () => `\n${environmentSummary()}\nExit codes: see \`agctl help exit-codes\`.`);
  for (const o of globalOptions()) program.addOption(o);
  program.helpCommand(false);
  program.configureHelp(HELP);

  await Promise.all(subcommands.map((e, i) => add(program, e, top[i]!, wanted.has(top[i]!.name()))));

  // Every command inherits the error handling of the root, and shows the global flags in its help.
  for (const cmd of walk(program)) {
    if (cmd === program) continue;
    cmd
      .exitOverride()
      .configureOutput({ outputError: withUsage(cmd) })
      .showSuggestionAfterError(true);
    cmd.helpOption('-h, --help', 'show help');
    cmd.configureHelp(INHERITED_FLAGS);
  }
  return program;
}

/** Adds a declared command to `parent`, with a group's subcommands when `withChildren` (a sub-group's always come with it). */
async function add(parent: Command, entry: Entry, declared: CommandUnknownOpts, withChildren: boolean): Promise<void> {
  const cmd = declared as unknown as Command;
  parent.addCommand(cmd, { hidden: entry.hidden });
  if (!entry.children || !withChildren) return;
  const { subcommands: entries } = await entry.children();
  const children = await Promise.all(entries.map((c) => c.declare()));
  for (const [i, c] of entries.entries()) await add(cmd, c, children[i]!, true);
}

/** The width help pages are made for: at most this wide, narrower on a narrower terminal. */
export const HELP_WIDTH = 80;

/**
 * The root's help page (key '') and each top-level group's (key: its name),
 * as `agctl --help` and `agctl <group> --help` print them at HELP_WIDTH
 * columns. The build writes them to dist/help.json, which bin/agctl.js prints
 * without loading the program tree (unless the terminal is narrower).
 */
export async function helpPages(): Promise<{ width: number; pages: Record<string, string> }> {
  const program = await buildProgram();
  const pages: Record<string, string> = {};
  for (const cmd of [program, ...program.commands.filter((c) => c.commands.length > 0)]) {
    let text = '';
    cmd.configureOutput({ writeOut: (s) => (text += s), getOutHelpWidth: () => HELP_WIDTH, getOutHasColors: () => false });
    cmd.outputHelp();
    pages[cmd === program ? '' : cmd.name()] = text;
  }
  return { width: HELP_WIDTH, pages };
}

export function* walk(cmd: Command): Generator<Command> {
  yield cmd;
  for (const c of cmd.commands) yield* walk(c);
}
