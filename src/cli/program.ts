// The program tree: names, arguments, flags and help only. Importing it loads
// commander and the small always-present trees; each action imports its command
// module lazily, and the command groups are loaded only when the command line
// names them (every group is loaded for completion scripts and tests).
import { Command, Help, InvalidArgumentError, Option } from 'commander';
import { version } from '../version.js';
import { completeWith } from './declare.js';
import { environmentSummary } from './environment.js';
import { escapeControls } from './escape.js';
import { register as registerAuth } from './tree/auth.js';
import { register as registerServe } from './tree/serve.js';
import { register as registerApi } from './tree/api.js';
import { register as registerMeta } from './tree/meta.js';

interface Group {
  name: string;
  description: string;
  load(): Promise<{ register(group: Command): void }>;
}

/** Command groups, in help order. Their subcommands live in src/cli/tree/<name>.ts. */
export const GROUPS: readonly Group[] = [
  { name: 'rules', description: "Manage an app's entitlement configuration rules", load: () => import('./tree/rules.js') },
  { name: 'mcp', description: 'Manage MCP servers: credentials and config fields', load: () => import('./tree/mcp.js') },
  { name: 'task', description: 'Act on access request tasks', load: () => import('./tree/task.js') },
  { name: 'webhook', description: 'Send, verify and prepare keys for inbound webhooks (HMAC or JWT); list listeners and their runs', load: () => import('./tree/webhook.js') },
];

/** Global options that take a value (so their value is not mistaken for a command name). */
const VALUE_OPTIONS = new Set(['--profile', '--base-url', '--client-id', '-o', '--output', '--jq', '--timeout']);

/**
 * The groups a command line needs: the one it names (also after `help`), all
 * of them for `completion`, `help environment` (commands declare the variables
 * they read) or when the line cannot be read with certainty.
 */
export function groupsFor(args: readonly string[]): Set<string> {
  const all = new Set(GROUPS.map((g) => g.name));
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < 2; i++) {
    const a = args[i]!;
    if (a === '--') return all;
    if (VALUE_OPTIONS.has(a)) i++;
    else if (!a.startsWith('-')) words.push(a);
  }
  const [first, second] = words;
  if (first === undefined) return new Set();
  if (first === 'completion' || (first === 'help' && second === 'environment')) return all;
  const named = first === 'help' ? second : first;
  if (named === undefined) return new Set();
  return all.has(named) ? new Set([named]) : new Set();
}

/** commander's parse errors as `agctl: ...`, an argument's control characters shown as escapes (commander's own line breaks stay). */
const outputError = (str: string, write: (s: string) => void) => write(`agctl: ${escapeControls(str.replace(/^error: /, ''), '\n')}`);

const OUTPUT_FORMATS = ['table', 'json'];

/** -o's value, in any case (`-o JSON`). */
function outputFormat(value: string): string {
  const format = value.toLowerCase();
  if (!OUTPUT_FORMATS.includes(format)) throw new InvalidArgumentError(`Allowed choices are ${OUTPUT_FORMATS.join(', ')}.`);
  return format;
}

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
 * loaded (the others appear in help with their description alone); without,
 * the whole tree is built.
 */
export async function buildProgram(args?: readonly string[]): Promise<Command> {
  const wanted = args ? groupsFor(args) : new Set(GROUPS.map((g) => g.name));
  const loaded = await Promise.all(GROUPS.map((g) => (wanted.has(g.name) ? g.load() : undefined)));
  const program = new Command('agctl');
  program
    .description('Administer the access governance service: rules, MCP server credentials, step-up approvals and webhooks')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(completeWith(new Option('--profile <name>', 'configuration profile (env AGCTL_PROFILE)'), { dynamic: 'profiles' }))
    .option('--base-url <url>', 'service base URL (env AGCTL_BASE_URL)')
    .option('--client-id <id>', 'OAuth2 client ID (env AGCTL_CLIENT_ID)')
    .addOption(new Option('-o, --output <format>', 'output format (env AGCTL_OUTPUT)').choices(OUTPUT_FORMATS).argParser(outputFormat))
    .option('--jq <expression>', 'filter JSON output with a jq expression; strings print raw (implies -o json)')
    .option('--no-input', 'never prompt; fail on missing input instead')
    .option('--no-color', 'disable colour (also NO_COLOR)')
    .option('--debug', 'log HTTP requests and responses to stderr, secrets redacted')
    .option('--timeout <seconds>', 'per-request timeout in seconds (default 30)')
    .option('--embedded', 'run against an embedded server started in this process (no tenant needed)')
    .option('--insecure-http', 'allow a plain client secret over http to another machine, warning each time (env AGCTL_INSECURE_HTTP)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      outputError,
    })
    .addHelpText('after', () => `\n${environmentSummary()}\nExit codes: see \`agctl help exit-codes\`.`);
  program.helpCommand(false);
  program.configureHelp(HELP);

  registerAuth(program);
  GROUPS.forEach((g, i) => {
    const group = program.command(g.name).description(g.description);
    loaded[i]?.register(group);
  });
  registerApi(program);
  registerServe(program);
  registerMeta(program);

  // Every command inherits the error handling of the root, and shows the global flags in its help.
  for (const cmd of walk(program)) {
    if (cmd === program) continue;
    cmd.exitOverride().configureOutput({ outputError: withUsage(cmd) }).showSuggestionAfterError(true);
    cmd.helpOption('-h, --help', 'show help');
    cmd.configureHelp(INHERITED_FLAGS);
  }
  return program;
}

export function* walk(cmd: Command): Generator<Command> {
  yield cmd;
  for (const c of cmd.commands) yield* walk(c);
}
