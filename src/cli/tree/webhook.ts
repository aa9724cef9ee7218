import { InvalidArgumentError, Option, type Command } from 'commander';
import { collect, lazyAction, positiveInt } from './util.js';

const unixSeconds = (name: string) => (v: string): number => {
  if (!/^\d{1,12}$/.test(v)) throw new InvalidArgumentError(`${name} must be a Unix time in seconds`);
  return Number(v);
};

/** Adds the subcommands of `agctl webhook` (the group itself is declared in program.ts). */
export function register(webhook: Command): void {

  webhook
    .command('send')
    .description("Send a signed event to a webhook listener and print the listener's answer")
    .argument('<listener>', 'listener URL, or a listener ID on the configured base URL')
    .option('-d, --data <json>', 'the request body')
    .option('--data-file <path>', 'read the request body from a file ("-" for stdin)')
    .option('--secret-file <path>', 'read the HMAC signing secret from a file')
    .option('--secret-stdin', 'read the HMAC signing secret from standard input')
    .option('--jwt-key <path>', 'sign a JWT with this private key (a private JWK or PEM) instead of HMAC')
    .option('--kid <id>', 'JWT key ID (default: the JWK kid, else the key thumbprint)')
    .addOption(new Option('--alg <alg>', 'JWT algorithm (default: from the key)').choices(['ES256', 'RS256', 'EdDSA']))
    .option('--tenant <url>', 'JWT sub: the tenant base URL (default: the profile base URL, else the listener URL origin)')
    .option('--jwt-ttl <seconds>', 'JWT lifetime (listeners accept at most 600)', positiveInt('--jwt-ttl', 86400), 300)
    .option('--event-id <uuid>', 'Webhook-Event-Id to send (default: a fresh UUID v4; for replay tests)')
    .option('--timestamp <unix>', 'Webhook-Timestamp to send (default: now; for replay tests)', unixSeconds('--timestamp'))
    .option('-H, --header <header>', "extra request header 'Name: value' (repeatable)", collect, [])
    .option('--dry-run', 'print the signed request as a runnable curl command instead of sending it')
    .option('--count <n>', 'load mode: send this many events, each with a fresh event ID', positiveInt('--count', 1_000_000))
    .option('--concurrency <n>', 'load mode: requests in flight at once (default 16)', positiveInt('--concurrency', 1000))
    .option('--rate <n>', 'load mode: at most this many requests per second', positiveInt('--rate', 1_000_000))
    .addHelpText(
      'after',
      `
The body comes from --data, --data-file, or standard input, and is sent as the
exact bytes that were signed. The HMAC secret comes from AGCTL_WEBHOOK_SECRET,
--secret-file, --secret-stdin, or a hidden prompt on a terminal (never a flag
value). With --jwt-key the request carries an Authorization: Bearer JWT with
sub, aud (the listener URL), exp, jti (= event ID), htm and htb_s256 instead.

Exit code from the listener's answer: 200 -> 0, 400/413/431 -> 7, 401 -> 3,
403 -> 4, 404 -> 5, 409 -> 6, 5xx or network failure -> 9. Load mode exits 0
when every event was answered 2xx, otherwise with the code of the most
frequent failure.

Examples:
  $ export AGCTL_WEBHOOK_SECRET=...   # from \`agctl serve\` or the listener setup
  $ agctl webhook send http://127.0.0.1:8080/api/v1/webhooks/incoming/LISTENER -d '{"ticket":"INC-1"}'
  $ agctl webhook send LISTENER --data-file event.json --event-id 3f2c...   # replay: 409
  $ agctl webhook send LISTENER -d '{}' --jwt-key webhook-es256.private.jwk.json
  $ agctl webhook send LISTENER -d '{}' --dry-run          # a curl command
  $ agctl webhook send LISTENER -d '{}' --count 20000 --concurrency 32 -o json`,
    )
    .action(
      lazyAction(() => import('../commands/webhook/send.js'), ([target], o) => ({
        target: target as string,
        data: o.data as string | undefined,
        dataFile: o.dataFile as string | undefined,
        secretFile: o.secretFile as string | undefined,
        secretStdin: Boolean(o.secretStdin),
        jwtKey: o.jwtKey as string | undefined,
        kid: o.kid as string | undefined,
        alg: o.alg as string | undefined,
        tenant: o.tenant as string | undefined,
        jwtTtl: o.jwtTtl as number,
        eventId: o.eventId as string | undefined,
        timestamp: o.timestamp as number | undefined,
        headers: o.header as string[],
        dryRun: Boolean(o.dryRun),
        count: o.count as number | undefined,
        concurrency: o.concurrency as number | undefined,
        rate: o.rate as number | undefined,
      })),
    );

  webhook
    .command('verify')
    .description('Check a captured webhook request offline with the listener pipeline, and say why it would fail')
    .option('--request <path>', 'a raw HTTP request as captured (request line, headers, blank line, body; "-" for stdin)')
    .option('-H, --header <header>', "a request header 'Name: value' (repeatable; instead of --request)", collect, [])
    .option('--body-file <path>', 'the raw body (with --header; "-" for stdin)')
    .option('--secret-file <path>', 'read the HMAC signing secret from a file')
    .option('--secret-stdin', 'read the HMAC signing secret from standard input')
    .option('--jwks <url|path>', "verify a JWT against this JWKS (an https URL or a file) instead of an HMAC secret")
    .option('--url <url>', 'the listener endpoint URL (the JWT aud; default: --tenant + the request path)')
    .option('--tenant <url>', 'the tenant base URL (the JWT sub; default: the profile base URL, else the --url origin)')
    .option('--now <unix>', 'judge at this Unix time in seconds instead of now', unixSeconds('--now'))
    .option('--source-ip <ip>', 'the source address of the request (for --allowed-cidr)')
    .option('--allowed-cidr <cidrs>', "the listener's allowed ranges, comma-separated (repeatable)", collect, [])
    .option('--trust-proxy', 'take the source address from X-Forwarded-For, as a server behind a proxy would')
    .option('--allow-insecure-jwks', 'allow a JWKS URL over plain http on a loopback address')
    .addHelpText(
      'after',
      `
Runs the same verification pipeline as the service, in the same order: source
address (403), headers, timestamp and JSON body (400), signature or JWT (401).
The idempotency step (409) needs the listener's event records and is skipped
offline. Prints the status the service would answer and the exact reason; the
exit code follows that status (0 when it would be accepted).

Examples:
  $ AGCTL_WEBHOOK_SECRET=... agctl webhook verify --request captured.http
  $ agctl webhook verify --request captured.http --secret-file secret.txt --now 1700000000
  $ agctl webhook verify -H 'Webhook-Timestamp: 1700000000' -H 'Webhook-Event-Id: ...' \\
      -H 'Content-Type: application/json' -H 'Authorization: Bearer ...' --body-file body.json \\
      --jwks https://keys.example.com/jwks.json --url https://acme.example.com/api/v1/webhooks/incoming/L1`,
    )
    .action(
      lazyAction(() => import('../commands/webhook/verify.js'), (_a, o) => ({
        request: o.request as string | undefined,
        headers: o.header as string[],
        bodyFile: o.bodyFile as string | undefined,
        secretFile: o.secretFile as string | undefined,
        secretStdin: Boolean(o.secretStdin),
        jwks: o.jwks as string | undefined,
        url: o.url as string | undefined,
        tenant: o.tenant as string | undefined,
        now: o.now as number | undefined,
        sourceIp: o.sourceIp as string | undefined,
        allowedCidrs: o.allowedCidr as string[],
        trustProxy: Boolean(o.trustProxy),
        allowInsecureJwks: Boolean(o.allowInsecureJwks),
      })),
    );

  webhook
    .command('keygen')
    .description('Generate a signing key for a JWT listener: a private JWK (0600) and a public JWKS')
    .addOption(new Option('--alg <alg>', 'algorithm').choices(['ES256', 'RS256', 'EdDSA']).default('ES256'))
    .option('--kid <id>', 'key ID (default: the RFC 7638 thumbprint of the key)')
    .option('--out <prefix>', 'file name prefix: writes <prefix>.private.jwk.json and <prefix>.jwks.json (default: webhook-<alg>)')
    .option('--force', 'overwrite existing files')
    .addHelpText(
      'after',
      `
Publish the JWKS file at the HTTPS URL the listener is configured with; keep
the private JWK secret and sign with it: agctl webhook send ... --jwt-key FILE.

Examples:
  $ agctl webhook keygen --alg ES256
  $ agctl webhook keygen --alg EdDSA --kid partner-2025 --out keys/partner`,
    )
    .action(
      lazyAction(() => import('../commands/webhook/keygen.js'), (_a, o) => ({
        alg: o.alg as string,
        kid: o.kid as string | undefined,
        out: o.out as string | undefined,
        force: Boolean(o.force),
      })),
    );
}
