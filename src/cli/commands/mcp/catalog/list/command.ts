// agctl mcp catalog list: the declaration.
import { Command, type Input } from '../../../../declare.js';
import { helpText } from '../../../../help-text.js';
import { columnsOption } from '../../../../tree/columns.js';
import { limitOption, pageSizeOption } from '../../../../tree/util.js';

/** The table's columns in display order, with their ranks (1: kept longest on a narrow terminal). */
export const COLUMNS = [
  ['ID', 4],
  ['NAME', 1],
  ['SERVICE', 2],
  ['CONFIG FIELDS', 5],
  ['DESCRIPTION', 3],
] as const;

export const command = () =>
  new Command('list')
    .description('List the MCP catalog entries')
    .option('--query <text>', 'entries whose name matches (the service decides how)')
    .addOption(limitOption('entries'))
    .addOption(pageSizeOption('entries', 100))
    .addOption(columnsOption(COLUMNS))
    .addHelpText('after', () =>
      helpText("An entry's ID is the mcpServerCatalogId of the hosted MCP servers made from it.", [
        'agctl mcp catalog list',
        'agctl mcp catalog list --query datadog',
        "agctl mcp catalog list -o json | jq -r '.[] | [.id, .displayName] | @tsv'",
      ]),
    );

export type ListInput = Input<ReturnType<typeof command>>;
