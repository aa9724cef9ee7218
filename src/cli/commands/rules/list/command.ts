// agctl rules list: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { positiveInt } from '../../../tree/util.js';

export const command = () =>
  new Command('list')
    .description('List the rules of an app in evaluation order (priority, then ID)')
    .argument('<app-id>', 'app ID')
    .option('--limit <n>', 'stop after this many rules', positiveInt('--limit'))
    .option('--page-size <n>', 'rules per request, 1 to 250', positiveInt('--page-size', 250))
    .addHelpText('after', () => helpText('', ['agctl rules list crm-app', "agctl rules list crm-app -o json | jq '.[].id'"]));

export type ListInput = Input<ReturnType<typeof command>>;
