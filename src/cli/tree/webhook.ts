// The subcommands of `agctl webhook` (the group itself is declared in program.ts):
// each declaration, with the run it is checked against and imports when it runs.
import type { Command } from 'commander';
import { addCommands, lazyRun } from '../declare.js';
import { keygen } from '../commands/webhook/keygen/command.js';
import { listeners } from '../commands/webhook/listeners/command.js';
import { create } from '../commands/webhook/listeners/create/command.js';
import { list } from '../commands/webhook/listeners/list/command.js';
import { runs } from '../commands/webhook/runs/command.js';
import { send } from '../commands/webhook/send/command.js';
import { verify } from '../commands/webhook/verify/command.js';

export function register(webhook: Command): void {
  const listenersGroup = listeners();
  addCommands(
    listenersGroup as unknown as Command,
    lazyRun(list(), () => import('../commands/webhook/listeners/list/run.js')),
    lazyRun(create(), () => import('../commands/webhook/listeners/create/run.js')),
  );
  addCommands(
    webhook,
    lazyRun(send(), () => import('../commands/webhook/send/run.js')),
    lazyRun(verify(), () => import('../commands/webhook/verify/run.js')),
    lazyRun(keygen(), () => import('../commands/webhook/keygen/run.js')),
    listenersGroup,
    lazyRun(runs(), () => import('../commands/webhook/runs/run.js')),
  );
}
