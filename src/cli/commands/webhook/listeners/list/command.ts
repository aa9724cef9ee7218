// agctl webhook listeners list: the declaration.
import { Command, type Input } from '../../../../declare.js';
import { helpText } from '../../../../help-text.js';
import { columnsOption } from '../../../../tree/columns.js';
import { limitOption } from '../../../../tree/util.js';
import { EMBEDDED_ONLY } from '../../flags.js';

/** The table's columns in display order, with their ranks (1: kept longest on a narrow terminal). */
export const COLUMNS = [
  ['ID', 4],
  ['NAME', 1],
  ['AUTH', 2],
  ['ALLOWED FROM', 5],
  ['RUNS', 3],
  ['URL', 6],
] as const;

export const command = () =>
  new Command('list')
    .description('List webhook listeners: ID, name, auth method, allowed sources, runs and the URL to send to (embedded server)')
    .addOption(limitOption('listeners'))
    .addOption(columnsOption(COLUMNS))
    .addHelpText('after', () =>
      helpText(`${EMBEDDED_ONLY}\n\nNo secret is ever shown: an HMAC secret is given only when a listener is created.`, [
        'agctl webhook listeners list',
        'agctl webhook listeners list -o json | jq -r \'.[] | select(.authMethod == "JWT") | .url\'',
      ]),
    );

export type ListInput = Input<ReturnType<typeof command>>;
