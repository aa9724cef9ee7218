// Inbound webhooks: an HMAC send, its replay (409), a JWT send, the IP
// allowlist (403), a dry run as curl, an offline verify of a captured request,
// a signing key for a JWT listener, load runs (a corpus replayed, a timed
// run, a listener that is down); the listeners and their runs.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'Send and verify inbound webhooks (HMAC, JWT, allowlists, idempotency)';

/** Turns `webhook send --dry-run` output (a curl command) into a raw HTTP request, as a proxy would capture it. */
function rawRequestFromCurl(curl) {
  const url = new URL(/curl -sS -X POST (\S+)/.exec(curl)[1].replace(/^'|'$/g, ''));
  const headers = [...curl.matchAll(/-H '([^']*)'/g)].map((m) => m[1]);
  const dataArg = /--data-binary '((?:[^']|'\\'')*)'/.exec(curl)[1].replace(/'\\''/g, "'");
  const body = Buffer.from(dataArg);
  const head = [`POST ${url.pathname} HTTP/1.1`, `Host: ${url.host}`, ...headers, `Content-Length: ${body.length}`];
  return Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n'), body]);
}

export default async function ({ agctl, ready, work }) {
  const w = ready.demo.webhooks;
  const hmacUrl = ready.baseUrl + w.hmac.path;
  const secretEnv = { AGCTL_WEBHOOK_SECRET: w.hmac.secret };
  const eventId = randomUUID();

  // HMAC: the secret comes from the environment (as `agctl serve` printed it), never a flag.
  agctl(['webhook', 'send', hmacUrl, '-d', '{"ticket":"INC-42","priority":"high"}', '--event-id', eventId], { extraEnv: secretEnv });
  // The same event again: idempotency answers 409 and the automation does not run twice.
  agctl(['webhook', 'send', hmacUrl, '-d', '{"ticket":"INC-42","priority":"high"}', '--event-id', eventId], {
    extraEnv: secretEnv,
    expect: 6,
  });
  // The server's listeners, and what the first event ran.
  agctl(['webhook', 'listeners', 'list']);
  agctl(['webhook', 'runs', w.hmac.listenerId]);
  // A listener of your own, its generated secret written to a 0600 file (never printed).
  const secretFile = join(work, 'ticket-sync.secret');
  const created = agctl(['webhook', 'listeners', 'create', '--name', 'Ticket sync', '--secret-out', secretFile, '-o', 'json']);
  const listener = JSON.parse(created.stdout || '{}');
  agctl(['webhook', 'send', listener.id, '-d', '{"ticket":"INC-7"}', '--secret-file', secretFile]);
  agctl(['webhook', 'runs', listener.id, '--jq', '.[] | .eventId']);
  // The IP-restricted listener refuses a loopback source before anything else.
  agctl(['webhook', 'send', ready.baseUrl + w.restricted.path, '-d', '{}'], { extraEnv: secretEnv, expect: 4 });

  // JWT: signed with the demo key, whose public JWKS the server serves itself; by listener ID on the profile's base URL.
  const keyFile = join(work, 'demo-jwt.private.jwk.json');
  writeFileSync(keyFile, JSON.stringify(w.jwt.privateJwk), { mode: 0o600 });
  agctl(['webhook', 'send', w.jwt.listenerId, '-d', '{"source":"partner","amount":120}', '--jwt-key', keyFile]);
  agctl(['webhook', 'send', w.jwt.listenerId, '-d', '{}', '--jwt-key', keyFile, '--tenant', 'https://someone-else.example.com'], {
    expect: 3,
  });

  // A dry run prints the signed request as curl; turned into a raw HTTP request, it is "captured" traffic to check offline.
  const dry = agctl(['webhook', 'send', hmacUrl, '-d', '{"order":812,"status":"shipped"}', '--dry-run'], { extraEnv: secretEnv });
  const captured = join(work, 'captured.http');
  writeFileSync(captured, rawRequestFromCurl(dry.stdout));
  agctl(['webhook', 'verify', '--request', captured], { extraEnv: secretEnv });
  agctl(['webhook', 'verify', '--request', captured], { extraEnv: { AGCTL_WEBHOOK_SECRET: 'a-stale-secret' }, expect: 3 });
  agctl(['webhook', 'verify', '--request', captured, '--now', String(Math.floor(Date.now() / 1000) + 600)], {
    extraEnv: secretEnv,
    expect: 7,
  });
  agctl(['webhook', 'verify', '--request', captured, '--source-ip', '198.51.100.7', '--allowed-cidr', '203.0.113.0/24'], {
    extraEnv: secretEnv,
    expect: 4,
  });

  // The signed request as JSON instead of curl.
  agctl(['webhook', 'send', hmacUrl, '-d', '{"order":812}', '--dry-run', '-o', 'json'], { extraEnv: secretEnv });

  // A key pair for a JWT listener of your own (choices in any case).
  agctl(['webhook', 'keygen', '--alg', 'es256', '--out', join(work, 'partner-es')]);
  agctl(['webhook', 'keygen', '--alg', 'EdDSA', '--kid', 'partner-2025', '--out', join(work, 'partner')]);

  // Load mode: fresh event IDs through one keep-alive pool, then a summary with a latency histogram.
  agctl(['webhook', 'send', hmacUrl, '-d', '{"load":true}', '--count', '2000', '--concurrency', '16'], { extraEnv: secretEnv });
  // A captured corpus replayed: each NDJSON line its own event, its exact bytes signed, in order (blank lines skipped).
  const corpus = join(work, 'captured.ndjson');
  const tickets = Array.from({ length: 50 }, (_, i) =>
    JSON.stringify({ ticket: `INC-${100 + i}`, priority: ['low', 'high'][i % 2], tags: i % 5 ? [] : ['vip'] }),
  );
  writeFileSync(corpus, `${tickets.slice(0, 25).join('\n')}\n\n${tickets.slice(25).join('\n')}\n`);
  agctl(['webhook', 'send', hmacUrl, '--events', corpus], { extraEnv: secretEnv });
  // A line that is not JSON is named before anything is sent (exit 2).
  writeFileSync(join(work, 'broken.ndjson'), `${tickets[0]}\n{"ticket":"INC-9",\n`);
  agctl(['webhook', 'send', hmacUrl, '--events', join(work, 'broken.ndjson')], { extraEnv: secretEnv, expect: 2 });
  // A timed run at a fixed rate: about 300 events in 1.5 s, latency from when each was due.
  agctl(['webhook', 'send', hmacUrl, '--events', corpus, '--count', '100000', '--rate', '200', '--duration', '1.5', '--concurrency', '8'], {
    extraEnv: secretEnv,
  });
  // Nothing listening: the run stops after a few attempts, says why, exit 9.
  agctl(['webhook', 'send', 'http://127.0.0.1:1/api/v1/webhooks/incoming/x', '-d', '{}', '--count', '100000'], {
    extraEnv: secretEnv,
    expect: 9,
  });
}
