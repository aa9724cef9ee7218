// agctl rules list: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { limitOption, pageSizeOption } from '../../../tree/util.js';

export const command = () =>
  new Command('list')
    .description('List the rules of an app in evaluation order (priority, then ID)')
    .argument('<app-id>', 'app ID')
    .addOption(limitOption('rules'))
    .addOption(pageSizeOption('rules', 250))
    .addHelpText('after', () => helpText('', ['agctl rules list crm-app', "agctl rules list crm-app -o json | jq '.[].id'"]));

export type ListInput = Input<ReturnType<typeof command>>;
