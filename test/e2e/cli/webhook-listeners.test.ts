// agctl webhook listeners list|create and webhook runs against the in-process
// embedded server (its own routes under /_embedded/v1/), over real HTTP.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

const s = await startTestServer({ allowInsecureJwks: true });
const w = s.demo.webhooks;
const work = tempDir('agctl-webhook-listeners-e2e-');
let n = 0;
const auth = { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_ID: s.plainClient.clientId, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret };
const cli = (env: Record<string, string | undefined> = {}) => cliFor(join(work, `cfg${n++}`), { ...auth, ...env });
const listenerCount = () => s.server.store.db.prepare('SELECT COUNT(*) FROM webhook_listeners').pluck().get() as number;
const A_SECRET = 'a-secret-of-my-own-0123456789abcdefghijkl';

function expectNoSecret(r: CliResult, ...secrets: string[]) {
  for (const x of [w.hmac.secret as string, ...secrets]) {
    expect(r.stdout).not.toContain(x);
    expect(r.stderr).not.toContain(x);
  }
}

describe('webhook listeners list', () => {
  it('shows each listener with its ID, name, auth, allowed sources, runs and full URL, and no secret', async () => {
    const r = await cli()(['webhook', 'listeners', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ID +NAME +AUTH +ALLOWED FROM +RUNS +URL$/m);
    const row = (id: string) => r.stdout.split('\n').find((l) => l.startsWith(id)) ?? '';
    expect(row(w.hmac.listenerId)).toMatch(
      new RegExp(`^${w.hmac.listenerId} +Demo: HMAC webhook +HMAC +anywhere +\\d+ +${s.baseUrl}${w.hmac.path}$`),
    );
    expect(row(w.jwt.listenerId)).toMatch(
      new RegExp(`^${w.jwt.listenerId} +Demo: JWT webhook +JWT +anywhere +\\d+ +${s.baseUrl}${w.jwt.path}$`),
    );
    expect(row(w.restricted.listenerId)).toMatch(/ HMAC +203\.0\.113\.0\/24, 2001:db8::\/32 +\d+ +http:/);
    expectNoSecret(r);
  });

  it('-o json prints the API objects without secrets; the run count follows the events; --limit stops early', async () => {
    const before = (await cli()(['webhook', 'listeners', 'list', '-o', 'json'])).json();
    const hmac = before.find((l: any) => l.id === w.hmac.listenerId);
    expect(hmac).toMatchObject({
      url: s.baseUrl + w.hmac.path,
      authMethod: 'HMAC',
      automation: { name: 'Demo: HMAC webhook', published: true, triggerEnabled: true },
    });
    expect(before.find((l: any) => l.id === w.jwt.listenerId)).toMatchObject({
      authMethod: 'JWT',
      jwksUrl: `${s.baseUrl}/_embedded/v1/demo/jwks.json`,
    });
    expect(before.every((l: any) => !('secret' in l))).toBe(true);
    const sent = await cli({ AGCTL_WEBHOOK_SECRET: w.hmac.secret })(['webhook', 'send', w.hmac.listenerId, '-d', '{"count":"me"}']);
    expect(sent.code, sent.stderr).toBe(0);
    const after = (await cli()(['webhook', 'listeners', 'list', '-o', 'json'])).json();
    expect(after.find((l: any) => l.id === w.hmac.listenerId).runCount).toBe(hmac.runCount + 1);
    const two = await cli()(['webhook', 'listeners', 'list', '--limit', '2', '-o', 'json']);
    expect(two.json().map((l: any) => l.id)).toEqual(after.slice(0, 2).map((l: any) => l.id));
  });

  it('against a server without the route: exit 5 and a hint that these are embedded-server routes', async () => {
    const tenant = createServer((req, res) => {
      res.statusCode = 404;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ code: 5, message: `no route for ${req.method} ${req.url}`, details: [] }));
    });
    await new Promise<void>((r) => tenant.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(tenant.address() as AddressInfo).port}`;
      const r = await cli({
        AGCTL_BASE_URL: base,
        AGCTL_ACCESS_TOKEN: 'static-token',
        AGCTL_CLIENT_ID: undefined,
        AGCTL_CLIENT_SECRET: undefined,
      })(['webhook', 'listeners', 'list']);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/^agctl: no route for GET \/_embedded\/v1\/webhook_listeners.* \(HTTP 404\)$/m);
      expect(r.stderr).toMatch(/^hint: webhook listeners are listed by the embedded server \(agctl serve, or --embedded\)/m);
    } finally {
      await new Promise((r) => tenant.close(r));
    }
  });
});

describe('webhook listeners create', () => {
  it('--secret-out writes a new secret to a 0600 file, never prints it, and the listener takes events signed with it', async () => {
    const file = join(work, 'ticket-sync.secret');
    const r = await cli()(['webhook', 'listeners', 'create', '--name', 'Ticket sync', '--secret-out', file]);
    expect(r.code, r.stderr).toBe(0);
    const secret = readFileSync(file, 'utf8').trim();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expectNoSecret(r, secret);
    const id = /^ID: +(\S+)$/m.exec(r.stdout)![1]!;
    expect(r.stdout).toMatch(/^Name: +Ticket sync$/m);
    expect(r.stdout).toMatch(new RegExp(`^URL: +${s.baseUrl}/api/v1/webhooks/incoming/${id}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^Secret: +saved to ${file} \\(mode 0600\\)$`, 'm'));
    expect(r.stderr).toContain(`agctl webhook send ${id} -d '{}' --secret-file ${file}`);

    const sent = await cli()(['webhook', 'send', id, '-d', '{"ticket":"INC-9"}', '--secret-file', file, '-o', 'json']);
    expect(sent.code, sent.stderr).toBe(0);
    const listed = (await cli()(['webhook', 'listeners', 'list', '-o', 'json'])).json().find((l: any) => l.id === id);
    expect(listed).toMatchObject({ automation: { name: 'Ticket sync' }, runCount: 1 });
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  it('--secret-out never overwrites a file, and creates nothing then', async () => {
    const file = join(work, 'exists.secret');
    writeFileSync(file, 'keep me\n');
    const before = listenerCount();
    const r = await cli()(['webhook', 'listeners', 'create', '--secret-out', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--secret-out .*exists\.secret: the file already exists/);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    expect(listenerCount()).toBe(before);
  });

  it.each([
    ['the environment', { AGCTL_WEBHOOK_SECRET: A_SECRET }, [], undefined],
    ['standard input', {}, ['--secret-stdin'], A_SECRET + '\n'],
    ['a file', {}, ['--secret-file', 'FILE'], undefined],
  ] as const)('takes a secret of the user from %s, and prints the API object without it', async (_from, env, flags, input) => {
    const file = join(work, `given-${n}.secret`);
    writeFileSync(file, A_SECRET + '\n', { mode: 0o600 });
    const args = flags.map((f) => (f === 'FILE' ? file : f));
    // --debug logs the request: the secret it carries is redacted.
    const r = await cli(env)(['webhook', 'listeners', 'create', ...args, '-o', 'json', '--debug'], { input });
    expect(r.stderr).toMatch(/"secret": ?"<redacted>"/);
    expect(r.code, r.stderr).toBe(0);
    const l = r.json();
    expect(l).toMatchObject({ authMethod: 'HMAC', url: `${s.baseUrl}/api/v1/webhooks/incoming/${l.id}`, runCount: 0 });
    expect(l.secret).toBeUndefined();
    expectNoSecret(r, A_SECRET);
    const sent = await cli({ AGCTL_WEBHOOK_SECRET: A_SECRET })(['webhook', 'send', l.url, '-d', '{}']);
    expect(sent.code, sent.stdout).toBe(0);
  });

  it('creates a JWT listener (--auth-method in any case) that takes events signed with the matching key', async () => {
    const jwksUrl = `${s.baseUrl}/_embedded/v1/demo/jwks.json`;
    const r = await cli()([
      'webhook',
      'listeners',
      'create',
      '--auth-method',
      'jwt',
      '--jwks-url',
      jwksUrl,
      '--allowed-cidr',
      '127.0.0.0/8, ::1',
      '--name',
      'Partner',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Auth: +JWT$/m);
    expect(r.stdout).toMatch(new RegExp(`^JWKS URL: +${jwksUrl}$`, 'm'));
    expect(r.stdout).toMatch(/^Allowed from: +127\.0\.0\.0\/8, ::1$/m);
    expect(r.stdout).not.toMatch(/^Secret:/m);
    const id = /^ID: +(\S+)$/m.exec(r.stdout)![1]!;
    const keyFile = join(work, 'demo.private.jwk.json');
    writeFileSync(keyFile, JSON.stringify(w.jwt.privateJwk), { mode: 0o600 });
    const sent = await cli()(['webhook', 'send', id, '-d', '{"partner":1}', '--jwt-key', keyFile]);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
  });

  it('refuses what cannot work before creating anything: exit 2 for usage, 7 for what the server refuses', async () => {
    const before = listenerCount();
    const cases: [string[], Record<string, string>, number, RegExp][] = [
      [['--auth-method', 'JWT'], {}, 2, /a JWT listener needs --jwks-url/],
      [
        ['--auth-method', 'jwt', '--jwks-url', 'https://k.example.com/j.json', '--secret-out', join(work, 'x.secret')],
        {},
        2,
        /--secret-out applies to HMAC listeners/,
      ],
      [['--jwks-url', 'https://k.example.com/j.json'], {}, 2, /--jwks-url applies to JWT listeners: add --auth-method jwt/],
      [
        [],
        {},
        2,
        /missing webhook signing secret: provide it with --secret-stdin, --secret-file, AGCTL_WEBHOOK_SECRET[\s\S]*--secret-out FILE/,
      ],
      [['--secret-out', join(work, 'y.secret'), '--secret-file', join(work, 'z')], {}, 2, /use either --secret-out .* or --secret-file/],
      [['--allowed-cidr', '10.0.0.0/8,'], { AGCTL_WEBHOOK_SECRET: A_SECRET }, 2, /--allowed-cidr: an empty range/],
      [[], { AGCTL_WEBHOOK_SECRET: 'short-secret' }, 7, /secret must be 32 to 512 printable ASCII characters/],
      [['--allowed-cidr', '10.0.0.0/33'], { AGCTL_WEBHOOK_SECRET: A_SECRET }, 7, /10\.0\.0\.0\/33/],
      [['--auth-method', 'jwt', '--jwks-url', 'http://jwks.example.com/j.json'], {}, 7, /https/],
      [['--secret-out', join(work, 'refused.secret'), '--allowed-cidr', '10.0.0.0/33'], {}, 7, /10\.0\.0\.0\/33/],
    ];
    for (const [args, env, code, re] of cases) {
      const r = await cli(env)(['webhook', 'listeners', 'create', ...args]);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stderr, args.join(' ')).toMatch(re);
      expectNoSecret(r, 'short-secret', A_SECRET);
    }
    expect(listenerCount()).toBe(before);
    // A secret file written for a listener the server then refused is removed.
    for (const f of ['x.secret', 'y.secret', 'refused.secret']) expect(existsSync(join(work, f)), f).toBe(false);
  });
});

describe('webhook runs', () => {
  it("lists what each event ran, newest first, with the event's body; -o json prints the runs", async () => {
    const file = join(work, 'runs.secret');
    const l = (await cli()(['webhook', 'listeners', 'create', '--secret-out', file, '-o', 'json'])).json();
    const none = await cli()(['webhook', 'runs', l.id]);
    expect(none.code).toBe(0);
    expect(none.stderr).toMatch(/No runs yet for listener/);
    const ids: string[] = [];
    for (const ticket of ['INC-1', 'INC-2', 'INC-3']) {
      const r = await cli()(['webhook', 'send', l.id, '-d', JSON.stringify({ ticket }), '--secret-file', file, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      ids.push(r.json().eventId);
    }
    const table = await cli()(['webhook', 'runs', l.id]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^RUN +ID +EVENT ID +CREATED +TRIGGER$/m);
    const lines = table.stdout.trim().split('\n').slice(1);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^3 +\\S+ +${ids[2]} +\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +\\{"ticket":"INC-3"\\}$`));
    expect(lines[2]).toMatch(new RegExp(`^1 +\\S+ +${ids[0]} .*\\{"ticket":"INC-1"\\}$`));

    const json = await cli()(['webhook', 'runs', l.id, '-o', 'json']);
    expect(json.json().map((r: any) => r.eventId)).toEqual([...ids].reverse());
    expect(json.json()[0]).toMatchObject({
      number: 3,
      listenerId: l.id,
      automationId: l.automation.id,
      context: { trigger: { ticket: 'INC-3' } },
    });

    const one = await cli()(['webhook', 'runs', l.id, '--event-id', ids[1]!.toUpperCase(), '-o', 'json']);
    expect(one.json()).toMatchObject([{ number: 2, eventId: ids[1] }]);
    const newest = await cli()(['webhook', 'runs', l.id, '--limit', '1']);
    expect(newest.stdout.trim().split('\n')).toHaveLength(2);
    expect(newest.stderr).toMatch(/Showing the newest 1 of 3 runs/);
  });

  it("shows a body's control characters escaped, so an event's sender cannot drive the terminal", async () => {
    const file = join(work, 'escape.secret');
    const l = (await cli()(['webhook', 'listeners', 'create', '--secret-out', file, '-o', 'json'])).json();
    // A JSON string body: the run's trigger is the string itself, ESC and all.
    const sent = await cli()(['webhook', 'send', l.id, '-d', JSON.stringify('\u001b]0;owned\u0007\u001b[2J'), '--secret-file', file]);
    expect(sent.code, sent.stderr).toBe(0);
    const table = await cli()(['webhook', 'runs', l.id]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).not.toMatch(/[\u0007\u001b]/);
    expect(table.stdout).toContain('\\x1b]0;owned\\x07\\x1b[2J');
  });

  it('an unknown listener exits 5 with where listener IDs come from', async () => {
    const r = await cli()(['webhook', 'runs', 'no-such-listener']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^agctl: webhook listener no-such-listener not found \(HTTP 404\)$/m);
    expect(r.stderr).toMatch(/^hint: listener IDs: agctl webhook listeners list/m);
  });
});
