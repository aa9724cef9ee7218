// agctl rules: its commands.
import { command, type Entry } from '../../tree/entries.js';

export const subcommands: readonly Entry[] = [
  command(
    () => import('./list/command.js'),
    () => import('./list/run.js'),
  ),
  command(
    () => import('./get/command.js'),
    () => import('./get/run.js'),
  ),
  command(
    () => import('./delete/command.js'),
    () => import('./delete/run.js'),
  ),
];
