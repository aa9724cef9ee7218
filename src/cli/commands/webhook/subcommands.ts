// agctl webhook: its commands.
import { command, group, type Entry } from '../../tree/entries.js';

export const subcommands: readonly Entry[] = [
  command(
    () => import('./send/command.js'),
    () => import('./send/run.js'),
  ),
  command(
    () => import('./verify/command.js'),
    () => import('./verify/run.js'),
  ),
  command(
    () => import('./keygen/command.js'),
    () => import('./keygen/run.js'),
  ),
  group(
    () => import('./listeners/command.js'),
    () => import('./listeners/subcommands.js'),
  ),
  command(
    () => import('./runs/command.js'),
    () => import('./runs/run.js'),
  ),
];
