// agctl mcp list: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { positiveInt } from '../../../tree/util.js';

export const command = () =>
  new Command('list')
    .description('List the MCP servers of an app (secrets only as configured or not)')
    .argument('<app-id>', 'app ID')
    .option('--limit <n>', 'stop after this many MCP servers', positiveInt('--limit'))
    .option('--page-size <n>', 'MCP servers per request, 1 to 100', positiveInt('--page-size', 100))
    .addHelpText('after', () => helpText('', ['agctl mcp list ai-tools', "agctl mcp list ai-tools -o json | jq -r '.[].connectorId'"]));

export type ListInput = Input<ReturnType<typeof command>>;
