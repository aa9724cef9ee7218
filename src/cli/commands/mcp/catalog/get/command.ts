// agctl mcp catalog get: the declaration.
import { Command, type Input } from '../../../../declare.js';
import { helpText } from '../../../../help-text.js';
import { columnsOption } from '../../../../tree/columns.js';

export const command = () =>
  new Command('get')
    .description('Show one MCP catalog entry and the config fields its servers take')
    .argument('<catalog-id>', 'catalog entry ID (27-character KSUID)')
    .addOption(columnsOption())
    .addHelpText('after', () =>
      helpText('', [
        'agctl mcp catalog get 2hAcQ7vXy1Lm0bYtZk3PdRuE9sW',
        'agctl mcp catalog get 2hAcQ7vXy1Lm0bYtZk3PdRuE9sW -o json | jq .configSchema.fields',
      ]),
    );

export type GetInput = Input<ReturnType<typeof command>>;
