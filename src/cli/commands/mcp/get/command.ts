// agctl mcp get: the declaration.
import { Argument, Command, completeWith, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { columnsOption } from '../../../tree/columns.js';

export const command = () =>
  new Command('get')
    .description('Show an MCP server (secrets only as configured or not)')
    .argument('<app-id>', 'app ID')
    .addArgument(completeWith(new Argument('<connector-id>', 'MCP server (connector) ID'), { dynamic: 'connector-ids' }))
    .addOption(columnsOption())
    .addHelpText('after', () =>
      helpText('', ['agctl mcp get ai-tools wiki-mcp', 'agctl mcp get ai-tools wiki-mcp -o json | jq .authMethod']),
    );

export type GetInput = Input<ReturnType<typeof command>>;
