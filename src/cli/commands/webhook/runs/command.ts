// agctl webhook runs: the declaration.
import { Argument, Command, completeWith, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { positiveInt } from '../../../tree/util.js';
import { EMBEDDED_ONLY } from '../flags.js';

export const command = () =>
  new Command('runs')
    .description("List what a listener's events ran: its automation runs, newest first, with each event's body (embedded server)")
    .addArgument(completeWith(new Argument('<listener-id>', 'listener ID (agctl webhook listeners list)'), { dynamic: 'listener-ids' }))
    .option('--limit <n>', 'the newest N runs, 1 to 1000 (default 50)', positiveInt('--limit', 1000))
    .option('--event-id <uuid>', 'only the run of this event')
    .addHelpText(
      'after',
      () => helpText(EMBEDDED_ONLY, [
        'agctl webhook runs LISTENER',
        'agctl webhook runs LISTENER --event-id 3f2c...',
        "agctl webhook runs LISTENER --limit 1 -o json | jq '.[0].context.trigger'",
      ]),
    );

export type RunsInput = Input<ReturnType<typeof command>>;
