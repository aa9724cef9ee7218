// The subcommands of `agctl mcp` (the group itself is declared in program.ts):
// each declaration, with the run it is checked against and imports when it runs.
import type { Command } from 'commander';
import { addCommands, lazyRun } from '../declare.js';
import { get } from '../commands/mcp/get/command.js';
import { setCredentials } from '../commands/mcp/set-credentials/command.js';

export function register(mcp: Command): void {
  addCommands(
    mcp,
    lazyRun(setCredentials(), () => import('../commands/mcp/set-credentials/run.js')),
    lazyRun(get(), () => import('../commands/mcp/get/run.js')),
  );
}
