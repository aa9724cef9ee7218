// agctl mcp catalog list: the declaration.
import { Command, type Input } from '../../../../declare.js';
import { helpText } from '../../../../help-text.js';
import { limitOption, pageSizeOption } from '../../../../tree/util.js';

export const command = () =>
  new Command('list')
    .description('List the MCP catalog entries')
    .option('--query <text>', 'entries whose name matches (the service decides how)')
    .addOption(limitOption('entries'))
    .addOption(pageSizeOption('entries', 100))
    .addHelpText('after', () =>
      helpText('An entry\'s ID is the mcpServerCatalogId of the hosted MCP servers made from it.', ['agctl mcp catalog list', 'agctl mcp catalog list --query datadog', "agctl mcp catalog list -o json | jq -r '.[] | [.id, .displayName] | @tsv'"]),
    );

export type ListInput = Input<ReturnType<typeof command>>;
