// agctl rules list: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { columnsOption } from '../../../tree/columns.js';
import { limitOption, pageSizeOption } from '../../../tree/util.js';

/** The table's columns in display order, with their ranks (1: kept longest on a narrow terminal). */
export const COLUMNS = [
  ['PRIORITY', 5],
  ['ID', 4],
  ['NAME', 1],
  ['ENABLED', 3],
  ['CONDITION', 2],
  ['REQUEST POLICY', 6],
] as const;

export const command = () =>
  new Command('list')
    .description('List the rules of an app in evaluation order (priority, then ID)')
    .argument('<app-id>', 'app ID')
    .addOption(limitOption('rules'))
    .addOption(pageSizeOption('rules', 250))
    .addOption(columnsOption(COLUMNS))
    .addHelpText('after', () => helpText('', ['agctl rules list crm-app', "agctl rules list crm-app -o json | jq '.[].id'"]));

export type ListInput = Input<ReturnType<typeof command>>;
