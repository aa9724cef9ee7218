// agctl task list: the declaration.
import { Command, Option, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { columnsOption } from '../../../tree/columns.js';
import { positiveInt } from '../../../tree/util.js';

export const TASK_LIST_DEFAULT_LIMIT = 100;

/** The table's columns in display order, with their ranks (1: kept longest on a narrow terminal). */
export const COLUMNS = [
  ['ID', 5],
  ['NUMBER', 3],
  ['NAME', 1],
  ['STEP', 4],
  ['STATE', 2],
  ['CREATED', 6],
] as const;

export const command = () =>
  new Command('list')
    .description("List tasks, through the service's task search")
    .addOption(new Option('--state <state>', 'open, closed or all').choices(['open', 'closed', 'all'] as const).default('open' as const))
    .option('--query <text>', 'tasks whose name or description matches, or with this numeric ID')
    .option('--mine', 'only tasks whose current step you may approve')
    .option('--limit <n>', `stop after this many tasks (default ${TASK_LIST_DEFAULT_LIMIT})`, positiveInt('--limit'))
    .option('--page-size <n>', 'tasks per request, 1 to 100 (the service raises less than 10 to 10)', positiveInt('--page-size', 100))
    .addOption(columnsOption(COLUMNS))
    .addHelpText('after', () =>
      helpText(
        `
Tasks come in the service's order, every page followed. --mine asks the
service for the tasks assigned to you (its assignedOrStepApproverUserId
filter, which also returns closed tasks you approved) and keeps, here, those
whose current step lists you among its approvers; agctl learns who you are
from the service (GET /api/v1/auth/introspect). -o json prints the task views.`,
        [
          'agctl task list',
          'agctl task list --mine',
          'agctl task list --state all --query "CRM Administrator" --limit 20',
          "agctl task list --state closed -o json | jq -r '.[].task.id'",
        ],
      ),
    );

export type ListInput = Input<ReturnType<typeof command>>;
