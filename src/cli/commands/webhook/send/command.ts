// agctl webhook send: the declaration.
import { Argument, Command, completeWith, Option, readsEnv, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { collect, positiveInt } from '../../../tree/util.js';
import { DOWN_ATTEMPTS, DOWN_MS, JWT_ALGS, WEBHOOK_SECRET_ENV, anyCase, positiveSeconds, unixSeconds } from '../flags.js';

export const command = () =>
  readsEnv(new Command('send'), WEBHOOK_SECRET_ENV)
    .description("Send a signed event to a webhook listener and print the listener's answer")
    .addArgument(
      completeWith(new Argument('<listener>', 'listener URL, or a listener ID on the configured base URL'), { dynamic: 'listener-ids' }),
    )
    .option('-d, --data <json>', 'the request body')
    .option('--data-file <path>', 'read the request body from a file ("-" for stdin)')
    .option('--secret-file <path>', 'read the HMAC signing secret from a file')
    .option('--secret-stdin', 'read the HMAC signing secret from standard input')
    .option('--jwt-key <path>', 'sign a JWT with this private key (a private JWK or PEM) instead of HMAC')
    .option('--kid <id>', 'JWT key ID (default: the JWK kid, else the key thumbprint)')
    .addOption(
      completeWith(
        new Option('--alg <alg>', `JWT algorithm: ${JWT_ALGS.join(', ')} (any case; default: from the key)`).argParser(anyCase(JWT_ALGS)),
        JWT_ALGS,
      ),
    )
    .option('--tenant <url>', 'JWT sub: the tenant base URL (default: the origin of the listener URL)')
    .option('--jwt-ttl <seconds>', 'JWT lifetime (listeners accept at most 600)', positiveInt('--jwt-ttl', 86400), 300)
    .option('--event-id <uuid>', 'Webhook-Event-Id to send (default: a fresh UUID v4; for replay tests)')
    .option('--timestamp <unix>', 'Webhook-Timestamp to send (default: now; for replay tests)', unixSeconds('--timestamp'))
    .option('-H, --header <header>', "extra request header 'Name: value' (repeatable)", collect, [] as string[])
    .option(
      '--dry-run',
      'print the signed request instead of sending it: a runnable curl command, or with -o json {method, url, headers, body}',
    )
    .option('--count <n>', 'load mode: send this many events, each with a fresh event ID', positiveInt('--count', 1_000_000))
    .option('--events <file>', 'load mode: send each line of this NDJSON file as an event, in order ("-" for stdin)')
    .option(
      '--duration <seconds>',
      'load mode: send until this many seconds have passed (with --count: whichever ends first)',
      positiveSeconds('--duration', 86400),
    )
    .option('--concurrency <n>', 'load mode: requests in flight at once (default 16; 1 with --events)', positiveInt('--concurrency', 1000))
    .option('--rate <n>', 'load mode: at most this many requests per second', positiveInt('--rate', 1_000_000))
    .addHelpText('after', () =>
      helpText(
        `
The body comes from --data, --data-file, or standard input, and is sent as the
exact bytes that were signed. The HMAC secret comes from ${WEBHOOK_SECRET_ENV.name},
--secret-file, --secret-stdin, or a hidden prompt on a terminal (never a flag
value). With --jwt-key the request carries an Authorization: Bearer JWT with
sub, aud (the listener URL), exp, jti (= event ID), htm and htb_s256 instead.

Exit code from the listener's answer: 200 -> 0, 400/413/431 -> 7, 401 -> 3,
403 -> 4, 404 -> 5, 409 -> 6, 5xx or network failure -> 9.

Load mode (--count, --duration or --events) sends events with fresh event IDs
and prints "N of M delivered" (answered 2xx), status counts and a latency
histogram; it exits 0 when every event was delivered, otherwise with the code
of the most frequent failure (9 for requests that got no answer: refused,
reset, timed out). It stops with exit 9 when ${DOWN_ATTEMPTS} attempts in a row, or every
attempt for ${DOWN_MS / 1000} s, got no HTTP answer (the listener is down or went down).
--events sends each non-blank line of an NDJSON file as its exact bytes, every
line once in order (--count N: N events, from the first line again after the
last); every line is checked first, and one that is not JSON or is over 64 KiB
is an error naming its line (exit 2), with nothing sent. Under --rate, latency
is measured from when each request was due, so a slow listener shows as slow.`,
        [
          `export ${WEBHOOK_SECRET_ENV.name}=...   # from \`agctl serve\` or the listener setup`,
          `agctl webhook send http://127.0.0.1:8080/api/v1/webhooks/incoming/LISTENER -d '{"ticket":"INC-1"}'`,
          'agctl webhook send LISTENER --data-file event.json --event-id 3f2c...   # replay: 409',
          "agctl webhook send LISTENER -d '{}' --jwt-key webhook-es256.private.jwk.json",
          "agctl webhook send LISTENER -d '{}' --dry-run          # a curl command",
          "agctl webhook send LISTENER -d '{}' --dry-run -o json  # the request as JSON",
          "agctl webhook send LISTENER -d '{}' --count 20000 --concurrency 32 -o json",
          'agctl webhook send LISTENER --events captured.ndjson            # replay, in order',
          "agctl webhook send LISTENER -d '{}' --rate 200 --duration 60    # one minute at 200/s",
        ],
      ),
    );

export type SendInput = Input<ReturnType<typeof command>>;
