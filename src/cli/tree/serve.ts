// agctl serve: its declaration, with the run it is checked against and imports when it runs.
import type { Command } from 'commander';
import { addCommands, lazyRun, printsTextOnly } from '../declare.js';
import { serve } from '../commands/serve/command.js';

export function register(program: Command): void {
  addCommands(program, lazyRun(printsTextOnly(serve()), () => import('../commands/serve/run.js')));
}
