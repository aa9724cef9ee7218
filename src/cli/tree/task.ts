// The subcommands of `agctl task` (the group itself is declared in program.ts):
// each declaration, with the run it is checked against and imports when it runs.
import type { Command } from 'commander';
import { addCommands, lazyRun } from '../declare.js';
import { approveStepUp } from '../commands/task/approve-step-up/command.js';
import { get } from '../commands/task/get/command.js';
import { list } from '../commands/task/list/command.js';

export function register(task: Command): void {
  addCommands(
    task,
    lazyRun(approveStepUp(), () => import('../commands/task/approve-step-up/run.js')),
    lazyRun(list(), () => import('../commands/task/list/run.js')),
    lazyRun(get(), () => import('../commands/task/get/run.js')),
  );
}
