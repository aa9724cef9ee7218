// agctl task get: the declaration.
import { Argument, Command, completeWith, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { columnsOption } from '../../../tree/columns.js';

export const command = () =>
  new Command('get')
    .description('Show a task: its current step (who may approve it, whether step-up is needed) and its history')
    .addArgument(
      completeWith(new Argument('<task-id>', 'task ID, or its number as task list shows it (1041 or #1041)'), { dynamic: 'task-ids' }),
    )
    .option(
      '--expand <paths>',
      'related objects to return, comma-separated, or * for all (default: app,createdByUser,approvers,stepApprovers)',
    )
    .addOption(columnsOption())
    .addHelpText('after', () =>
      helpText('-o json prints the answer as the service gives it: {taskView, expanded}.', [
        'agctl task get 2hAc9...',
        'agctl task get 1041',
        "agctl task get 2hAc9... --expand '*' -o json | jq '.expanded'",
      ]),
    );

export type GetInput = Input<ReturnType<typeof command>>;
