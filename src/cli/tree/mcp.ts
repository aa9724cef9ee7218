// The subcommands of `agctl mcp` (the group itself is declared in program.ts):
// each declaration, with the run it is checked against and imports when it runs.
import type { Command } from 'commander';
import { addCommands, lazyRun } from '../declare.js';
import { catalog } from '../commands/mcp/catalog/command.js';
import { get as catalogGet } from '../commands/mcp/catalog/get/command.js';
import { list as catalogList } from '../commands/mcp/catalog/list/command.js';
import { get } from '../commands/mcp/get/command.js';
import { list } from '../commands/mcp/list/command.js';
import { setCredentials } from '../commands/mcp/set-credentials/command.js';

export function register(mcp: Command): void {
  const mcpCatalog = catalog();
  addCommands(
    mcpCatalog as unknown as Command,
    lazyRun(catalogList(), () => import('../commands/mcp/catalog/list/run.js')),
    lazyRun(catalogGet(), () => import('../commands/mcp/catalog/get/run.js')),
  );
  addCommands(
    mcp,
    lazyRun(setCredentials(), () => import('../commands/mcp/set-credentials/run.js')),
    lazyRun(get(), () => import('../commands/mcp/get/run.js')),
    lazyRun(list(), () => import('../commands/mcp/list/run.js')),
    mcpCatalog,
  );
}
