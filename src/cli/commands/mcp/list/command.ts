// agctl mcp list: the declaration.
import { Command, helpText, type Input } from '../../../declare.js';
import { positiveInt } from '../../../tree/util.js';

/** The declaration; its run is ./run.ts, imported when it runs (see the group's file in src/cli/tree/). */
export const list = () =>
  new Command('list')
    .description('List the MCP servers of an app (secrets only as configured or not)')
    .argument('<app-id>', 'app ID')
    .option('--limit <n>', 'stop after this many MCP servers', positiveInt('--limit'))
    .option('--page-size <n>', 'MCP servers per request, 1 to 100', positiveInt('--page-size', 100))
    .addHelpText('after', () => helpText('', ['agctl mcp list ai-tools', "agctl mcp list ai-tools -o json | jq -r '.[].connectorId'"]));

export type ListInput = Input<ReturnType<typeof list>>;
