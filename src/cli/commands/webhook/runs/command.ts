// agctl webhook runs: the declaration.
import { Argument, Command, completeWith, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { columnsOption } from '../../../tree/columns.js';
import { positiveInt } from '../../../tree/util.js';
import { EMBEDDED_ONLY } from '../flags.js';

/** The table's columns in display order, with their ranks (1: kept longest on a narrow terminal). */
export const COLUMNS = [
  ['RUN', 1],
  ['ID', 5],
  ['EVENT ID', 3],
  ['CREATED', 4],
  ['TRIGGER', 2],
] as const;

export const command = () =>
  new Command('runs')
    .description("List what a listener's events ran: its automation runs, newest first, with each event's body (embedded server)")
    .addArgument(completeWith(new Argument('<listener-id>', 'listener ID (agctl webhook listeners list)'), { dynamic: 'listener-ids' }))
    .option('--limit <n>', 'the newest N runs, 1 to 1000 (default 50)', positiveInt('--limit', 1000))
    .option('--event-id <uuid>', 'only the run of this event')
    .addOption(columnsOption(COLUMNS))
    .addHelpText('after', () =>
      helpText(EMBEDDED_ONLY, [
        'agctl webhook runs LISTENER',
        'agctl webhook runs LISTENER --event-id 3f2c...',
        "agctl webhook runs LISTENER --limit 1 -o json | jq '.[0].context.trigger'",
      ]),
    );

export type RunsInput = Input<ReturnType<typeof command>>;
