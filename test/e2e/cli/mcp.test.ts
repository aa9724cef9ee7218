// agctl mcp set-credentials / mcp get end to end: the real binary against the
// in-process embedded server. Every secret used here is unique, and the last
// test checks that none of them appears in any output the CLI produced.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliFor, tempDir, type CliResult } from '../../helpers/cli.js';
import { privatePem, rsaKey } from '../../helpers/keys.js';
import { startTestServer } from '../../helpers/server.js';

const secret = (name: string) => `SECRET-${name}-${randomBytes(6).toString('hex')}`;
const RSA_PEM = privatePem(rsaKey());
const PEM_LINE = RSA_PEM.split('\n')[5]!;

describe('agctl mcp set-credentials', async () => {
  const s = await startTestServer();
  // A second server that keeps its demo data as seeded.
  const pristine = await startTestServer();
  const d = s.demo.mcp;
  const dir = tempDir();
  const env = { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_ID: s.plainClient.clientId, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret };
  const base = cliFor(dir, env);
  const outputs: CliResult[] = [];
  const secrets: string[] = [PEM_LINE];
  const cli = async (args: string[], opts: Parameters<typeof base>[1] = {}) => {
    const r = await base(args, opts);
    outputs.push(r);
    return r;
  };
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };
  const row = (id: string) =>
    s.server.store.db.prepare('SELECT * FROM mcp_servers WHERE app_id = ? AND connector_id = ?').get(d.appId, id) as Record<string, any>;
  const opened = (id: string, name: string) =>
    s.server.store.open(JSON.parse(row(id).secrets_json)[name], 'mcp_servers', d.appId, id, name);
  const set = (id: string, ...args: string[]) => ['mcp', 'set-credentials', d.appId, id, ...args];

  it('sets a bearer token from stdin and prints a summary', async () => {
    const token = secret('bearer');
    secrets.push(token);
    const r = await cli(
      set(
        d.external,
        '--url',
        'https://wiki2.example.com/mcp',
        '--transport',
        'sse',
        '--bearer-token-stdin',
        '--require-tool-approval',
        'false',
      ),
      { input: `${token}\n` },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Updated the credentials of MCP server ${d.external} in app ${d.appId}`);
    expect(r.stdout).toMatch(/^Kind:\s+external$/m);
    expect(r.stdout).toMatch(/^URL:\s+https:\/\/wiki2\.example\.com\/mcp$/m);
    expect(r.stdout).toMatch(/^URL locked:\s+no$/m);
    expect(r.stdout).toMatch(/^Transport:\s+SSE$/m);
    expect(r.stdout).toMatch(/^Auth method:\s+BEARER_TOKEN$/m);
    expect(r.stdout).toMatch(/^Tool approval:\s+not required$/m);
    expect(r.stdout).toMatch(/^Secrets:\s+bearer token: configured$/m);
    expect(r.stdout).toMatch(/^Setup URL:\s+-$/m);
    expect(opened(d.external, 'auth.token')).toBe(token);
  });

  it('sets a custom header from a file, with -o json printing the full view', async () => {
    const value = secret('header');
    secrets.push(value);
    const r = await cli(
      set(
        d.external,
        '--url',
        'https://wiki2.example.com/mcp',
        '--header-name',
        'X-Api-Key',
        '--header-value-file',
        file('header.txt', `${value}\n`),
        '-o',
        'json',
      ),
    );
    expect(r.code, r.stderr).toBe(0);
    const v = r.json();
    expect(v).toMatchObject({
      connectorId: d.external,
      authMethod: 'MCP_SERVER_AUTH_METHOD_CUSTOM_HEADER',
      customHeaderName: 'X-Api-Key',
      customHeaderValueConfigured: true,
      bearerTokenConfigured: false,
    });
    expect(v).toHaveProperty('updatedAt');
    expect(opened(d.external, 'auth.headerValue')).toBe(value);
  });

  it('sets basic auth with the password from its env var', async () => {
    const pw = secret('password');
    secrets.push(pw);
    const r = await cli(set(d.external, '--url', 'https://wiki2.example.com/mcp', '--username', 'svc-wiki', '--token-sharing', 'shared'), {
      env: { AGCTL_MCP_PASSWORD: pw },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Username:\s+svc-wiki$/m);
    expect(r.stdout).toMatch(/^Secrets:\s+password: configured$/m);
    expect(opened(d.external, 'auth.password')).toBe(pw);
  });

  it('sets OAuth2 client credentials, JWT bearer and authorization code (DCR, per user)', async () => {
    const cs = secret('client-secret');
    secrets.push(cs);
    const base = ['--url', 'https://crm-mcp.example.com/mcp', '--oauth2-token-url', 'https://idp.example.com/token'];
    const ccArgs = [
      ...base,
      '--oauth2-mode',
      'client-credentials',
      '--oauth2-client-id',
      'crm-cli',
      '--oauth2-client-secret-stdin',
      '--scopes',
      'crm.read,crm.write',
      '--oauth2-token-param',
      'audience=crm',
    ];
    // The server is PER_USER (its legacy PASSTHROUGH mode): client credentials cannot keep that, so nothing is sent until the change is named.
    const updatedAt = row(d.legacyPassthrough).updated_at;
    const refused = await cli(set(d.legacyPassthrough, ...ccArgs), { input: cs });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      `agctl: MCP server ${d.legacyPassthrough} has PER_USER token sharing, which oauth2 mode CLIENT_CREDENTIALS does not support`,
    );
    expect(refused.stderr).toContain('hint: pass --token-sharing shared to change it with this write');
    expect(row(d.legacyPassthrough).updated_at).toBe(updatedAt);
    const cc = await cli(set(d.legacyPassthrough, ...ccArgs, '--token-sharing', 'shared'), { input: cs });
    expect(cc.code, cc.stderr).toBe(0);
    expect(cc.stderr).toContain('changed: Token sharing: PER_USER → SHARED');
    expect(cc.stdout).toMatch(/^OAuth2 mode:\s+CLIENT_CREDENTIALS$/m);
    expect(cc.stderr).not.toContain('used only in');
    expect(cc.stdout).toMatch(/^Secrets:\s+client ID and secret: configured$/m);
    expect(opened(d.legacyPassthrough, 'auth.clientSecret')).toBe(cs);

    const jwt = await cli(
      set(
        d.legacyPassthrough,
        ...base,
        '--oauth2-mode',
        'jwt-bearer',
        '--jwt-private-key-file',
        file('key.pem', RSA_PEM),
        '--jwt-issuer',
        'robot@example.com',
        '--oauth2-token-param',
        'audience=crm',
        '-o',
        'json',
      ),
    );
    expect(jwt.code, jwt.stderr).toBe(0);
    // Token parameters are sent in client-credentials mode only (§2.2): said, then sent anyway.
    expect(jwt.stderr).toContain('--oauth2-token-param: used only in CLIENT_CREDENTIALS mode; the service ignores it in JWT_BEARER mode');
    expect(jwt.json()).toMatchObject({
      oauth2Mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER',
      oauth2JwtPrivateKeyConfigured: true,
      oauth2JwtIssuer: 'robot@example.com',
      oauth2CredentialsConfigured: false,
    });
    expect(opened(d.legacyPassthrough, 'auth.jwtPrivateKey')).toBe(RSA_PEM.replace(/\n$/, ''));

    const ac = await cli(
      set(
        d.legacyPassthrough,
        ...base,
        '--oauth2-mode',
        'authorization-code',
        '--oauth2-client-id-mode',
        'dcr',
        '--oauth2-pkce',
        's256',
        '--token-sharing',
        'per-user',
        '-o',
        'json',
      ),
    );
    expect(ac.code, ac.stderr).toBe(0);
    expect(ac.json()).toMatchObject({
      oauth2Mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE',
      oauth2ClientIdMode: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_DCR',
      oauth2Pkce: 's256',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
    });
  });

  it('sets AWS SigV4 and a Google service account on a hosted server, with a secret config field from a file', async () => {
    const aws = secret('aws-key');
    const session = secret('aws-session');
    const apiKey = secret('config-api-key');
    secrets.push(aws, session, apiKey);
    const r = await cli(
      set(
        d.hosted,
        '--catalog-id',
        d.catalogIds.datadog,
        '--config',
        'site=datadoghq.eu',
        '--config-file',
        `apiKey=${file('dd.key', apiKey)}`,
        '--aws-access-key-id',
        'AKIAEXAMPLE',
        '--aws-secret-access-key-stdin',
      ),
      { input: aws, env: { AGCTL_MCP_AWS_SESSION_TOKEN: session } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Kind:\s+hosted$/m);
    expect(r.stdout).toMatch(/^Config fields:\s+site=datadoghq\.eu$/m);
    expect(r.stdout).toMatch(/^Tool prefix:\s+datadog \(default\)$/m);
    // The view never reports a secret config field: the summary says what the write set.
    expect(r.stdout).toMatch(
      /^Secrets:\s+AWS secret access key: configured, AWS session token: configured, config field apiKey: set by this write$/m,
    );
    const got = await cli(['mcp', 'get', d.appId, d.hosted]);
    expect(got.stdout).toMatch(
      /^Secrets:\s+AWS secret access key: configured, AWS session token: configured, config field apiKey: not reported by the service$/m,
    );
    expect(opened(d.hosted, 'auth.secretAccessKey')).toBe(aws);
    expect(opened(d.hosted, 'auth.sessionToken')).toBe(session);
    expect(opened(d.hosted, 'configFields.apiKey')).toBe(apiKey);

    const perUser = await cli(
      set(
        d.hosted,
        '--catalog-id',
        d.catalogIds.datadog,
        '--aws-access-key-id',
        'AKIA',
        '--aws-secret-access-key-stdin',
        '--token-sharing',
        'per-user',
      ),
      { input: aws },
    );
    expect(perUser.code).toBe(2);
    expect(perUser.stderr).toContain('agctl: hostedConfig.tokenSharing: PER_USER is supported only with');

    const clientId = secret('google-client');
    secrets.push(clientId);
    const creds = JSON.stringify({
      type: 'service_account',
      client_id: clientId,
      private_key: RSA_PEM,
      client_email: 'robot@p.iam.gserviceaccount.com',
      token_uri: 'https://oauth2.googleapis.com/token',
    });
    const g = await cli(
      set(
        d.hosted,
        '--catalog-id',
        d.catalogIds.googleDrive,
        '--google-credentials-file',
        file('sa.json', creds),
        '--scopes',
        'https://www.googleapis.com/auth/drive.readonly',
      ),
    );
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toMatch(/^OAuth2 mode:\s+GOOGLE_SERVICE_ACCOUNT$/m);
    expect(g.stdout).toMatch(/^Service account:\s+robot@p\.iam\.gserviceaccount\.com$/m);
    expect(g.stdout).toMatch(/^Secrets:\s+service account key: configured$/m);
  });

  it('sets no authentication with --auth none, keeping what it does not name', async () => {
    const r = await cli(set(d.unknownEnums, '--url', 'https://future.example.com/mcp', '--auth', 'none', '-o', 'json'));
    expect(r.code, r.stderr).toBe(0);
    // The mask is url,none: the stored transport (a value this version does not know) stays.
    expect(r.json()).toMatchObject({ authMethod: 'MCP_SERVER_AUTH_METHOD_NONE', transportType: 'MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET' });
  });

  it("reads a hosted server's catalog ID when none is given, and sends it outside the mask", async () => {
    const before = row(d.hosted);
    const dry = await cli(set(d.hosted, '--hosted', '--auth', 'none', '--dry-run', '-o', 'json'));
    expect(dry.code, dry.stderr).toBe(0);
    // The stored SHARED token sharing is sent with the new method (in the mask), so that no reset can drop it.
    expect(dry.json()).toEqual({
      hostedConfig: { mcpServerCatalogId: before.catalog_id, none: {}, tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED' },
      updateMask: 'none,tokenSharing',
    });
    const token = secret('hosted-bearer');
    secrets.push(token);
    const r = await cli(['--debug', ...set(d.hosted, '--hosted', '--bearer-token-stdin')], { input: token });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`[debug] > GET ${s.baseUrl}/api/v1/apps/${d.appId}/mcp_servers/${d.hosted}`);
    expect(r.stderr).toContain(
      `"hostedConfig":{"mcpServerCatalogId":"${before.catalog_id}","bearerToken":{"token":"<redacted>"},"tokenSharing":"MCP_SERVER_TOKEN_SHARING_SHARED"},"updateMask":"bearerToken,tokenSharing"`,
    );
    expect(r.stderr).not.toMatch(/does not show/);
    expect(opened(d.hosted, 'auth.token')).toBe(token);
    expect(row(d.hosted).config_fields_json).toBe(before.config_fields_json);
    // A server without a catalog ID: said before anything is sent.
    const ext = await cli(set(d.external, '--hosted', '--auth', 'none'));
    expect(ext.code).toBe(2);
    expect(ext.stderr).toMatch(
      /^agctl: MCP server wiki-mcp in app ai-tools has no catalog ID \(it is an external server\), and a hosted request must carry one\nhint: pass --catalog-id/m,
    );
  });

  it('sends a mask path given under the config name relative to it, with a one-line note', async () => {
    const token = secret('prefixed-mask');
    secrets.push(token);
    const r = await cli(set(d.external, '--update-mask', 'externalConfig.bearerToken.token', '--bearer-token-stdin'), { input: token });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => /update mask/.test(l))).toEqual([
      'note: update mask paths are relative to the config; sending bearerToken.token instead of externalConfig.bearerToken.token',
    ]);
    expect(opened(d.external, 'auth.token')).toBe(token);
  });

  it('changes only the masked fields with --update-mask', async () => {
    const before = row(d.locked);
    const pw = secret('locked-password');
    secrets.push(pw);
    const r = await cli(set(d.locked, '--external', '--update-mask', 'basicAuth.password', '--password-stdin'), { input: pw });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^URL:\s+https:\/\/tickets\.internal\.example\.com\/mcp\/sse$/m);
    expect(r.stdout).toMatch(/^Username:\s+svc-tickets$/m);
    expect(r.stdout).toMatch(/^URL locked:\s+yes/m);
    const after = row(d.locked);
    expect(after.auth_json).toBe(before.auth_json);
    expect(after.transport_type).toBe(before.transport_type);
    expect(opened(d.locked, 'auth.password')).toBe(pw);
    // A settings-only mask needs no secret and leaves the sealed ones alone.
    const t = await cli(set(d.locked, '--update-mask', 'transportType', '--transport', 'streamable-http'));
    expect(t.code, t.stderr).toBe(0);
    expect(row(d.locked).secrets_json).toBe(after.secrets_json);
    expect(row(d.locked).transport_type).toBe('MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP');
  });

  it('refuses flags outside a given --update-mask (they would be sent and not applied), and sends nothing', async () => {
    const before = row(d.external);
    const token = secret('outside-mask');
    secrets.push(token);
    const r = await cli(
      set(d.external, '--url', 'https://moved.example.com/mcp', '--auth', 'bearer', '--bearer-token-stdin', '--update-mask', 'url'),
      { input: token },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('agctl: bearerToken is set but not in the update mask (url)');
    expect(row(d.external)).toEqual(before);
  });

  it('refuses to change a locked URL (exit 7, FailedPrecondition)', async () => {
    const before = row(d.locked);
    const pw = secret('unused-password');
    secrets.push(pw);
    const r = await cli(set(d.locked, '--url', 'https://elsewhere.example.com/mcp', '--username', 'svc', '--password-stdin'), {
      input: pw,
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^agctl: externalConfig\.url: the endpoint URL of tickets-mcp is locked .*\(HTTP 400, FailedPrecondition\)$/m);
    const j = await cli(set(d.locked, '--url', 'https://elsewhere.example.com/mcp', '--auth', 'none', '-o', 'json'));
    expect(j.code).toBe(7);
    expect(JSON.parse(j.stderr).error).toMatchObject({ status: 400, code: 'failed_precondition', exitCode: 7 });
    expect(row(d.locked)).toEqual(before);
  });

  it('reports the legacy OAuth2 modes as SHARED and PER_USER', async () => {
    const cs = secret('legacy-secret');
    secrets.push(cs);
    const r = await cli(set(d.legacyService, '--external', '--update-mask', 'oauth2.clientSecret', '--oauth2-client-secret-stdin'), {
      input: cs,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^OAuth2 mode:\s+SERVICE$/m);
    expect(r.stdout).toMatch(/^Token sharing:\s+SHARED$/m);
    expect(r.stdout).toMatch(/^Authorized as:\s+Ada Admin <ada@example\.com> by user-ada/m);
    expect(opened(d.legacyService, 'auth.clientSecret')).toBe(cs);
    expect(row(d.legacyService).token_sharing).toBe('MCP_SERVER_TOKEN_SHARING_UNSPECIFIED');
    const g = await cliFor(dir, { ...env, AGCTL_BASE_URL: pristine.baseUrl, AGCTL_CLIENT_SECRET: pristine.plainClient.clientSecret })([
      'mcp',
      'get',
      d.appId,
      d.legacyPassthrough,
    ]);
    outputs.push(g);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toMatch(/^OAuth2 mode:\s+PASSTHROUGH$/m);
    expect(g.stdout).toMatch(/^Token sharing:\s+PER_USER$/m);
  });

  it('shows enum values it does not know as they are', async () => {
    const r = await cliFor(dir, { ...env, AGCTL_BASE_URL: pristine.baseUrl, AGCTL_CLIENT_SECRET: pristine.plainClient.clientSecret })([
      'mcp',
      'get',
      d.appId,
      d.unknownEnums,
    ]);
    outputs.push(r);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Transport:\s+MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET$/m);
    expect(r.stdout).toMatch(/^Auth method:\s+MCP_SERVER_AUTH_METHOD_MUTUAL_TLS$/m);
    expect(r.stdout).toMatch(/^Token sharing:\s+MCP_SERVER_TOKEN_SHARING_PER_TEAM$/m);
  });

  it('sends a JSON file or stdin with --from-file', async () => {
    const token = secret('from-file');
    secrets.push(token);
    const body = {
      externalConfig: { url: 'https://wiki3.example.com/mcp', tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED', bearerToken: { token } },
    };
    const r = await cli(set(d.external, '--from-file', file('req.json', JSON.stringify(body))));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^URL:\s+https:\/\/wiki3\.example\.com\/mcp$/m);
    expect(opened(d.external, 'auth.token')).toBe(token);
    const token2 = secret('from-stdin');
    secrets.push(token2);
    const r2 = await cli(set(d.external, '--from-file', '-', '-o', 'json'), {
      input: JSON.stringify({ externalConfig: { bearerToken: { token: token2 } }, updateMask: 'bearerToken' }),
    });
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.json().endpointUrl).toBe('https://wiki3.example.com/mcp');
    expect(opened(d.external, 'auth.token')).toBe(token2);

    const broken = secret('broken-json');
    secrets.push(broken);
    const bad = await cli(set(d.external, '--from-file', '-'), { input: `{"externalConfig": {"bearerToken": {"token": "${broken}"` });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('agctl: --from-file: stdin is not valid JSON');
    const mixed = await cli(set(d.external, '--from-file', 'x.json', '--url', 'https://a.example.com'));
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('cannot be combined with --url');
  });

  it('--from-file: skips a byte order mark; without a mask changes only the fields the file sets', async () => {
    const before = row(d.external);
    const noAuth = { externalConfig: { url: 'https://wiki4.example.com/mcp', transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE' } };
    const r = await cli(set(d.external, '--from-file', file('bom.json', '\uFEFF' + JSON.stringify(noAuth))));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^URL:\s+https:\/\/wiki4\.example\.com\/mcp$/m);
    // The derived mask is url,transportType: the stored authentication and its secrets stay.
    expect(row(d.external)).toMatchObject({
      auth_kind: before.auth_kind,
      secrets_json: before.secrets_json,
      transport_type: 'MCP_SERVER_TRANSPORT_TYPE_SSE',
    });
    const prefixed = await cli(
      set(
        d.external,
        '--from-file',
        file(
          'prefixed.json',
          JSON.stringify({
            externalConfig: { transportType: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP' },
            updateMask: 'externalConfig.transportType',
          }),
        ),
      ),
    );
    expect(prefixed.code, prefixed.stderr).toBe(0);
    expect(prefixed.stderr).toContain(
      'note: update mask paths are relative to the config; sending transportType instead of externalConfig.transportType',
    );
    expect(row(d.external).transport_type).toBe('MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP');
    const empty = await cli(set(d.external, '--from-file', file('empty.json', JSON.stringify({ externalConfig: {} }))));
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('agctl: --from-file: externalConfig sets no field, so there is nothing to change');
  });

  it('prints the request with secrets redacted on --dry-run and sends nothing', async () => {
    const before = row(d.hosted);
    const site = JSON.parse(before.config_fields_json).site;
    const aws = secret('dry-aws');
    const cfg = secret('dry-config');
    secrets.push(aws, cfg);
    // A dry run reads the server (its view and the catalog entry) and writes nothing.
    const dryRun = [
      '--catalog-id',
      d.catalogIds.datadog,
      '--config',
      `apiKey=${cfg}`,
      '--aws-access-key-id',
      'AKIADRY',
      '--aws-secret-access-key-stdin',
      '--dry-run',
    ];
    const r = await cli(set(d.hosted, ...dryRun, '-o', 'json'), { input: aws });
    expect(r.code, r.stderr).toBe(0);
    // Without -o json: the changes in words, the same lines -i shows before its question.
    const human = await cli(set(d.hosted, ...dryRun), { input: aws });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^Changes to MCP server ${d.hosted}:\n`));
    for (const line of [
      '  Token sharing: SHARED (kept: sent with the new authentication, which the service could otherwise reset)',
      '  Config field apiKey: a new secret value',
      '  Authentication: BEARER_TOKEN → AWS_SIGV4',
      '    accessKeyId: AKIADRY',
      '    secretAccessKey: a new secret value',
      'Update mask: mcpServerCatalogId,configFields,awsSigv4,tokenSharing',
    ])
      expect(human.stdout.split('\n')).toContain(line);
    expect(human.stderr).toContain('nothing was sent; -o json prints the request, secrets redacted');
    expect(r.stderr).toContain(`Dry run: would send POST /api/v1/apps/${d.appId}/mcp_servers/${d.hosted}/credentials`);
    // apiKey is secret in the catalog schema: a warning names the flags that keep it off the command line (never the value).
    expect(r.stderr).toMatch(
      /--config apiKey=\.\.\.: apiKey is a secret field of the catalog entry, and a value on the command line stays in shell history .* --config-file apiKey=PATH/,
    );
    // The merged request: the stored non-secret site is re-sent (shown), the secret fields redacted.
    expect(r.json()).toEqual({
      hostedConfig: {
        mcpServerCatalogId: d.catalogIds.datadog,
        configFields: { apiKey: '<redacted>', site },
        awsSigv4: { accessKeyId: 'AKIADRY', secretAccessKey: '<redacted>' },
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
      },
      updateMask: 'mcpServerCatalogId,configFields,awsSigv4,tokenSharing',
    });
    const f = await cli(
      set(
        d.external,
        '--from-file',
        file(
          'dry.json',
          JSON.stringify({
            externalConfig: {
              url: 'https://a.example.com/mcp',
              oauth2: { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', tokenUrl: 'https://idp.example.com/t', jwtPrivateKey: RSA_PEM },
            },
          }),
        ),
        '--dry-run',
        '-o',
        'json',
      ),
    );
    expect(f.code, f.stderr).toBe(0);
    expect(f.json().externalConfig.oauth2.jwtPrivateKey).toBe('<redacted>');
    expect(row(d.hosted)).toEqual(before);
  });

  it('validates on the client with the server rules and message (exit 2, nothing sent)', async () => {
    const before = row(d.external);
    const body = { externalConfig: { url: 'http://wiki.example.com/mcp', none: {} } };
    const r = await cli(set(d.external, '--url', 'http://wiki.example.com/mcp', '--auth', 'none'));
    expect(r.code).toBe(2);
    const server = await s.api(`/api/v1/apps/${d.appId}/mcp_servers/${d.external}/credentials`, { method: 'POST', json: body });
    expect(server.status).toBe(400);
    expect(r.stderr).toContain(`agctl: ${server.body.message}\n`);
    expect(r.stderr).toContain('hint: set it with --url');

    const cases: [string[], RegExp][] = [
      [
        set(
          d.external,
          '--url',
          'https://a.example.com/mcp',
          '--oauth2-mode',
          'client-credentials',
          '--oauth2-client-id',
          'c',
          '--oauth2-client-secret-file',
          file('cs.txt', 'x'),
        ),
        /^agctl: externalConfig\.oauth2\.tokenUrl: required for mode CLIENT_CREDENTIALS.*\nhint: set it with --oauth2-token-url/m,
      ],
      [
        set(
          d.external,
          '--url',
          'https://a.example.com/mcp',
          '--oauth2-mode',
          'service',
          '--oauth2-token-url',
          'https://idp.example.com/t',
          '--oauth2-issuer-url',
          'https://idp.example.com/realm',
        ),
        /^agctl: externalConfig\.oauth2\.issuerUrl: must be an issuer URL without a path/m,
      ],
      [
        set(
          d.external,
          '--url',
          'https://a.example.com/mcp',
          '--oauth2-mode',
          'authorization-code',
          '--oauth2-token-url',
          'https://idp.example.com/t',
          '--oauth2-pkce',
          'plain',
        ),
        /^agctl: externalConfig\.oauth2\.pkce: must be discover/m,
      ],
      [
        set(d.hosted, '--catalog-id', 'not-a-ksuid', '--auth', 'none'),
        /^agctl: hostedConfig\.mcpServerCatalogId: must be a 27-character KSUID/m,
      ],
      [
        set(
          d.external,
          '--url',
          'https://a.example.com/mcp',
          '--token-sharing',
          'shared',
          '--username',
          '',
          '--password-file',
          file('pw.txt', 'x'),
        ),
        /^agctl: externalConfig\.basicAuth\.username: must not be empty for SHARED/m,
      ],
      [
        set(
          d.external,
          '--url',
          'https://a.example.com/mcp',
          '--oauth2-mode',
          'jwt-bearer',
          '--oauth2-token-url',
          'https://idp.example.com/t',
          '--jwt-private-key-file',
          file('not-a-key.pem', 'hello'),
        ),
        /^agctl: externalConfig\.oauth2\.jwtPrivateKey: must be a PEM-encoded RSA private key/m,
      ],
      [
        set(d.external, '--external', '--update-mask', 'endpoint', '--auth', 'none'),
        /^agctl: updateMask: endpoint: unknown path for externalConfig/m,
      ],
      [
        set(d.external, '--url', 'https://a.example.com/mcp', '--transport', 'websocket', '--auth', 'none'),
        /^agctl: --transport: unknown value "websocket"/m,
      ],
      [set(d.external, '--url', 'https://a.example.com/mcp', '--bearer-token', 'plain-value'), /unknown option '--bearer-token'/],
      [
        set(d.external, '--url', 'https://a.example.com/mcp', '--username', 'u', '--bearer-token-file', file('t.txt', 'x')),
        /^agctl: flags for more than one authentication method/m,
      ],
      [
        set(d.external, '--url', 'https://a.example.com/mcp', '--auth', 'bearer'),
        /^agctl: missing bearer token: provide it with --bearer-token-stdin, --bearer-token-file, AGCTL_MCP_BEARER_TOKEN/m,
      ],
      [set(d.external, '--external'), /^agctl: nothing to change: name what to set/m],
      [
        set(d.external, '--update-mask', 'externalConfig.url,hostedConfig.configFields', '--url', 'https://a.example.com/mcp'),
        /^agctl: updateMask: configFields: unknown path for externalConfig/m,
      ],
      [
        set(d.external, '--external', '--aws-access-key-id', 'AKIA'),
        /^agctl: --aws-access-key-id applies to hosted servers only, not with --external/m,
      ],
      [
        set(d.external, '--url', 'https://a.example.com/mcp', '--bearer-token-stdin', '--config-stdin', 'apiKey'),
        /^agctl: only one input can come from stdin/m,
      ],
      [set(d.external, '--url', 'https://a.example.com/mcp', '--interactive'), /^agctl: --interactive needs a terminal/m],
      [
        set(d.hosted, '--hosted', '--config-stdin', 'apiKey', '--config-stdin', 'site'),
        /--config-stdin may be given once: standard input holds one value/,
      ],
    ];
    for (const [args, message] of cases) {
      const c = await cli(args, { input: 'x' });
      expect(c.code, `${args.join(' ')}\n${c.stderr}`).toBe(2);
      expect(c.stderr).toMatch(message);
    }
    expect(row(d.external)).toEqual(before);
  });

  it('sends a full-form enum value it does not know, with a warning, and leaves the decision to the service', async () => {
    // service-api.md §9: enumerations in requests allow unknown values; clients must tolerate them.
    const before = row(d.external);
    const body = { externalConfig: { url: 'https://a.example.com/mcp', transportType: 'MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET', none: {} } };
    const fromFile = await cli(set(d.external, '--from-file', file('future.json', JSON.stringify(body))));
    const byFlag = await cli(
      set(d.external, '--url', 'https://a.example.com/mcp', '--transport', 'MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET', '--auth', 'none'),
    );
    for (const r of [fromFile, byFlag]) {
      expect(r.stderr).toMatch(
        /externalConfig\.transportType: MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET is not a value this version of agctl knows; sending it as is/,
      );
      // The embedded server knows only the listed values: its 400 shows the request was sent.
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toMatch(
        /^agctl: externalConfig\.transportType: unknown value "MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET".*\(HTTP 400, InvalidArgument\)$/m,
      );
    }
    // A value of another enum, or not in full form, is still a usage error before anything is sent.
    const other = await cli(
      set(
        d.external,
        '--from-file',
        file('other.json', JSON.stringify({ externalConfig: { ...body.externalConfig, transportType: 'WEBSOCKET' } })),
      ),
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^agctl: externalConfig\.transportType: unknown value "WEBSOCKET"/m);
    expect(row(d.external)).toEqual(before);
  });

  it('answers 404 for an unknown server and rejects server-side rules with exit 7', async () => {
    const nf = await cli(set('no-such-server', '--url', 'https://a.example.com/mcp', '--auth', 'none'));
    expect(nf.code).toBe(5);
    // The server's view says it is external: a hosted request stops before it is sent.
    const wrongKind = await cli(set(d.external, '--catalog-id', d.catalogIds.datadog, '--auth', 'none'));
    expect(wrongKind.code).toBe(2);
    expect(wrongKind.stderr).toContain(
      'agctl: MCP server wiki-mcp in app ai-tools is an external server, but the request sets hostedConfig\nhint: use the flags for external servers',
    );
    // Sent anyway (--from-file skips nothing the server checks): the server's own 400.
    const sent = await cli(
      set(
        d.external,
        '--from-file',
        file('wrong-kind.json', JSON.stringify({ hostedConfig: { mcpServerCatalogId: d.catalogIds.datadog, none: {} } })),
      ),
    );
    expect(sent.code).toBe(2);
    expect(sent.stderr).toContain('hint: send externalConfig instead');
  });

  it('keeps secrets out of --debug logs', async () => {
    const token = secret('debug-token');
    secrets.push(token);
    const r = await cli(['--debug', ...set(d.external, '--external', '--update-mask', 'bearerToken.token', '--bearer-token-stdin')], {
      input: token,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('[debug] > POST');
    expect(r.stderr).toContain('"token":"<redacted>"');
    expect(r.stderr).toMatch(/\[debug\] < 200/);
    expect(opened(d.external, 'auth.token')).toBe(token);
  });

  it('never printed a secret', () => {
    expect(outputs.length).toBeGreaterThan(20);
    for (const r of outputs) {
      for (const x of secrets) {
        expect(r.stdout).not.toContain(x);
        expect(r.stderr).not.toContain(x);
      }
    }
  });
});

describe('agctl mcp set-credentials: hosted config fields are replaced as a whole by the service', async () => {
  const s = await startTestServer();
  const d = s.demo.mcp;
  const dir = tempDir();
  const cli = cliFor(dir, {
    AGCTL_BASE_URL: s.baseUrl,
    AGCTL_CLIENT_ID: s.plainClient.clientId,
    AGCTL_CLIENT_SECRET: s.plainClient.clientSecret,
  });
  const row = () =>
    s.server.store.db.prepare('SELECT * FROM mcp_servers WHERE app_id = ? AND connector_id = ?').get(d.appId, d.hosted) as Record<
      string,
      any
    >;
  const apiKey = () => {
    const sealed = JSON.parse(row().secrets_json)['configFields.apiKey'];
    return sealed === undefined ? undefined : s.server.store.open(sealed, 'mcp_servers', d.appId, d.hosted, 'configFields.apiKey');
  };
  const site = () => JSON.parse(row().config_fields_json).site;
  const set = (...args: string[]) => ['mcp', 'set-credentials', d.appId, d.hosted, '--hosted', ...args];

  it('changing only a non-secret field while a secret field is stored: exit 2 naming it and the ways on, nothing sent', async () => {
    const before = row();
    const key = apiKey();
    expect(key).toBeTruthy();
    for (const args of [
      set('--config', 'site=us5.datadoghq.com'),
      set('--config', 'site=us5.datadoghq.com', '--dry-run'),
      set('--update-mask', 'configFields.site', '--config', 'site=us5.datadoghq.com'),
    ]) {
      const r = await cli(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /^agctl: the service replaces config fields as a whole: this update would clear the secret config field apiKey of datadog-mcp/m,
      );
      expect(r.stderr).toMatch(
        /^hint: give it again with --config-file apiKey=PATH, --config-stdin apiKey or --config-secret apiKey, or pass --replace-config-fields to clear it on purpose$/m,
      );
    }
    // Nothing was written: every update moves updated_at.
    expect(row()).toEqual(before);
    expect(apiKey()).toBe(key);
  });

  it('giving only the secret field keeps the stored non-secret field (re-sent, with a note)', async () => {
    const stored = site();
    const dry = await cli(set('--config-stdin', 'apiKey', '--dry-run', '-o', 'json'), { input: 'dd-key-dry' });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json().hostedConfig.configFields).toEqual({ apiKey: '<redacted>', site: stored });
    expect(dry.stdout + dry.stderr).not.toContain('dd-key-dry');
    const r = await cli(set('--config-stdin', 'apiKey'), { input: 'dd-key-2' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: config fields are replaced as a whole; re-sending the stored site unchanged`);
    expect(site()).toBe(stored);
    expect(apiKey()).toBe('dd-key-2');
  });

  it('changing the non-secret field with the secret given again keeps both', async () => {
    const r = await cli(set('--config', 'site=us3.datadoghq.com', '--config-stdin', 'apiKey'), { input: 'dd-key-3' });
    expect(r.code, r.stderr).toBe(0);
    expect(site()).toBe('us3.datadoghq.com');
    expect(apiKey()).toBe('dd-key-3');
  });

  it('--from-file: the same rule, with a hint for the file', async () => {
    const before = row();
    const path = join(dir, 'site.json');
    writeFileSync(
      path,
      JSON.stringify({ hostedConfig: { mcpServerCatalogId: d.catalogIds.datadog, configFields: { site: 'us5.datadoghq.com' } } }),
    );
    const r = await cli(['mcp', 'set-credentials', d.appId, d.hosted, '--from-file', path]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^hint: put it in hostedConfig.configFields of the request, or pass --replace-config-fields to clear it on purpose$/m,
    );
    expect(row()).toEqual(before);
  });

  it('--replace-config-fields clears the fields not given, on purpose', async () => {
    const r = await cli(set('--config', 'site=datadoghq.com', '--replace-config-fields'));
    expect(r.code, r.stderr).toBe(0);
    expect(site()).toBe('datadoghq.com');
    expect(apiKey()).toBeUndefined();
    const ext = await cli(['mcp', 'set-credentials', d.appId, d.external, '--external', '--replace-config-fields']);
    expect(ext.code).toBe(2);
    expect(ext.stderr).toContain('--replace-config-fields applies to hosted servers only');
  });
});

/**
 * A stand-in for a tenant that answers 200 without applying anything (as the
 * service does for a mask path that matches nothing), and that refuses a hosted
 * request without a catalog ID, as the service does.
 */
describe('agctl mcp set-credentials against a server that answers 200 without applying the change', async () => {
  const CATALOG = '2ZbP3dJ9mQ1kT8vX5cR7wY0aBfQ';
  const views: Record<string, Record<string, unknown>> = {
    'ext-mcp': {
      appId: 'ai-tools',
      connectorId: 'ext-mcp',
      serverType: 'MCP_SERVER_TYPE_EXTERNAL',
      mcpServerCatalogId: '',
      endpointUrl: 'https://ext.example.com/mcp',
      authMethod: 'MCP_SERVER_AUTH_METHOD_NONE',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
      bearerTokenConfigured: false,
      configFieldValues: {},
    },
    'hosted-mcp': {
      appId: 'ai-tools',
      connectorId: 'hosted-mcp',
      serverType: 'MCP_SERVER_TYPE_HOSTED',
      mcpServerCatalogId: CATALOG,
      endpointUrl: '',
      authMethod: 'MCP_SERVER_AUTH_METHOD_NONE',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
      bearerTokenConfigured: false,
      configFieldValues: {},
    },
  };
  const received: { method: string; url: string; body: any }[] = [];
  const read = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text ? JSON.parse(text) : undefined;
  };
  const stub = createServer(async (req, res) => {
    const body = await read(req);
    received.push({ method: req.method!, url: req.url!, body });
    // A catalog entry without a schema (the contract lets the service leave it out).
    if (req.url === `/api/v1/mcp_server_catalog/${CATALOG}`)
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ catalogEntry: { id: CATALOG, configSchema: null } }));
    const m = /^\/api\/v1\/apps\/ai-tools\/mcp_servers\/([^/]+)(\/credentials)?$/.exec(req.url ?? '');
    const view = m ? views[m[1]!] : undefined;
    const answer = (status: number, json: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    if (!view) return answer(404, { code: 5, message: 'not found' });
    if (req.method === 'POST' && body.hostedConfig && !body.hostedConfig.mcpServerCatalogId)
      return answer(400, { code: 3, message: 'invalid MCPServerHostedConfig.McpServerCatalogId: value length must be at least 1 runes' });
    // A success without a view (the contract allows it).
    if (req.method === 'POST' && m![1] === 'ext-mcp' && body.externalConfig?.transportType) return answer(200, { mcpServer: null });
    // Whatever was asked, nothing changes.
    return answer(200, { mcpServer: view });
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => stub.close(() => resolve())));
  const dir = tempDir();
  const cli = cliFor(dir, { AGCTL_BASE_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`, AGCTL_ACCESS_TOKEN: 'stub-token' });
  const token = secret('stub-bearer');

  it('warns in one line and exits 0 when the view does not show the change', async () => {
    const r = await cli(
      [
        'mcp',
        'set-credentials',
        'ai-tools',
        'ext-mcp',
        '--external',
        '--update-mask',
        'externalConfig.bearerToken',
        '--bearer-token-stdin',
      ],
      { input: token },
    );
    expect(r.code, r.stderr).toBe(0);
    const post = received.filter((x) => x.method === 'POST').at(-1)!;
    expect(post.body.updateMask).toBe('bearerToken,tokenSharing');
    const warnings = r.stderr.split('\n').filter((l) => /does not show/.test(l));
    expect(warnings).toEqual([
      '! the server answered success, but its view of ext-mcp does not show authMethod=MCP_SERVER_AUTH_METHOD_BEARER_TOKEN, bearerTokenConfigured=true: that change may not have been made',
    ]);
    expect(r.stderr).not.toContain(token);
    expect(r.stdout).not.toContain(token);
  });

  it('a success answered {"mcpServer": null}: exit 0 with a one-line note that the service returned no view', async () => {
    for (const out of [[], ['-o', 'json']]) {
      const r = await cli(['mcp', 'set-credentials', 'ai-tools', 'ext-mcp', '--external', '--transport', 'sse', ...out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.split('\n').filter((l) => /no view/.test(l))).toEqual([
        'note: the service returned no view of MCP server ext-mcp; see it with agctl mcp get ai-tools ext-mcp',
      ]);
      expect(r.stderr).not.toMatch(/unexpected|does not show/);
      if (out.length) expect(r.stdout.trim()).toBe('null');
    }
  });

  it('a catalog entry without a config schema: config fields are refused unless --replace-config-fields (nothing sent)', async () => {
    received.length = 0;
    const r = await cli(['mcp', 'set-credentials', 'ai-tools', 'hosted-mcp', '--hosted', '--config', 'region=eu']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `agctl: catalog entry ${CATALOG} sent no config schema, so agctl cannot tell which stored config fields of hosted-mcp are secret`,
    );
    expect(received.filter((x) => x.method === 'POST')).toEqual([]);
    const ok = await cli([
      'mcp',
      'set-credentials',
      'ai-tools',
      'hosted-mcp',
      '--hosted',
      '--config',
      'region=eu',
      '--replace-config-fields',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(received.filter((x) => x.method === 'POST').at(-1)!.body).toEqual({
      hostedConfig: { mcpServerCatalogId: CATALOG, configFields: { region: 'eu' } },
      updateMask: 'configFields',
    });
  });

  it('reads the catalog ID of a hosted server first, and sends it outside the mask', async () => {
    received.length = 0;
    const r = await cli([
      'mcp',
      'set-credentials',
      'ai-tools',
      'hosted-mcp',
      '--hosted',
      '--require-tool-approval',
      'true',
      '--auth',
      'none',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(received.map((x) => `${x.method} ${x.url}`)).toEqual([
      'GET /api/v1/apps/ai-tools/mcp_servers/hosted-mcp',
      'POST /api/v1/apps/ai-tools/mcp_servers/hosted-mcp/credentials',
    ]);
    expect(received[1]!.body).toEqual({
      hostedConfig: {
        mcpServerCatalogId: CATALOG,
        requireToolApproval: 'OPTIONAL_BOOL_TRUE',
        none: {},
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
      },
      updateMask: 'requireToolApproval,none,tokenSharing',
    });
    expect(r.stderr).toMatch(/does not show requireToolApproval=OPTIONAL_BOOL_TRUE: that change/);
  });
});
