// The environment variables agctl reads. Those of one command are declared
// with it (`readsEnv` in its declaration); these are the others.
import { EXIT_CODE_TABLE } from '../lib/exit.js';
import type { Command } from 'commander';
import { declaredEnv, type EnvVar } from './declare.js';
import { fill } from './help-text.js';

const v = (name: string, meaning: string, flag?: string): EnvVar => ({ name, meaning, ...(flag && { flag }) });

/** Read by every command, through the context (settings, config, embedded server). */
const GLOBAL: readonly EnvVar[] = [
  v('AGCTL_PROFILE', 'profile to use (default: the current profile, else `default`)', '--profile NAME'),
  v('AGCTL_BASE_URL', 'tenant base URL; a client ID `name@host/suffix` implies `https://host`', '--base-url URL'),
  v('AGCTL_CLIENT_ID', 'OAuth2 client ID', '--client-id ID'),
  v(
    'AGCTL_CLIENT_SECRET',
    'client secret: plain, or the key form `secret-token:<issuer>:v1:<key>` (never a flag); a token cached with another secret is never used',
  ),
  v('AGCTL_ACCESS_TOKEN', 'a bearer token used as is (skips the token flow; never a flag)'),
  v(
    'AGCTL_INSECURE_HTTP',
    'allow a plain client secret over plain http to a host other than this machine, when set to anything but empty, 0 or false (warns on every use)',
    '--insecure-http',
  ),
  v('AGCTL_OUTPUT', 'output format: table or json', '-o table|json'),
  v('AGCTL_TIMEOUT', 'per-attempt request timeout in seconds, more than 0 and at most 3600 (default 30)', '--timeout SECONDS'),
  v(
    'AGCTL_MAX_RESPONSE_BYTES',
    'largest answer read from a server, in bytes, 1024 to 268435456 (default 33554432, 32 MiB), and one command reads 8 times that in all; more is exit 9',
  ),
  v('AGCTL_CONFIG_DIR', 'profiles, sealed secrets and cached tokens (default `~/.config/agctl`)'),
  v(
    'AGCTL_CONFIG_KEY',
    'key sealing stored secrets and tokens instead of one in the OS keyring (64 hex digits or 43 base64url characters; without a keyring, default a 0600 key file in the config dir)',
  ),
  v('AGCTL_DATA_DIR', 'data directory of `serve` and `--embedded` (default `~/.local/share/agctl/server`)'),
  v(
    'AGCTL_STORE_BACKEND',
    'SQLite driver of the embedded server: `node:sqlite` or `better-sqlite3` (default node:sqlite where Node has it, 22.15 and later; else the optional better-sqlite3 package)',
  ),
  v('AGCTL_SEAL_KEY', 'key sealing secrets in the embedded server (same format; default a 0600 `seal.key` in its data dir)'),
];

/** Proxies, read as curl reads them (src/lib/proxy.ts): every request, load mode and JWKS fetches included. */
const PROXY: readonly EnvVar[] = [
  v(
    'HTTPS_PROXY',
    'proxy for https requests, `http://[user:password@]host:port` (port default 80); a CONNECT tunnel, TLS end to end with the server; `https_proxy` wins when both are set',
  ),
  v('HTTP_PROXY', 'proxy for plain http requests (`http_proxy` too; never used for https)'),
  v('ALL_PROXY', 'proxy for requests whose own variable is not set (`all_proxy` too)'),
  v(
    'NO_PROXY',
    'hosts reached directly: a comma-separated list of names (each with its subdomains; a leading `.` or `*.` changes nothing), IP addresses, CIDR blocks, `host:port`, or `*` for all (`no_proxy` too); loopback addresses are never proxied',
  ),
];

/** Conventions of terminals and CI systems. */
const TERMINAL: readonly EnvVar[] = [
  v('NO_COLOR', 'disable colour when set and not empty (TERM=dumb too)', '--no-color'),
  v('FORCE_COLOR', 'colour even when stdout is not a terminal'),
  v(
    'AGCTL_PAGER',
    'pager for tables longer than the terminal, run by the shell (default PAGER, else `less` when on PATH; empty or `cat`: none; `less` gets LESS=FRX unless LESS is set)',
  ),
  v('PAGER', 'pager when AGCTL_PAGER is unset (never used on a pipe or for JSON)'),
  v('CI', 'never prompt, and never use the OS keyring, when set to anything but empty, 0 or false', '--no-input'),
];

/** Every variable, for `agctl help environment`: `program` must hold every command group. */
export function environment(program: Command): EnvVar[] {
  return [...GLOBAL, ...PROXY, ...declaredEnv(program), ...TERMINAL];
}

/** The paragraph of the root help naming the variables (the commands' own are in `agctl help environment`). */
export function environmentSummary(): string {
  return wrapWords(
    `Environment: ${[...GLOBAL, ...PROXY, ...TERMINAL].map((e) => e.name).join(', ')}, and those of single commands. See \`agctl help environment\`.`,
    80,
  ).join('\n');
}

/** `text` in lines of at most `width` columns (a longer word alone on its line), each indented by `indent` spaces. */
export function wrapWords(text: string, width: number, indent = 0): string[] {
  const pad = ' '.repeat(indent);
  const [first = '', ...rest] = text.split(' ');
  return fill([pad + first, ...rest], width, pad);
}

/** One line of `agctl help environment`: the meaning, then the flag that does the same. */
export function environmentLine({ meaning, flag }: EnvVar): string {
  return flag ? `${meaning} (like ${flag})` : meaning;
}

/** A Markdown table cell's text. */
const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The README's table of environment variables (between its env markers). */
export function environmentMarkdown(vars: readonly EnvVar[]): string {
  const rows = vars.map((e) => `| ${e.flag ? `\`${cell(e.flag)}\`` : ''} | \`${e.name}\` | ${cell(e.meaning)} |`);
  return ['| flag | environment | meaning |', '|---|---|---|', ...rows].join('\n') + '\n';
}

export const ENV_START = '<!-- env:start -->';
export const ENV_END = '<!-- env:end -->';

/** `readme` with the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` replaced by `table` (markers kept). */
export function withGeneratedTable(readme: string, name: string, table: string): string {
  const [open, close] = [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
  const start = readme.indexOf(open);
  const end = readme.indexOf(close);
  if (start < 0 || end < start) throw new Error(`README.md has no ${open} ... ${close} section`);
  return `${readme.slice(0, start + open.length)}\n${table}${readme.slice(end)}`;
}

/** `readme` with the environment table replaced by `table`. */
export const withEnvironmentTable = (readme: string, table: string): string => withGeneratedTable(readme, 'env', table);

/** The exit codes as a Markdown table (README.md), from the table `agctl help exit-codes` prints. */
export function exitCodesMarkdown(): string {
  return (
    ['| code | meaning |', '|---|---|', ...EXIT_CODE_TABLE.map(([code, meaning]) => `| ${code} | ${cell(meaning)} |`)].join('\n') + '\n'
  );
}
