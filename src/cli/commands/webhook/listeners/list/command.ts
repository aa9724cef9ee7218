// agctl webhook listeners list: the declaration.
import { Command, type Input } from '../../../../declare.js';
import { helpText } from '../../../../help-text.js';
import { limitOption } from '../../../../tree/util.js';
import { EMBEDDED_ONLY } from '../../flags.js';

export const command = () =>
  new Command('list')
    .description('List webhook listeners: ID, name, auth method, allowed sources, runs and the URL to send to (embedded server)')
    .addOption(limitOption('listeners'))
    .addHelpText(
      'after',
      () => helpText(
        `${EMBEDDED_ONLY}\n\nNo secret is ever shown: an HMAC secret is given only when a listener is created.`,
        ['agctl webhook listeners list', "agctl webhook listeners list -o json | jq -r '.[] | select(.authMethod == \"JWT\") | .url'"],
      ),
    );

export type ListInput = Input<ReturnType<typeof command>>;
