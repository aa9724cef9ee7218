// help topics, shell completion and the version: each declaration, with the run it is
// checked against and imports when it runs.
import type { Command } from 'commander';
import { addCommands, lazyRun, printsTextOnly } from '../declare.js';
import { completion } from '../commands/completion/command.js';
import { help } from '../commands/help/command.js';
import { versionCommand } from '../commands/version/command.js';
import { complete } from '../commands/__complete/command.js';

export function register(program: Command): void {
  addCommands(
    program,
    lazyRun(printsTextOnly(help()), () => import('../commands/help/run.js')),
    lazyRun(printsTextOnly(completion()), () => import('../commands/completion/run.js')),
    lazyRun(versionCommand(), () => import('../commands/version/run.js')),
  );
  program.addCommand(complete(() => import('../commands/__complete/run.js')) as unknown as Command, { hidden: true });
}
