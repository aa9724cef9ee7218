import type { Command } from 'commander';
import { EXIT_CODE_TABLE, UsageError } from '../../api/errors.js';
import type { CommandContext } from '../context.js';

export const ENVIRONMENT: [string, string][] = [
  ['AGCTL_PROFILE', 'profile to use (like --profile)'],
  ['AGCTL_BASE_URL', 'service base URL (like --base-url)'],
  ['AGCTL_CLIENT_ID', 'OAuth2 client ID (like --client-id)'],
  ['AGCTL_CLIENT_SECRET', 'OAuth2 client secret, plain or secret-token:... key form'],
  ['AGCTL_ACCESS_TOKEN', 'a bearer token to use as is (skips the token flow)'],
  ['AGCTL_OUTPUT', 'table or json (like -o)'],
  ['AGCTL_TIMEOUT', 'per-attempt request timeout in seconds, more than 0 and at most 3600 (like --timeout)'],
  ['AGCTL_CONFIG_DIR', 'where profiles, sealed secrets and cached tokens live'],
  ['AGCTL_CONFIG_KEY', 'key sealing stored secrets and tokens (default: a 0600 key file in the config dir)'],
  ['AGCTL_DATA_DIR', 'data directory of the embedded server (serve, --embedded)'],
  ['AGCTL_SEAL_KEY', 'key sealing secrets in the embedded server (default: a 0600 key file in its data dir)'],
  ['AGCTL_WEBHOOK_SECRET', 'HMAC signing secret for webhook send/verify'],
  ['AGCTL_MCP_BEARER_TOKEN', 'mcp set-credentials: bearer token (like --bearer-token-stdin)'],
  ['AGCTL_MCP_HEADER_VALUE', 'mcp set-credentials: custom header value'],
  ['AGCTL_MCP_PASSWORD', 'mcp set-credentials: basic auth password'],
  ['AGCTL_MCP_AWS_SECRET_ACCESS_KEY', 'mcp set-credentials: AWS secret access key'],
  ['AGCTL_MCP_AWS_SESSION_TOKEN', 'mcp set-credentials: AWS session token'],
  ['AGCTL_MCP_OAUTH2_CLIENT_SECRET', 'mcp set-credentials: OAuth2 client secret'],
  ['AGCTL_MCP_JWT_PRIVATE_KEY', 'mcp set-credentials: OAuth2 JWT bearer private key (PEM)'],
  ['AGCTL_MCP_GOOGLE_CREDENTIALS', 'mcp set-credentials: Google service account key (JSON)'],
  ['BROWSER', 'browser command used by --open (default: the system opener)'],
  ['NO_COLOR', 'disable colour when set and not empty (TERM=dumb too)'],
  ['FORCE_COLOR', 'colour even when stdout is not a terminal'],
  ['CI', 'never prompt, when set to anything but empty, 0 or false'],
];

export interface HelpOptions {
  topic: string[];
  program: Command;
}

export async function run(opts: HelpOptions, ctx: CommandContext): Promise<number> {
  const [first] = opts.topic;
  if (first === 'exit-codes') {
    ctx.out.print('Exit codes:');
    for (const [code, meaning] of EXIT_CODE_TABLE) ctx.out.print(`  ${String(code).padStart(2)}  ${meaning}`);
    return 0;
  }
  if (first === 'environment') {
    ctx.out.print('Environment variables (precedence: flag > env > profile > default):');
    const width = Math.max(...ENVIRONMENT.map(([name]) => name.length)) + 2;
    for (const [name, meaning] of ENVIRONMENT) ctx.out.print(`  ${name.padEnd(width)}${meaning}`);
    return 0;
  }
  let cmd = opts.program;
  for (const name of opts.topic) {
    const next = cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!next) throw new UsageError(`no help topic or command "${opts.topic.join(' ')}"`, 'topics: exit-codes, environment; or a command such as `agctl help rules list`');
    cmd = next;
  }
  cmd.outputHelp();
  return 0;
}
