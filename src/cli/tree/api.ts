// agctl api: its declaration, with the run it is checked against and imports when it runs.
import type { Command } from 'commander';
import { addCommands, lazyRun } from '../declare.js';
import { api } from '../commands/api/command.js';

export function register(program: Command): void {
  addCommands(program, lazyRun(api(), () => import('../commands/api/run.js')));
}
