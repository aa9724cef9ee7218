// agctl mcp catalog get: the declaration.
import { Command, helpText, type Input } from '../../../../declare.js';

/** The declaration; its run is ./run.ts, imported when it runs (see the group's file in src/cli/tree/). */
export const get = () =>
  new Command('get')
    .description('Show one MCP catalog entry and the config fields its servers take')
    .argument('<catalog-id>', 'catalog entry ID (27-character KSUID)')
    .addHelpText('after', () => helpText('', ['agctl mcp catalog get 2hAcQ7vXy1Lm0bYtZk3PdRuE9sW', 'agctl mcp catalog get 2hAcQ7vXy1Lm0bYtZk3PdRuE9sW -o json | jq .configSchema.fields']));

export type GetInput = Input<ReturnType<typeof get>>;
