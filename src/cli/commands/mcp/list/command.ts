// agctl mcp list: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { limitOption, pageSizeOption } from '../../../tree/util.js';

export const command = () =>
  new Command('list')
    .description('List the MCP servers of an app (secrets only as configured or not)')
    .argument('<app-id>', 'app ID')
    .addOption(limitOption('MCP servers'))
    .addOption(pageSizeOption('MCP servers', 100))
    .addHelpText('after', () => helpText('', ['agctl mcp list ai-tools', "agctl mcp list ai-tools -o json | jq -r '.[].connectorId'"]));

export type ListInput = Input<ReturnType<typeof command>>;
