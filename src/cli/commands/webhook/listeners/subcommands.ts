// agctl webhook listeners: its commands.
import { command, type Entry } from '../../../tree/entries.js';

export const subcommands: readonly Entry[] = [
  command(
    () => import('./list/command.js'),
    () => import('./list/run.js'),
  ),
  command(
    () => import('./create/command.js'),
    () => import('./create/run.js'),
  ),
];
