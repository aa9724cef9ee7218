// agctl auth: its commands.
import { command, type Entry } from '../../tree/entries.js';

export const subcommands: readonly Entry[] = [
  command(
    () => import('./status/command.js'),
    () => import('./status/run.js'),
  ),
  command(
    () => import('./token/command.js'),
    () => import('./token/run.js'),
  ),
  command(
    () => import('./list/command.js'),
    () => import('./list/run.js'),
  ),
  command(
    () => import('./switch/command.js'),
    () => import('./switch/run.js'),
  ),
];
