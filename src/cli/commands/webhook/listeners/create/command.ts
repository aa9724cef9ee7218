// agctl webhook listeners create: the declaration.
import { Command, completeWith, Option, readsEnv, type Input } from '../../../../declare.js';
import { helpText } from '../../../../help-text.js';
import { collect } from '../../../../tree/util.js';
import { EMBEDDED_ONLY, LISTENER_AUTH, WEBHOOK_SECRET_ENV, anyCase } from '../../flags.js';

export const command = () =>
  readsEnv(new Command('create'), WEBHOOK_SECRET_ENV)
    .description('Create a webhook listener and its automation (embedded server)')
    .addOption(
      completeWith(
        new Option('--auth-method <method>', `authentication: ${LISTENER_AUTH.join(' or ')} (any case)`)
          .argParser(anyCase(LISTENER_AUTH))
          .default('HMAC' as const),
        LISTENER_AUTH,
      ),
    )
    .option('--name <name>', 'name of the automation the listener triggers')
    .option(
      '--jwks-url <url>',
      'JWT: the HTTPS URL of the key set that verifies senders (http on loopback with serve --allow-insecure-jwks)',
    )
    .option('--allowed-cidr <cidrs>', 'accept events only from these ranges, comma-separated (repeatable)', collect, [] as string[])
    .addOption(
      completeWith(new Option('--secret-out <path>', 'HMAC: generate the secret and write it to this new file (mode 0600)'), 'file'),
    )
    .option('--secret-file <path>', 'HMAC: use the secret in this file')
    .option('--secret-stdin', 'HMAC: read the secret from standard input')
    .addHelpText('after', () =>
      helpText(
        `${EMBEDDED_ONLY}

An HMAC listener needs a secret, never shown or given as a flag value: with
--secret-out a new 256-bit secret (as the service generates) is written to a
file of mode 0600 that must not exist yet; otherwise the secret comes from
--secret-file, --secret-stdin, ${WEBHOOK_SECRET_ENV.name} or a hidden prompt
(32 to 512 printable characters). A JWT listener takes --jwks-url instead.`,
        [
          'agctl webhook listeners create --name "Ticket sync" --secret-out ticket-sync.secret',
          'agctl webhook send LISTENER -d \'{"ticket":"INC-1"}\' --secret-file ticket-sync.secret',
          'agctl webhook listeners create --auth-method jwt --jwks-url https://keys.example.com/jwks.json --allowed-cidr 203.0.113.0/24',
        ],
      ),
    );

export type CreateInput = Input<ReturnType<typeof command>>;
