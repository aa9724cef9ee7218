// agctl login and auth token against a tenant that takes key-form client
// assertions only, built as the service's own clients build them
// (service-notes.md §1), and answers without token_type.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { tenant } from './helpers.js';

describe('login and auth token against the fake tenant', async () => {
  const t = await tenant();

  it('login with the key secret from the environment, then auth token and a command on the saved profile', async () => {
    const cli = cliFor(tempDir());
    const before = t.tokens.log.length;
    const login = await cli(['login', '--base-url', t.baseUrl, '--client-id', t.clientId], {
      env: { AGCTL_CLIENT_SECRET: t.clientSecret },
    });
    expect(login.code, login.stderr).toBe(0);
    const accepted = t.tokens.log.slice(before).filter((r) => r.ok);
    expect(accepted.length, JSON.stringify(t.tokens.log.slice(before))).toBeGreaterThan(0);
    // What the tenant accepted: a nonce in the protected header, aud = host name without port.
    expect(accepted[0]!.header).toMatchObject({ alg: 'EdDSA', nonce: expect.any(String) });
    expect(accepted[0]!.claims).toMatchObject({ iss: t.clientId, sub: t.clientId, aud: '127.0.0.1' });
    expect(accepted[0]!.form).not.toHaveProperty('client_secret');

    const token = await cli(['auth', 'token']);
    expect(token.code, token.stderr).toBe(0);
    expect(t.tokens.userOf(token.stdout.trim())).toBe(t.userId);

    const rules = await cli(['rules', 'list', t.seed.rulesApp, '-o', 'json']);
    expect(rules.code, rules.stderr).toBe(0);
    expect(rules.json().map((r: { id: string }) => r.id)).toEqual(t.seed.ruleIds);
    // The secret never reaches the output.
    for (const r of [login, token, rules]) expect(r.stdout + r.stderr).not.toContain(t.clientSecret.split(':')[3]);
  });

  it('login with the key secret on stdin', async () => {
    const cli = cliFor(tempDir());
    const login = await cli(['login', '--base-url', t.baseUrl, '--client-id', t.clientId, '--client-secret-stdin'], {
      input: `${t.clientSecret}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const token = await cli(['auth', 'token']);
    expect(token.code, token.stderr).toBe(0);
    expect(t.tokens.userOf(token.stdout.trim())).toBe(t.userId);
  });

  it('a key secret with spaces and CRLF around it (a file, the environment) works; one broken by a space is refused (exit 2) before anything is sent', async () => {
    const dir = tempDir();
    const file = `${dir}/key.txt`;
    writeFileSync(file, `  ${t.clientSecret} \r\n`, { mode: 0o600 });
    const cli = cliFor(dir);
    const fromFile = await cli(['login', '--base-url', t.baseUrl, '--client-id', t.clientId, '--client-secret-file', file]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const env = { AGCTL_BASE_URL: t.baseUrl, AGCTL_CLIENT_ID: t.clientId, AGCTL_CLIENT_SECRET: `${t.clientSecret} \r\n` };
    const rules = await cliFor(tempDir(), env)(['rules', 'list', t.seed.rulesApp, '-o', 'json']);
    expect(rules.code, rules.stderr).toBe(0);

    const before = t.tokens.log.length;
    const broken = `${t.clientSecret.slice(0, 30)} ${t.clientSecret.slice(30)}`;
    const refused = await cliFor(tempDir(), { ...env, AGCTL_CLIENT_SECRET: broken })(['rules', 'list', t.seed.rulesApp]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/^agctl: the client secret from AGCTL_CLIENT_SECRET has whitespace or a control character inside it/m);
    expect(refused.stderr).not.toContain(t.clientSecret.split(':')[3]!.slice(0, 12));
    expect(t.tokens.log.length).toBe(before);
  });

  it('a token the tenant no longer accepts is replaced through a new assertion with a fresh nonce', async () => {
    const cli = cliFor(tempDir());
    const before = t.tokens.log.length;
    const login = await cli(['login', '--base-url', t.baseUrl, '--client-id', t.clientId], {
      env: { AGCTL_CLIENT_SECRET: t.clientSecret },
    });
    expect(login.code, login.stderr).toBe(0);
    t.tokens.revokeAll();
    const rules = await cli(['rules', 'list', t.seed.rulesApp, '-o', 'json']);
    expect(rules.code, rules.stderr).toBe(0);
    expect(rules.json()).toHaveLength(t.seed.ruleIds.length);
    const nonces = t.tokens.log
      .slice(before)
      .filter((r) => r.ok)
      .map((r) => r.header?.nonce);
    expect(nonces).toHaveLength(2);
    expect(new Set(nonces).size).toBe(2);
  });

  it('a key the tenant does not know for this client: exit 3 and nothing saved', async () => {
    const cli = cliFor(tempDir());
    const login = await cli(['login', '--base-url', t.baseUrl, '--client-id', t.clientId], {
      env: { AGCTL_CLIENT_SECRET: t.otherClient.clientSecret },
    });
    expect(login.code, login.stderr).toBe(3);
    expect(login.stderr).toMatch(/invalid_client|authentication failed/);
    const token = await cli(['auth', 'token']);
    expect(token.code).not.toBe(0);
    expect(token.stdout).toBe('');
  });

  it('auth status proves the stored key secret: a new assertion, then introspect names the user', async () => {
    const cli = cliFor(tempDir());
    expect(
      (
        await cli(['login', '--base-url', t.baseUrl, '--client-id', t.clientId, '--profile', 'tenant'], {
          env: { AGCTL_CLIENT_SECRET: t.clientSecret },
        })
      ).code,
    ).toBe(0);
    const before = t.tokens.log.length;
    const status = await cli(['auth', 'status', '-o', 'json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json()).toMatchObject({
      profile: 'tenant',
      loggedIn: true,
      credentials: 'key client secret stored (sealed)',
      token: { state: 'valid' },
      server: { state: 'accepted', userId: t.userId },
    });
    expect(t.tokens.log.slice(before).map((r) => r.ok)).toEqual([true]);
    // --offline sends nothing.
    const offline = await cli(['auth', 'status', '--offline']);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toMatch(/^Server:\s+not checked$/m);
    expect(t.tokens.log.length).toBe(before + 1);
  });

  it('auth status says when the stored secret no longer works (exit 3), with the profile still shown', async () => {
    const c = t.otherClient;
    const cli = cliFor(tempDir());
    const login = await cli(['login', '--base-url', t.baseUrl, '--client-id', c.clientId, '--profile', 'old', '--client-secret-stdin'], {
      input: c.clientSecret,
    });
    expect(login.code, login.stderr).toBe(0);
    t.tokens.revokeClient(c.clientId); // the client is deleted on the tenant
    const [table, json] = await Promise.all([cli(['auth', 'status']), cli(['auth', 'status', '-o', 'json'])]);
    expect(table.code).toBe(3);
    expect(table.stdout).toMatch(
      /^Server:\s+the stored client secret no longer works: authentication failed: unknown client \(invalid_client\)$/m,
    );
    expect(table.stdout).toMatch(/^Profile:\s+old \(from config\)$/m);
    expect(table.stdout).toMatch(new RegExp(`^Base URL:\\s+${t.baseUrl}$`, 'm'));
    expect(table.stdout).toMatch(new RegExp(`^Client ID:\\s+${c.clientId}$`, 'm'));
    expect(table.stderr).toBe('hint: log in again with a valid secret: agctl login --profile old\n');
    expect(json.code).toBe(3);
    // The token cached at login is not shown as valid, nor the profile as logged in.
    expect(json.json()).toMatchObject({
      profile: 'old',
      loggedIn: false,
      token: { state: 'refused', expiresAt: expect.any(String) },
      server: { state: 'refused', exitCode: 3 },
    });
    expect(table.stdout).toMatch(/^Token:\s+cached, not accepted by the server \(it would expire at \S+\)$/m);
    expect(table.stdout).not.toMatch(/valid until/);
    for (const r of [table, json]) expect(r.stdout + r.stderr).not.toContain(c.clientSecret.split(':')[3]);
  });

  it('login --no-input takes the client ID and base URL from the profile; auth list shows it', async () => {
    const cli = cliFor(tempDir());
    expect(
      (await cli(['login', '--base-url', t.baseUrl, '--client-id', t.clientId], { env: { AGCTL_CLIENT_SECRET: t.clientSecret } })).code,
    ).toBe(0);
    const again = await cli(['login', '--no-input', '--client-secret-stdin'], { input: t.clientSecret });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Logged in to ${t.baseUrl} as ${t.clientId} (profile "default")`);
    const list = await cli(['auth', 'list', '-o', 'json']);
    expect(list.json()).toEqual([
      {
        name: 'default',
        current: true,
        baseUrl: t.baseUrl,
        clientId: t.clientId,
        secretStored: true,
        secretKeptIn: 'file',
        token: expect.objectContaining({ state: 'valid' }),
      },
    ]);
  });
});
