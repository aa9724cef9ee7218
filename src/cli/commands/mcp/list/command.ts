// agctl mcp list: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { columnsOption } from '../../../tree/columns.js';
import { limitOption, pageSizeOption } from '../../../tree/util.js';

/** The table's columns in display order, with their ranks (1: kept longest on a narrow terminal). */
export const COLUMNS = [
  ['CONNECTOR ID', 4],
  ['NAME', 1],
  ['KIND', 3],
  ['AUTH METHOD', 2],
  ['URL OR CATALOG ENTRY', 5],
  ['UPDATED', 6],
] as const;

export const command = () =>
  new Command('list')
    .description('List the MCP servers of an app (secrets only as configured or not)')
    .argument('<app-id>', 'app ID')
    .addOption(limitOption('MCP servers'))
    .addOption(pageSizeOption('MCP servers', 100))
    .addOption(columnsOption(COLUMNS))
    .addHelpText('after', () => helpText('', ['agctl mcp list ai-tools', "agctl mcp list ai-tools -o json | jq -r '.[].connectorId'"]));

export type ListInput = Input<ReturnType<typeof command>>;
