// The agctl command line to run next, as printed for the user to copy: with
// the global flags this run was given that select its target (profile,
// server, client), so that it runs against the same one.
import type { GlobalFlags } from '../../../config/resolve.js';
import { shellQuote } from '../../shell-quote.js';

export function nextCommand(flags: GlobalFlags, args: readonly string[]): string {
  const parts = ['agctl'];
  if (flags.embedded) parts.push('--embedded');
  if (flags.profile) parts.push('--profile', flags.profile);
  if (flags.baseUrl) parts.push('--base-url', flags.baseUrl);
  if (flags.clientId) parts.push('--client-id', flags.clientId);
  return [...parts, ...args].map(shellQuote).join(' ');
}
