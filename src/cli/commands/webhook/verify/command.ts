// agctl webhook verify: the declaration.
import { Command, readsEnv, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { collect } from '../../../tree/util.js';
import { WEBHOOK_SECRET_ENV, unixSeconds } from '../flags.js';

export const command = () =>
  readsEnv(new Command('verify'), WEBHOOK_SECRET_ENV)
    .description('Check a captured webhook request offline with the listener pipeline, and say why it would fail')
    .option('--request <path>', 'a raw HTTP request as captured (request line, headers, blank line, body; "-" for stdin)')
    .option('-H, --header <header>', "a request header 'Name: value' (repeatable; instead of --request)", collect, [] as string[])
    .option('--body-file <path>', 'the raw body (with --header; "-" for stdin)')
    .option('--secret-file <path>', 'read the HMAC signing secret from a file')
    .option('--secret-stdin', 'read the HMAC signing secret from standard input')
    .option('--jwks <url|path>', 'verify a JWT against this JWKS (an https URL or a file) instead of an HMAC secret')
    .option('--url <url>', 'the listener endpoint URL (the JWT aud; default: --tenant + the request path)')
    .option('--tenant <url>', 'the tenant base URL (the JWT sub; default: the origin of the endpoint URL)')
    .option('--now <unix>', 'judge at this Unix time in seconds instead of now', unixSeconds('--now'))
    .option('--source-ip <ip>', 'the source address of the request (for --allowed-cidr)')
    .option('--allowed-cidr <cidrs>', "the listener's allowed ranges, comma-separated (repeatable)", collect, [] as string[])
    .option('--trust-proxy', 'take the source address from X-Forwarded-For, as a server behind a proxy would')
    .option('--allow-insecure-jwks', 'allow a JWKS URL over plain http on a loopback address')
    .addHelpText('after', () =>
      helpText(
        `
Runs the same verification pipeline as the service, in the same order: source
address (403), headers, timestamp and JSON body (400), signature or JWT (401).
The idempotency step (409) needs the listener's event records and is skipped
offline. Prints the status the service would answer and the exact reason; the
exit code follows that status (0 when it would be accepted).`,
        [
          `${WEBHOOK_SECRET_ENV.name}=... agctl webhook verify --request captured.http`,
          'agctl webhook verify --request captured.http --secret-file secret.txt --now 1700000000',
          `agctl webhook verify -H 'Webhook-Timestamp: 1700000000' -H 'Webhook-Event-Id: ...' \\
      -H 'Content-Type: application/json' -H 'Authorization: Bearer ...' --body-file body.json \\
      --jwks https://keys.example.com/jwks.json --url https://acme.example.com/api/v1/webhooks/incoming/L1`,
        ],
      ),
    );

export type VerifyInput = Input<ReturnType<typeof command>>;
