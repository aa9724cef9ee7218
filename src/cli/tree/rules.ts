// The subcommands of `agctl rules` (the group itself is declared in program.ts):
// each declaration, with the run it is checked against and imports when it runs.
import type { Command } from 'commander';
import { addCommands, lazyRun } from '../declare.js';
import { del } from '../commands/rules/delete/command.js';
import { get } from '../commands/rules/get/command.js';
import { list } from '../commands/rules/list/command.js';

export function register(rules: Command): void {
  addCommands(
    rules,
    lazyRun(list(), () => import('../commands/rules/list/run.js')),
    lazyRun(get(), () => import('../commands/rules/get/run.js')),
    lazyRun(del(), () => import('../commands/rules/delete/run.js')),
  );
}
