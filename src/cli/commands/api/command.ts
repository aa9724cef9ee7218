// agctl api: the declaration.
import { Command, completeWith, Option, type Input } from '../../declare.js';
import { helpText } from '../../help-text.js';
import { collect } from '../../tree/util.js';

export const command = () =>
  new Command('api')
    .description('Send an authenticated request to any route of the service and print the answer')
    .argument('<path>', 'the route, e.g. /api/v1/search/tasks (a query string may follow)')
    .option('-X, --method <method>', 'the HTTP method (default: GET, or POST when fields or --input are given)')
    .option('-f, --raw-field <key=value>', 'a string field (repeatable)', collect, [] as string[])
    .option(
      '-F, --field <key=value>',
      'a typed field: true, false, null, a number, @file or @- for stdin, else a string (repeatable)',
      collect,
      [] as string[],
    )
    .addOption(
      completeWith(
        new Option('--input <file>', 'the request body as is, from a file ("-" for stdin); fields then go to the query string'),
        'file',
      ),
    )
    .option('-H, --header <header>', "a request header 'Name: value' (repeatable; not Authorization or Host)", collect, [] as string[])
    .option('-i, --include', 'print the status line and response headers before the body')
    .option('--paginate', "follow nextPageToken until the last page and print one document with every page's list")
    .option('--allow-any-path', 'allow a path outside /api/ (on the same server)')
    .addHelpText('after', () =>
      helpText(
        `
The request goes to the profile's base URL (or the embedded server with
--embedded) with the profile's bearer token, retries and timeout, like every
other command. Only a path is taken, never a URL: the token goes nowhere else.
A path outside /api/ needs --allow-any-path.

Fields: -f key=value is always a string; -F key=value is typed (true, false,
null, numbers; @file sends the file's content, @- standard input). Nested keys
use gh's syntax: -f 'a[b]=c' gives {"a":{"b":"c"}}, -f 'a[]=x' appends to an
array, -f 'a[][k]=v' fills objects of an array. The -f fields are applied before
the -F fields. With GET (and with --input) the fields become query parameters:
nested keys as a.b (the service's form), array items repeating the key. A body
(fields or --input, read as is, at most 1 MiB) is sent as application/json
unless -H 'Content-Type: ...' says otherwise.

--paginate follows nextPageToken: as the page_token query parameter of a GET,
as pageToken in the JSON body of a POST search, and prints one document whose
list holds every page's items and whose expanded every page's related objects
(later pages' ...Path members re-based onto it); the other members are the
first page's. An answer without a list is printed as is, unpaged. A repeated
token stops it with an error (exit 9).

The answer is printed as is: JSON pretty-printed, anything else unchanged. The
exit code follows the status (see \`agctl help exit-codes\`); an error answer is
still printed on standard output, and the error line on standard error.`,
        [
          'agctl api /api/v1/apps/crm-app/entitlement_configuration_rules --paginate',
          'agctl api -X GET /api/v1/apps/crm-app/entitlement_configuration_rules -f page_size=5 -i',
          'agctl api /api/v1/search/step-up/transactions -F pageSize=10 -f state=STEP_UP_TRANSACTION_STATE_PENDING --paginate',
          "agctl api /api/v1/tasks/TASK_ID/action/approve-with-step-up -f policyStepId=STEP_ID -f 'expandMask[paths][]=*'",
          'agctl api -X DELETE /api/v1/apps/crm-app/entitlement_configuration_rules/RULE_ID --input request.json',
        ],
      ),
    );

export type ApiInput = Input<ReturnType<typeof command>>;
