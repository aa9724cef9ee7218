// The program tree: names, arguments, flags and help only. Importing it loads
// commander and nothing else; each action imports its command module lazily.
import { Command, Option } from 'commander';
import { version } from './main.js';
import { register as registerAuth } from './tree/auth.js';
import { register as registerRules } from './tree/rules.js';
import { register as registerServe } from './tree/serve.js';
import { register as registerTask } from './tree/task.js';
import { register as registerMcp } from './tree/mcp.js';
import { register as registerMeta } from './tree/meta.js';

export function buildProgram(): Command {
  const program = new Command('agctl');
  program
    .description('Administer the access governance service: rules, MCP server credentials, step-up approvals and webhooks')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'configuration profile (env AGCTL_PROFILE)')
    .option('--base-url <url>', 'service base URL (env AGCTL_BASE_URL)')
    .option('--client-id <id>', 'OAuth2 client ID (env AGCTL_CLIENT_ID)')
    .addOption(new Option('-o, --output <format>', 'output format (env AGCTL_OUTPUT)').choices(['table', 'json']))
    .option('--no-input', 'never prompt; fail on missing input instead')
    .option('--no-color', 'disable colour (also NO_COLOR)')
    .option('--debug', 'log HTTP requests and responses to stderr, secrets redacted')
    .option('--timeout <seconds>', 'per-request timeout in seconds (default 30)')
    .option('--embedded', 'run against an embedded server started in this process (no tenant needed)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      outputError: (str, write) => write(`agctl: ${str.replace(/^error: /, '')}`),
    })
    .addHelpText(
      'after',
      `
Environment: AGCTL_PROFILE, AGCTL_BASE_URL, AGCTL_CLIENT_ID, AGCTL_CLIENT_SECRET,
AGCTL_ACCESS_TOKEN, AGCTL_OUTPUT, AGCTL_CONFIG_DIR, AGCTL_DATA_DIR,
AGCTL_WEBHOOK_SECRET, NO_COLOR, CI. See \`agctl help environment\`.
Exit codes: see \`agctl help exit-codes\`.`,
    );
  program.helpCommand(false);

  registerAuth(program);
  registerRules(program);
  registerTask(program);
  registerMcp(program);
  registerServe(program);
  registerMeta(program);

  // Every command inherits the error handling of the root.
  for (const cmd of walk(program)) {
    if (cmd === program) continue;
    cmd.exitOverride().configureOutput({ outputError: (str, write) => write(`agctl: ${str.replace(/^error: /, '')}`) }).showSuggestionAfterError(true);
    cmd.helpOption('-h, --help', 'show help');
  }
  return program;
}

export function* walk(cmd: Command): Generator<Command> {
  yield cmd;
  for (const c of cmd.commands) yield* walk(c);
}
