// The environment variables agctl reads. Those of one command are declared
// with it (`readsEnv` in its declaration); these are the others.
import type { Command } from 'commander';
import { declaredEnv, type EnvVar } from './declare.js';

const v = (name: string, meaning: string): EnvVar => ({ name, meaning });

/** Read by every command, through the context (settings, config, embedded server). */
const GLOBAL: readonly EnvVar[] = [
  v('AGCTL_PROFILE', 'profile to use (like --profile)'),
  v('AGCTL_BASE_URL', 'service base URL (like --base-url)'),
  v('AGCTL_CLIENT_ID', 'OAuth2 client ID (like --client-id)'),
  v('AGCTL_CLIENT_SECRET', 'OAuth2 client secret, plain or secret-token:... key form'),
  v('AGCTL_ACCESS_TOKEN', 'a bearer token to use as is (skips the token flow)'),
  v('AGCTL_OUTPUT', 'table or json (like -o)'),
  v('AGCTL_TIMEOUT', 'per-attempt request timeout in seconds, more than 0 and at most 3600 (like --timeout)'),
  v('AGCTL_CONFIG_DIR', 'where profiles, sealed secrets and cached tokens live'),
  v('AGCTL_CONFIG_KEY', 'key sealing stored secrets and tokens (default: a 0600 key file in the config dir)'),
  v('AGCTL_DATA_DIR', 'data directory of the embedded server (serve, --embedded)'),
  v('AGCTL_SEAL_KEY', 'key sealing secrets in the embedded server (default: a 0600 key file in its data dir)'),
];

/** Conventions of terminals and CI systems. */
const TERMINAL: readonly EnvVar[] = [
  v('NO_COLOR', 'disable colour when set and not empty (TERM=dumb too)'),
  v('FORCE_COLOR', 'colour even when stdout is not a terminal'),
  v('CI', 'never prompt, when set to anything but empty, 0 or false'),
];

/** Every variable, for `agctl help environment`: `program` must hold every command group. */
export function environment(program: Command): EnvVar[] {
  return [...GLOBAL, ...declaredEnv(program), ...TERMINAL];
}

/** The paragraph of the root help naming the variables (the commands' own are in `agctl help environment`). */
export function environmentSummary(): string {
  const words = `Environment: ${[...GLOBAL, ...TERMINAL].map((e) => e.name).join(', ')}, and those of single commands. See \`agctl help environment\`.`.split(' ');
  const lines = [''];
  for (const w of words) {
    const last = lines.length - 1;
    if (lines[last] && lines[last]!.length + 1 + w.length > 80) lines.push(w);
    else lines[last] = lines[last] ? `${lines[last]} ${w}` : w;
  }
  return lines.join('\n');
}
