// The agctl command line to run next, as printed for the user to copy: with
// the global flags this run was given that select its target (profile,
// server, client), so that it runs against the same one. A command with a
// value that holds an invisible character is not shown as one to paste.
import type { GlobalFlags } from '../../../config/resolve.js';
import { shellCommand } from '../../shell-quote.js';

/** The command line, or why it is not shown as one to paste (src/cli/shell-quote.ts, `shellCommand`). */
export function nextCommand(flags: GlobalFlags, args: readonly string[]): { line: string } | { why: string } {
  const parts = ['agctl'];
  if (flags.embedded) parts.push('--embedded');
  if (flags.profile) parts.push('--profile', flags.profile);
  if (flags.baseUrl) parts.push('--base-url', flags.baseUrl);
  if (flags.clientId) parts.push('--client-id', flags.clientId);
  return shellCommand([...parts, ...args]);
}
