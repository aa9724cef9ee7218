// agctl rules delete: the declaration.
import { Argument, Command, completeWith, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';

export const command = () =>
  new Command('delete')
    .description('Delete one or more rules of an app')
    .argument('<app-id>', 'app ID')
    .addArgument(completeWith(new Argument('<rule-id...>', 'rule IDs'), { dynamic: 'rule-ids' }))
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)')
    .option('--dry-run', 'show the rules that would be deleted (read from the server) and delete nothing')
    .addHelpText('after', () =>
      helpText('Declining the confirmation deletes nothing and exits 130, as Ctrl-C does.', [
        'agctl rules delete crm-app ecr-004',
        'agctl rules delete crm-app ecr-004 ecr-005 --yes',
        'agctl rules delete crm-app ecr-004 --dry-run',
      ]),
    );

export type DeleteInput = Input<ReturnType<typeof command>>;
