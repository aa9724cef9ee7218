// agctl task approve-step-up: the declaration.
import { Argument, Command, completeWith, readsEnv, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { positiveInt } from '../../../tree/util.js';

export const command = () =>
  readsEnv(new Command('approve-step-up'), { name: 'BROWSER', meaning: 'browser command used by --open (default: the system opener)' })
    .description('Approve the current (or given) policy step of a task with step-up authentication')
    .addArgument(
      completeWith(new Argument('<task-id>', 'task ID, or its number as task list shows it (1041 or #1041)'), { dynamic: 'task-ids' }),
    )
    .option('--step <id>', "policy step ID to approve (default: the task's current step)")
    .option(
      '--transaction-id <id>',
      'resume with this step-up transaction, issued by the service (agctl prints its ID); default: start a new step-up',
    )
    .option('--comment <text>', 'comment recorded with the approval')
    .option(
      '--expand <paths>',
      'related objects to return, comma-separated, or * for all (default: app,createdByUser,approvers,stepApprovers)',
    )
    .option('--open', 'open the step-up page in the browser ($BROWSER, else the system opener)')
    .option('--no-wait', 'do not wait for the step-up: exit 10 with its URL and the command that resumes it (not with --embedded)')
    .option(
      '--wait-timeout <seconds>',
      'how long to wait for the step-up to be completed, in whole seconds from 1 to 86400 (default 300)',
      positiveInt('--wait-timeout', 86400),
    )
    .addHelpText('after', () =>
      helpText(
        `
When the step needs step-up authentication, the service starts a step-up
transaction and answers with the URL of its step-up page. agctl prints the URL
(and opens it with --open), finds the transaction through the service's
transaction search, waits until it is verified, then approves with it and
prints the approve action's ID. A transaction is issued by the service, bound
to one task, step and user, expires (after 10 minutes on the embedded server)
and can be used once. Exit code 10 means the step-up is still pending; the
resume command agctl prints then carries --transaction-id.`,
        [
          'agctl task approve-step-up 2hAc9... --comment "approved for Q3" --open',
          'agctl task approve-step-up 2hAc9... --no-wait -o json',
          'agctl task approve-step-up 2hAc9... --step 2hAcB... --transaction-id 2hAcQ7vXy1Lm0bYtZk3PdRuE9sW',
          "agctl task approve-step-up 2hAc9... --expand '*' -o json | jq '.expanded'",
        ],
      ),
    );

export type ApproveStepUpInput = Input<ReturnType<typeof command>>;
