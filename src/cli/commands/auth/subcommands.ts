// agctl auth's commands, in help order: one line a command (src/cli/README.md).
import { command, type Entry } from '../../tree/entries.js';

export const subcommands: readonly Entry[] = [
  command(() => import('./status/command.js'), () => import('./status/run.js')),
  command(() => import('./token/command.js'), () => import('./token/run.js')),
  command(() => import('./list/command.js'), () => import('./list/run.js')),
  command(() => import('./switch/command.js'), () => import('./switch/run.js')),
];
