// Whitespace around a secret (a paste, an editor's CRLF, `echo`) is dropped;
// whitespace inside it is refused with a message that says so (exit 2) and
// never shows the secret. Values whose whitespace may mean something (a
// password) are kept as given, less one trailing line break.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir, type CliResult } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';

const s = await startTestServer();
const app = s.demo.rules.appId as string;
const plain = s.plainClient;
const work = tempDir('agctl-secret-ws-');
let n = 0;
const cli = (env: Record<string, string> = {}) => cliFor(join(work, `cfg${n++}`), { AGCTL_BASE_URL: s.baseUrl, ...env });
const file = (content: string) => {
  const path = join(work, `secret-${n++}`);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
};
/** The secret with a space in its middle. */
const split = (secret: string) => `${secret.slice(0, 8)} ${secret.slice(8)}`;

function expectInnerRefused(r: CliResult, what: string, secret: string) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(
    `agctl: the ${what} has whitespace or a control character inside it (a space, tab or line break between its characters)`,
  );
  expect(r.stderr).toContain('hint: a secret is one word: check that it was copied whole');
  for (const part of [secret.slice(0, 8), secret.slice(8)]) expect(r.stderr + r.stdout).not.toContain(part);
}

describe('client secret', () => {
  const login = ['login', '--client-id', plain.clientId];

  it('login takes a secret from stdin ending in " \\r\\n", and the saved secret works', async () => {
    const run = cli();
    const r = await run([...login, '--client-secret-stdin'], { input: `${plain.clientSecret} \r\n` });
    expect(r.code, r.stderr).toBe(0);
    const list = await run(['rules', 'list', app, '-o', 'json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json()).toHaveLength(26);
  });

  it('login takes a secret from a file with tabs, spaces and CRLF around it', async () => {
    const r = await cli()([...login, '--client-secret-file', file(`\t ${plain.clientSecret} \t\r\n\r\n`)]);
    expect(r.code, r.stderr).toBe(0);
  });

  it('login refuses a secret with a space inside (exit 2) and says so, without showing it', async () => {
    expectInnerRefused(
      await cli()([...login, '--client-secret-stdin'], { input: `${split(plain.clientSecret)}\n` }),
      'client secret from --client-secret-stdin',
      plain.clientSecret,
    );
    expectInnerRefused(
      await cli()([...login, '--client-secret-file', file(`${split(plain.clientSecret)}\r\n`)]),
      'client secret from --client-secret-file',
      plain.clientSecret,
    );
  });

  it('AGCTL_CLIENT_SECRET loses a trailing CRLF, and is refused with whitespace inside', async () => {
    const env = { AGCTL_CLIENT_ID: plain.clientId };
    const ok = await cli({ ...env, AGCTL_CLIENT_SECRET: `${plain.clientSecret}\r\n` })(['rules', 'list', app, '-o', 'json']);
    expect(ok.code, ok.stderr).toBe(0);
    expectInnerRefused(
      await cli({ ...env, AGCTL_CLIENT_SECRET: split(plain.clientSecret) })(['rules', 'list', app]),
      'client secret from AGCTL_CLIENT_SECRET',
      plain.clientSecret,
    );
  });
});

describe('webhook signing secret', () => {
  const w = s.demo.webhooks;
  const url = s.baseUrl + w.hmac.path;
  const secret = w.hmac.secret as string;

  it('from a file ending in CRLF signs exactly as the bare secret', async () => {
    const body = '{"ws":1}';
    for (const content of [`${secret}\r\n`, ` ${secret} \r\n`]) {
      const r = await cli()(['webhook', 'send', url, '-d', body, '--secret-file', file(content), '--dry-run', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const { headers } = r.json();
      expect(headers['Webhook-Signature']).toBe(
        createHmac('sha256', secret).update(`${headers['Webhook-Timestamp']}.${headers['Webhook-Event-Id']}.${body}`).digest('base64url'),
      );
    }
  });

  it('with whitespace inside is refused (exit 2), from a file or the environment', async () => {
    expectInnerRefused(
      await cli()(['webhook', 'send', url, '-d', '{}', '--secret-file', file(`${split(secret)}\n`), '--dry-run']),
      'webhook signing secret from --secret-file',
      secret,
    );
    expectInnerRefused(
      await cli({ AGCTL_WEBHOOK_SECRET: split(secret) })(['webhook', 'send', url, '-d', '{}', '--dry-run']),
      'webhook signing secret from AGCTL_WEBHOOK_SECRET',
      secret,
    );
  });
});

describe('mcp set-credentials', () => {
  const d = s.demo.mcp;
  const env = { AGCTL_CLIENT_ID: plain.clientId, AGCTL_CLIENT_SECRET: plain.clientSecret };
  const stored = (id: string, name: string) => {
    const row = s.server.store.db
      .prepare('SELECT secrets_json FROM mcp_servers WHERE app_id = ? AND connector_id = ?')
      .get(d.appId, id) as { secrets_json: string };
    return s.server.store.open(JSON.parse(row.secrets_json)[name], 'mcp_servers', d.appId, id, name);
  };
  const set = (...args: string[]) => ['mcp', 'set-credentials', d.appId, d.external, '--url', 'https://ws.example.com/mcp', ...args];

  it('a bearer token loses the whitespace around it', async () => {
    const r = await cli(env)(set('--bearer-token-file', file(' tok-ws-1 \r\n')));
    expect(r.code, r.stderr).toBe(0);
    expect(stored(d.external, 'auth.token')).toBe('tok-ws-1');
  });

  it('a password keeps its spaces (only one trailing line break goes)', async () => {
    const r = await cli(env)(set('--username', 'svc', '--password-stdin'), { input: ' pass word \r\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(stored(d.external, 'auth.password')).toBe(' pass word ');
  });
});
