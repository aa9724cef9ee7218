// agctl auth list: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { columnsOption } from '../../../tree/columns.js';

/** The table's columns in display order, with their ranks (1: kept longest on a narrow terminal). */
export const COLUMNS = [
  ['CURRENT', 2],
  ['NAME', 1],
  ['BASE URL', 4],
  ['CLIENT ID', 5],
  ['SECRET', 6],
  ['TOKEN', 3],
  ['EXPIRES', 7],
] as const;

export const command = () =>
  new Command('list')
    .description('List the saved profiles: base URL, client ID, the current one, token expiry')
    .addOption(columnsOption(COLUMNS))
    .addHelpText('after', () =>
      helpText(
        `
The current profile (marked *) is the one commands use without --profile or
AGCTL_PROFILE; \`agctl auth switch\` changes it. The token column comes from the
token cache (no request is sent); \`agctl auth status\` checks with the server.`,
        ['agctl auth list', 'agctl auth list -o json'],
      ),
    );

export type ListInput = Input<ReturnType<typeof command>>;
