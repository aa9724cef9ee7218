// agctl rules get: the declaration.
import { Argument, Command, completeWith, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { columnsOption } from '../../../tree/columns.js';

export const command = () =>
  new Command('get')
    .description('Show one rule of an app')
    .argument('<app-id>', 'app ID')
    .addArgument(completeWith(new Argument('<rule-id>', 'rule ID'), { dynamic: 'rule-ids' }))
    .addOption(columnsOption())
    .addHelpText('after', () =>
      helpText('A rule that does not exist (or was deleted) exits with 5.', [
        'agctl rules get crm-app ecr-001',
        'agctl rules get crm-app ecr-001 -o json | jq .condition',
      ]),
    );

export type GetInput = Input<ReturnType<typeof command>>;
