// agctl mcp: its commands.
import { command, group, type Entry } from '../../tree/entries.js';

export const subcommands: readonly Entry[] = [
  command(
    () => import('./set-credentials/command.js'),
    () => import('./set-credentials/run.js'),
  ),
  command(
    () => import('./get/command.js'),
    () => import('./get/run.js'),
  ),
  command(
    () => import('./list/command.js'),
    () => import('./list/run.js'),
  ),
  group(
    () => import('./catalog/command.js'),
    () => import('./catalog/subcommands.js'),
  ),
];
