// agctl auth list: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';

export const command = () =>
  new Command('list')
    .description('List the saved profiles: base URL, client ID, the current one, token expiry')
    .addHelpText(
      'after',
      () => helpText(
        `
The current profile (marked *) is the one commands use without --profile or
AGCTL_PROFILE; \`agctl auth switch\` changes it. The token column comes from the
token cache (no request is sent); \`agctl auth status\` checks with the server.`,
        ['agctl auth list', 'agctl auth list -o json'],
      ),
    );

export type ListInput = Input<ReturnType<typeof command>>;
