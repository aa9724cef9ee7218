import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ksuid } from '../../../src/lib/ids.js';
import { ecKey, privatePem, rsaKey } from '../../helpers/keys.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const RSA_PEM = privatePem(rsaKey());
const EC_PEM = privatePem(ecKey());
const googleJson = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'service_account',
    private_key: RSA_PEM,
    client_email: 'robot@p.iam.gserviceaccount.com',
    token_uri: 'https://oauth2.googleapis.com/token',
    ...over,
  });

const credentialsPath = (s: TestServer, id: string, app = s.demo.mcp.appId) => `/api/v1/apps/${app}/mcp_servers/${id}/credentials`;
const serverPath = (s: TestServer, id: string, app = s.demo.mcp.appId) => `/api/v1/apps/${app}/mcp_servers/${id}`;
const row = (s: TestServer, id: string) =>
  s.server.store.db.prepare('SELECT * FROM mcp_servers WHERE app_id = ? AND connector_id = ?').get(s.demo.mcp.appId, id) as Record<
    string,
    any
  >;
const post = (s: TestServer, id: string, json: unknown) => s.api(credentialsPath(s, id), { method: 'POST', json });
const view = async (s: TestServer, id: string) => (await s.api(serverPath(s, id))).body.mcpServer;

describe('MCP credentials API: validation (each rule refuses and stores nothing)', async () => {
  const s = await startTestServer();
  const d = s.demo.mcp;
  const cat = d.catalogIds.datadog as string;
  const url = 'https://wiki-mcp.example.com/mcp';
  const ext = (cfg: Record<string, unknown>) => ({ externalConfig: { url, ...cfg } });
  const oauth = (o: Record<string, unknown>, cfg: Record<string, unknown> = {}) =>
    ext({ ...cfg, oauth2: { tokenUrl: 'https://idp.example.com/token', ...o } });
  const hosted = (cfg: Record<string, unknown>) => ({ hostedConfig: { mcpServerCatalogId: cat, ...cfg } });
  const CC = 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS';
  const PER_USER = 'MCP_SERVER_TOKEN_SHARING_PER_USER';

  // [name, server key in demo.mcp, body, status, gRPC code, message]
  const cases: [string, string, unknown, number, number, RegExp][] = [
    [
      'both externalConfig and hostedConfig',
      'external',
      { ...ext({ none: {} }), ...hosted({ none: {} }) },
      400,
      3,
      /^externalConfig, hostedConfig: only one/,
    ],
    ['neither config', 'external', { updateMask: 'url' }, 400, 3, /one of externalConfig or hostedConfig is required/],
    [
      'hosted config for an external server',
      'external',
      hosted({ none: {} }),
      400,
      3,
      /^hostedConfig: wiki-mcp is an external server; send externalConfig/,
    ],
    [
      'external config for a hosted server',
      'hosted',
      ext({ none: {} }),
      400,
      3,
      /^externalConfig: datadog-mcp is a hosted server; send hostedConfig/,
    ],
    [
      'two auth objects',
      'external',
      ext({ bearerToken: { token: 't' }, customHeader: { headerName: 'X', headerValue: 'v' } }),
      400,
      3,
      /^externalConfig: at most one authentication method/,
    ],
    [
      'http URL',
      'external',
      ext({ url: 'http://wiki-mcp.example.com/mcp', none: {} }),
      400,
      3,
      /^externalConfig.url: must be an absolute https URL/,
    ],
    [
      'relative URL',
      'external',
      ext({ url: 'wiki-mcp.example.com/mcp', none: {} }),
      400,
      3,
      /^externalConfig.url: must be an absolute https URL/,
    ],
    ['URL missing', 'external', { externalConfig: { none: {} } }, 400, 3, /^externalConfig.url: required/],
    [
      'catalog ID not 27 characters',
      'hosted',
      hosted({ mcpServerCatalogId: 'datadog', none: {} }),
      400,
      3,
      /^hostedConfig.mcpServerCatalogId: must be a 27-character KSUID/,
    ],
    [
      'catalog ID with a non-base62 character',
      'hosted',
      hosted({ mcpServerCatalogId: `${cat.slice(0, 26)}_`, none: {} }),
      400,
      3,
      /^hostedConfig.mcpServerCatalogId: must be a 27-character KSUID/,
    ],
    [
      'catalog ID unknown',
      'hosted',
      hosted({ mcpServerCatalogId: ksuid(), none: {} }),
      400,
      3,
      /^hostedConfig.mcpServerCatalogId: no MCP catalog entry/,
    ],
    [
      'config field not in the catalog schema',
      'hosted',
      hosted({ configFields: { region: 'eu' }, none: {} }),
      400,
      3,
      /^hostedConfig.configFields.region: not a config field/,
    ],
    [
      '257 scopesSupported',
      'external',
      oauth({ mode: CC, clientId: 'c', clientSecret: 's', scopesSupported: Array.from({ length: 257 }, (_, i) => `s${i}`) }),
      400,
      3,
      /^externalConfig.oauth2.scopesSupported: at most 256 entries/,
    ],
    [
      '9 codeChallengeMethodsSupported',
      'external',
      oauth({ mode: CC, clientId: 'c', clientSecret: 's', codeChallengeMethodsSupported: Array(9).fill('S256') }),
      400,
      3,
      /^externalConfig.oauth2.codeChallengeMethodsSupported: at most 8 entries/,
    ],
    [
      'PER_USER with no auth',
      'external',
      ext({ tokenSharing: PER_USER, none: {} }),
      400,
      3,
      /^externalConfig.tokenSharing: PER_USER is supported only with/,
    ],
    [
      'PER_USER with client credentials',
      'external',
      oauth({ mode: CC, clientId: 'c', clientSecret: 's' }, { tokenSharing: PER_USER }),
      400,
      3,
      /^externalConfig.tokenSharing: PER_USER .*CLIENT_CREDENTIALS/,
    ],
    [
      'PER_USER with JWT bearer',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', jwtPrivateKey: RSA_PEM }, { tokenSharing: PER_USER }),
      400,
      3,
      /^externalConfig.tokenSharing: PER_USER .*JWT_BEARER/,
    ],
    [
      'PER_USER with AWS SigV4',
      'hosted',
      hosted({ tokenSharing: PER_USER, awsSigv4: { accessKeyId: 'AKIA', secretAccessKey: 'k' } }),
      400,
      3,
      /^hostedConfig.tokenSharing: .*AWS SigV4 supports SHARED only/,
    ],
    [
      'PER_USER with a Google service account',
      'hosted',
      hosted({ tokenSharing: PER_USER, googleServiceAccount: { credentialsJson: googleJson() } }),
      400,
      3,
      /^hostedConfig.tokenSharing: PER_USER .*googleServiceAccount/,
    ],
    [
      'SHARED with PASSTHROUGH',
      'external',
      oauth(
        { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH', issuerUrl: 'https://idp.example.com' },
        { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED' },
      ),
      400,
      3,
      /^externalConfig.tokenSharing: SHARED conflicts/,
    ],
    [
      'SHARED basic auth with empty username',
      'locked',
      {
        externalConfig: {
          url: 'https://tickets.internal.example.com/mcp/sse',
          tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
          basicAuth: { username: '', password: 'p' },
        },
      },
      400,
      3,
      /^externalConfig.basicAuth.username: must not be empty for SHARED/,
    ],
    [
      'SHARED basic auth username cleared through the mask',
      'locked',
      { externalConfig: { basicAuth: {} }, updateMask: 'basicAuth.username' },
      400,
      3,
      /^externalConfig.basicAuth.username: must not be empty/,
    ],
    ['SHARED bearer without a token', 'external', ext({ bearerToken: {} }), 400, 3, /^externalConfig.bearerToken.token: required/],
    [
      'custom header without a name',
      'external',
      ext({ customHeader: { headerValue: 'v' } }),
      400,
      3,
      /^externalConfig.customHeader.headerName: required/,
    ],
    [
      'custom header with an invalid name',
      'external',
      ext({ customHeader: { headerName: 'X:Y', headerValue: 'v' } }),
      400,
      3,
      /^externalConfig.customHeader.headerName: must be a valid HTTP header name/,
    ],
    [
      'AWS without a secret key',
      'hosted',
      hosted({ awsSigv4: { accessKeyId: 'AKIA' } }),
      400,
      3,
      /^hostedConfig.awsSigv4.secretAccessKey: required/,
    ],
    [
      'OAuth2 without tokenUrl on create',
      'external',
      ext({ oauth2: { mode: CC, clientId: 'c', clientSecret: 's' } }),
      400,
      3,
      /^externalConfig.oauth2.tokenUrl: required/,
    ],
    [
      'OAuth2 partial update with none stored for the mode',
      'external',
      {
        externalConfig: { oauth2: { mode: CC, clientId: 'c', clientSecret: 's' } },
        updateMask: 'oauth2.mode,oauth2.clientId,oauth2.clientSecret',
      },
      400,
      3,
      /^externalConfig.oauth2.tokenUrl: required for mode CLIENT_CREDENTIALS/,
    ],
    [
      'OAuth2 mode change without tokenUrl',
      'legacyService',
      {
        externalConfig: { oauth2: { mode: CC, clientId: 'c', clientSecret: 's' } },
        updateMask: 'oauth2.mode,oauth2.clientId,oauth2.clientSecret',
      },
      400,
      3,
      /^externalConfig.oauth2.tokenUrl: required/,
    ],
    ['OAuth2 without mode', 'external', oauth({ clientId: 'c' }), 400, 3, /^externalConfig.oauth2.mode: required/],
    [
      'SERVICE without issuerUrl',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE' }),
      400,
      3,
      /^externalConfig.oauth2.issuerUrl: required for mode SERVICE/,
    ],
    [
      'SERVICE with an issuer path',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE', issuerUrl: 'https://idp.example.com/realms/x' }),
      400,
      3,
      /^externalConfig.oauth2.issuerUrl: must be an issuer URL without a path/,
    ],
    [
      'PASSTHROUGH without issuerUrl',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH' }, { tokenSharing: PER_USER }),
      400,
      3,
      /^externalConfig.oauth2.issuerUrl: required for mode PASSTHROUGH/,
    ],
    [
      'PASSTHROUGH issuer path through the mask',
      'legacyPassthrough',
      { externalConfig: { oauth2: { issuerUrl: 'https://idp.example.org/tenant/' } }, updateMask: 'oauth2.issuerUrl' },
      400,
      3,
      /^externalConfig.oauth2.issuerUrl: must be an issuer URL without a path/,
    ],
    [
      'CLIENT_CREDENTIALS without client ID',
      'external',
      oauth({ mode: CC, clientSecret: 's' }),
      400,
      3,
      /^externalConfig.oauth2.clientId: required for mode CLIENT_CREDENTIALS/,
    ],
    [
      'CLIENT_CREDENTIALS without client secret',
      'external',
      oauth({ mode: CC, clientId: 'c' }),
      400,
      3,
      /^externalConfig.oauth2.clientSecret: required for mode CLIENT_CREDENTIALS/,
    ],
    [
      'manual authorization code without client ID',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE' }),
      400,
      3,
      /^externalConfig.oauth2.clientId: required for a manual authorization-code client/,
    ],
    [
      'pkce outside the list',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', clientId: 'c', pkce: 'plain' }),
      400,
      3,
      /^externalConfig.oauth2.pkce: must be discover/,
    ],
    [
      'unknown transport type',
      'external',
      ext({ transportType: 'MCP_SERVER_TRANSPORT_TYPE_GRPC', none: {} }),
      400,
      3,
      /^externalConfig.transportType: unknown value "MCP_SERVER_TRANSPORT_TYPE_GRPC"/,
    ],
    [
      'unknown token sharing',
      'external',
      ext({ tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_TEAM', none: {} }),
      400,
      3,
      /^externalConfig.tokenSharing: unknown value/,
    ],
    [
      'unknown tool approval',
      'hosted',
      hosted({ requireToolApproval: 'OPTIONAL_BOOL_MAYBE', none: {} }),
      400,
      3,
      /^hostedConfig.requireToolApproval: unknown value/,
    ],
    [
      'unknown OAuth2 mode',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_DEVICE' }),
      400,
      3,
      /^externalConfig.oauth2.mode: unknown value/,
    ],
    [
      'unknown client ID mode',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', clientIdMode: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_X' }),
      400,
      3,
      /^externalConfig.oauth2.clientIdMode: unknown value/,
    ],
    [
      'Google JSON not JSON',
      'hosted',
      hosted({ googleServiceAccount: { credentialsJson: 'not json' } }),
      400,
      3,
      /^hostedConfig.googleServiceAccount.credentialsJson: must be the JSON of a Google service account key file/,
    ],
    [
      'Google JSON without private key',
      'hosted',
      hosted({ googleServiceAccount: { credentialsJson: googleJson({ private_key: undefined }) } }),
      400,
      3,
      /credentialsJson: the service account key has no private_key/,
    ],
    [
      'Google JSON without client email',
      'hosted',
      hosted({ googleServiceAccount: { credentialsJson: googleJson({ client_email: '' }) } }),
      400,
      3,
      /credentialsJson: the service account key has no client_email/,
    ],
    [
      'Google JSON without token URI',
      'hosted',
      hosted({ googleServiceAccount: { credentialsJson: googleJson({ token_uri: 7 }) } }),
      400,
      3,
      /credentialsJson: the service account key has no token_uri/,
    ],
    [
      'JWT private key not PEM',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', jwtPrivateKey: 'MIIEvQIBADANBg' }),
      400,
      3,
      /^externalConfig.oauth2.jwtPrivateKey: must be a PEM-encoded RSA private key/,
    ],
    [
      'JWT private key not RSA',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', jwtPrivateKey: EC_PEM }),
      400,
      3,
      /^externalConfig.oauth2.jwtPrivateKey: must be a PEM-encoded RSA private key/,
    ],
    [
      'JWT_BEARER without private key',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER' }),
      400,
      3,
      /^externalConfig.oauth2.jwtPrivateKey: required/,
    ],
    ['unknown field', 'external', ext({ none: {}, displayName: 'x' }), 400, 3, /^externalConfig.displayName: unknown field/],
    [
      'hosted-only auth on external',
      'external',
      ext({ awsSigv4: { accessKeyId: 'a', secretAccessKey: 'b' } }),
      400,
      3,
      /^externalConfig.awsSigv4: not available for external servers/,
    ],
    [
      'updateMask unknown path',
      'external',
      { externalConfig: { url }, updateMask: 'url,endpointUrl' },
      400,
      3,
      /^updateMask: endpointUrl: unknown path/,
    ],
    [
      'updateMask for the other config',
      'external',
      { externalConfig: { url }, updateMask: 'hostedConfig.mcpServerCatalogId' },
      400,
      3,
      /^updateMask: hostedConfig.mcpServerCatalogId: the request sets externalConfig/,
    ],
    // Stricter than the service, which answers 200 having changed nothing (service-notes.md §3).
    [
      'updateMask path under the config name',
      'external',
      { externalConfig: { bearerToken: { token: 't' } }, updateMask: 'externalConfig.bearerToken' },
      400,
      3,
      /^updateMask: externalConfig.bearerToken: paths are relative to externalConfig; use bearerToken$/,
    ],
    [
      'hosted request without a catalog ID',
      'hosted',
      { hostedConfig: { none: {} }, updateMask: 'none' },
      400,
      3,
      /^hostedConfig.mcpServerCatalogId: required on every hosted request/,
    ],
    [
      'hosted request with an empty catalog ID',
      'hosted',
      { hostedConfig: { mcpServerCatalogId: '', configFields: { site: 'us' } }, updateMask: 'configFields.site' },
      400,
      3,
      /^hostedConfig.mcpServerCatalogId: required on every hosted request/,
    ],
    [
      'updateMask names an unset auth object',
      'external',
      { externalConfig: { url }, updateMask: 'bearerToken.token' },
      400,
      3,
      /^updateMask: bearerToken is in the mask but externalConfig.bearerToken is not set/,
    ],
    ['body not an object', 'external', [1, 2], 400, 3, /^request body: must be a JSON object/],
    // An array where an object (a map) is expected is refused, never stored and later spread into the view.
    [
      'extra authorize parameters an array',
      'external',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', clientId: 'c', extraAuthorizeParams: ['prompt', 'consent'] }),
      400,
      3,
      /^externalConfig.oauth2.extraAuthorizeParams: /,
    ],
    [
      'extra token parameters an array',
      'external',
      oauth({ mode: CC, clientId: 'c', clientSecret: 's', extraTokenParams: ['audience'] }),
      400,
      3,
      /^externalConfig.oauth2.extraTokenParams: /,
    ],
    ['config fields an array', 'hosted', hosted({ configFields: ['eu'], none: {} }), 400, 3, /^hostedConfig.configFields: /],
    ['auth object an array', 'external', ext({ bearerToken: ['t'] }), 400, 3, /^externalConfig.bearerToken: /],
    ['config an array', 'external', { externalConfig: [url] }, 400, 3, /^externalConfig: /],
    // Map keys are data: `__proto__` cannot be a key of a plain object, so it is refused by name rather than dropped.
    [
      'extra token parameter named __proto__',
      'external',
      oauth({ mode: CC, clientId: 'c', clientSecret: 's', extraTokenParams: JSON.parse('{"audience":"a","__proto__":"x"}') }),
      400,
      3,
      /^externalConfig.oauth2.extraTokenParams.__proto__: not accepted as a key/,
    ],
    [
      'config field named __proto__',
      'hosted',
      hosted({ configFields: JSON.parse('{"site":"eu","__proto__":"x"}'), none: {} }),
      400,
      3,
      /^hostedConfig.configFields.__proto__: not accepted as a key/,
    ],
    [
      'config field named __proto__ in the mask',
      'hosted',
      { hostedConfig: { mcpServerCatalogId: cat, configFields: {} }, updateMask: 'configFields.__proto__' },
      400,
      3,
      /^updateMask: configFields.__proto__: not accepted as a config field name/,
    ],
    [
      'locked URL changed',
      'locked',
      { externalConfig: { url: 'https://tickets2.example.com/mcp', basicAuth: { username: 'u', password: 'p' } } },
      400,
      9,
      /^externalConfig.url: the endpoint URL of tickets-mcp is locked/,
    ],
    [
      'locked URL changed through the mask',
      'locked',
      { externalConfig: { url: 'https://tickets.example.com/other' }, updateMask: 'url' },
      400,
      9,
      /^externalConfig.url: the endpoint URL of tickets-mcp is locked/,
    ],
  ];

  for (const [name, key, body, status, code, message] of cases) {
    it(name, async () => {
      const id = d[key] as string;
      const before = row(s, id);
      const beforeView = await view(s, id);
      const res = await post(s, id, body);
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(code);
      expect(res.body.message).toMatch(message);
      expect(res.body.details).toEqual([]);
      expect(row(s, id)).toEqual(before);
      expect(await view(s, id)).toEqual(beforeView);
    });
  }

  it('answers 404 for an unknown app or connector and 401 without a token', async () => {
    const body = ext({ none: {} });
    const noApp = await s.api(credentialsPath(s, d.external, 'no-such-app'), { method: 'POST', json: body });
    expect(noApp.status).toBe(404);
    expect(noApp.body.code).toBe(5);
    const noConn = await post(s, 'no-such-connector', body);
    expect(noConn.status).toBe(404);
    expect(noConn.body).toMatchObject({ code: 5, message: expect.stringMatching(/no-such-connector/) });
    expect((await s.api(serverPath(s, 'no-such-connector'))).status).toBe(404);
    // A server of another app is not found under this one.
    expect((await s.api(credentialsPath(s, d.external, 'crm-app'), { method: 'POST', json: body })).status).toBe(404);
    const anon = await s.api(credentialsPath(s, d.external), { method: 'POST', json: body, auth: false });
    expect(anon.status).toBe(401);
    const bad = await s.api(credentialsPath(s, d.external), {
      method: 'POST',
      body: '{"externalConfig":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
  });
});

describe('MCP credentials API: updates and the derived view', async () => {
  const s = await startTestServer();
  const d = s.demo.mcp;

  it('derives the view of every demo server from what is stored', async () => {
    const external = await view(s, d.external);
    expect(external).toMatchObject({
      appId: d.appId,
      connectorId: 'wiki-mcp',
      serverType: 'MCP_SERVER_TYPE_EXTERNAL',
      authMethod: 'MCP_SERVER_AUTH_METHOD_BEARER_TOKEN',
      bearerTokenConfigured: true,
      endpointUrl: 'https://wiki-mcp.example.com/mcp',
      endpointUrlLocked: false,
      defaultToolPrefix: '',
      credentialsSetupUrl: '',
      oauth2Mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_UNSPECIFIED',
      oauth2ClientIdMode: '',
    });
    const hosted = await view(s, d.hosted);
    expect(hosted).toMatchObject({
      serverType: 'MCP_SERVER_TYPE_HOSTED',
      mcpServerCatalogId: d.catalogIds.datadog,
      defaultToolPrefix: 'datadog',
      endpointUrl: '',
      authMethod: 'MCP_SERVER_AUTH_METHOD_NONE',
    });
    expect(hosted.configFieldValues).toEqual({ site: 'datadoghq.eu' });
    const locked = await view(s, d.locked);
    expect(locked).toMatchObject({
      endpointUrlLocked: true,
      basicAuthUsername: 'svc-tickets',
      basicAuthPasswordConfigured: true,
      tunneled: true,
      tunnelServiceName: 'tickets',
    });
    expect(locked.tunnelBridgeId).toHaveLength(27);
    expect(locked.lastCalledAt).toMatch(/^\d{4}-/);
  });

  it('answers GET .../mcp_servers/{connector_id} with {mcpServer}, the view an update returns', async () => {
    const updated = await post(s, d.hosted, {
      hostedConfig: { mcpServerCatalogId: d.catalogIds.datadog, bearerToken: { token: 'get-route-token' } },
      updateMask: 'bearerToken',
    });
    expect(updated.status).toBe(200);
    const got = await s.api(serverPath(s, d.hosted));
    expect(got.status).toBe(200);
    expect(Object.keys(got.body)).toEqual(['mcpServer']);
    expect(got.body.mcpServer).toEqual(updated.body.mcpServer);
    expect(got.body.mcpServer).toMatchObject({ mcpServerCatalogId: d.catalogIds.datadog, bearerTokenConfigured: true });
    expect(JSON.stringify(got.body)).not.toContain('get-route-token');
    expect((await s.api(serverPath(s, d.hosted), { auth: false })).status).toBe(401);
  });

  it('reports the legacy OAuth2 modes as SHARED and PER_USER', async () => {
    const svc = await view(s, d.legacyService);
    expect(svc).toMatchObject({
      authMethod: 'MCP_SERVER_AUTH_METHOD_OAUTH2',
      oauth2Mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
      oauth2CredentialsConfigured: true,
      oauth2ServiceAuthorized: true,
      oauth2ServiceAuthorizedAsEmail: 'ada@example.com',
      oauth2ServiceAuthorizedBy: 'user-ada',
      oauth2IssuerUrl: 'https://login.example.com',
    });
    expect(row(s, d.legacyService).token_sharing).toBe('MCP_SERVER_TOKEN_SHARING_UNSPECIFIED');
    const pt = await view(s, d.legacyPassthrough);
    expect(pt).toMatchObject({
      oauth2Mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
      oauth2CredentialsConfigured: false,
    });
    // A partial update keeps the legacy mode, so the mapping (and the service authorization) survives.
    const res = await post(s, d.legacyService, {
      externalConfig: { oauth2: { clientSecret: 'rotated-legacy-secret' } },
      updateMask: 'oauth2.clientSecret',
    });
    expect(res.status).toBe(200);
    expect(res.body.mcpServer).toMatchObject({
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
      oauth2ServiceAuthorized: true,
      oauth2TokenUrl: 'https://login.example.com/oauth2/token',
    });
  });

  it('passes unknown stored enum values through as they are', async () => {
    const v = await view(s, d.unknownEnums);
    expect(v).toMatchObject({
      authMethod: 'MCP_SERVER_AUTH_METHOD_MUTUAL_TLS',
      transportType: 'MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_TEAM',
      dataSensitivity: 'MCP_SERVER_DATA_SENSITIVITY_TOP_SECRET',
    });
  });

  it('replaces the config without a mask and moves updatedAt on every update', async () => {
    const before = await view(s, d.external);
    const r1 = await post(s, d.external, {
      externalConfig: {
        url: 'https://wiki2.example.com/mcp',
        transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE',
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
        customHeader: { headerName: 'X-Api-Key' },
      },
    });
    expect(r1.status).toBe(200);
    const v1 = r1.body.mcpServer;
    expect(v1).toMatchObject({
      endpointUrl: 'https://wiki2.example.com/mcp',
      transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE',
      authMethod: 'MCP_SERVER_AUTH_METHOD_CUSTOM_HEADER',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
      customHeaderName: 'X-Api-Key',
      customHeaderValueConfigured: false,
      bearerTokenConfigured: false,
      requireToolApproval: 'OPTIONAL_BOOL_UNSPECIFIED',
      toolPrefix: 'wiki',
    });
    expect(Date.parse(v1.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect(v1.createdAt).toBe(before.createdAt);
    expect(JSON.parse(row(s, d.external).secrets_json)).toEqual({});
    const r2 = await post(s, d.external, {
      externalConfig: { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER' },
      updateMask: 'tokenSharing',
    });
    const r3 = await post(s, d.external, {
      externalConfig: { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER' },
      updateMask: 'tokenSharing',
    });
    expect(Date.parse(r2.body.mcpServer.updatedAt)).toBeGreaterThan(Date.parse(v1.updatedAt));
    expect(Date.parse(r3.body.mcpServer.updatedAt)).toBeGreaterThan(Date.parse(r2.body.mcpServer.updatedAt));
  });

  it('changes only the masked fields', async () => {
    const before = row(s, d.locked);
    const res = await post(s, d.locked, {
      externalConfig: {
        url: 'https://ignored.example.com',
        requireToolApproval: 'OPTIONAL_BOOL_FALSE',
        basicAuth: { username: 'ignored', password: 'new-locked-password' },
      },
      updateMask: 'requireToolApproval, basicAuth.password',
    });
    expect(res.status).toBe(200);
    const after = row(s, d.locked);
    expect(res.body.mcpServer).toMatchObject({
      requireToolApproval: 'OPTIONAL_BOOL_FALSE',
      basicAuthUsername: 'svc-tickets',
      basicAuthPasswordConfigured: true,
      endpointUrl: before.endpoint_url,
    });
    expect(after.transport_type).toBe(before.transport_type);
    expect(after.token_sharing).toBe(before.token_sharing);
    expect(JSON.parse(after.secrets_json)['auth.password']).not.toBe(JSON.parse(before.secrets_json)['auth.password']);
    expect(s.server.store.open(JSON.parse(after.secrets_json)['auth.password'], 'mcp_servers', d.appId, d.locked, 'auth.password')).toBe(
      'new-locked-password',
    );
    // A settings-only mask leaves the sealed secrets byte for byte.
    const again = await post(s, d.locked, {
      externalConfig: { transportType: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP' },
      updateMask: 'transportType',
    });
    expect(again.body.mcpServer.transportType).toBe('MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP');
    expect(row(s, d.locked).secrets_json).toBe(after.secrets_json);
    expect(row(s, d.locked).auth_json).toBe(after.auth_json);
  });

  it('keeps a locked URL when it is resent unchanged or left out of the mask', async () => {
    const stored = row(s, d.locked).endpoint_url as string;
    const same = await post(s, d.locked, {
      externalConfig: { url: 'https://TICKETS.internal.example.com/mcp/sse', basicAuth: { username: 'svc-2', password: 'pw-2' } },
    });
    expect(same.status).toBe(200);
    // Written differently, the same URL: the stored form stays as it was.
    expect(same.body.mcpServer).toMatchObject({ endpointUrlLocked: true, basicAuthUsername: 'svc-2', endpointUrl: stored });
    const masked = await post(s, d.locked, {
      externalConfig: { url: 'HTTPS://tickets.internal.example.com:443/mcp/sse' },
      updateMask: 'url',
    });
    expect(masked.status).toBe(200);
    expect(row(s, d.locked).endpoint_url).toBe(stored);
  });

  it('updates hosted config fields by key, sealing the secret ones and never returning them', async () => {
    const before = JSON.parse(row(s, d.hosted).secrets_json);
    const bySite = await post(s, d.hosted, {
      hostedConfig: { mcpServerCatalogId: d.catalogIds.datadog, configFields: { site: 'us3.datadoghq.com' } },
      updateMask: 'configFields.site',
    });
    expect(bySite.status).toBe(200);
    expect(bySite.body.mcpServer.configFieldValues).toEqual({ site: 'us3.datadoghq.com' });
    // A per-key path leaves the other fields as they were, the sealed secret included.
    expect(JSON.parse(row(s, d.hosted).secrets_json)['configFields.apiKey']).toBe(before['configFields.apiKey']);
    const res = await post(s, d.hosted, {
      hostedConfig: { mcpServerCatalogId: d.catalogIds.datadog, configFields: { site: 'us5.datadoghq.com', apiKey: 'new-api-key-value' } },
      updateMask: 'configFields.site,configFields.apiKey',
    });
    expect(res.status).toBe(200);
    expect(res.body.mcpServer.configFieldValues).toEqual({ site: 'us5.datadoghq.com' });
    const after = JSON.parse(row(s, d.hosted).secrets_json);
    expect(s.server.store.open(after['configFields.apiKey'], 'mcp_servers', d.appId, d.hosted, 'configFields.apiKey')).toBe(
      'new-api-key-value',
    );
    expect(JSON.stringify(res.body)).not.toContain('new-api-key-value');
    // Without a mask the config fields are replaced.
    const full = await post(s, d.hosted, {
      hostedConfig: { mcpServerCatalogId: d.catalogIds.datadog, configFields: { site: 'datadoghq.com' }, none: {} },
    });
    expect(full.body.mcpServer.configFieldValues).toEqual({ site: 'datadoghq.com' });
    expect(JSON.parse(row(s, d.hosted).secrets_json)).toEqual({});
  });

  it('stores every auth method and reports it through the view', async () => {
    const cat = d.catalogIds.googleDrive;
    const cases: [string, unknown, Record<string, unknown>][] = [
      [
        'hosted',
        {
          hostedConfig: {
            mcpServerCatalogId: cat,
            awsSigv4: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'aws-secret', sessionToken: 'aws-session' },
          },
        },
        {
          authMethod: 'MCP_SERVER_AUTH_METHOD_AWS_SIGV4',
          awsAccessKeyId: 'AKIAEXAMPLE',
          awsSecretAccessKeyConfigured: true,
          awsSessionTokenConfigured: true,
          defaultToolPrefix: 'google_drive',
        },
      ],
      [
        'hosted',
        { hostedConfig: { mcpServerCatalogId: cat, googleServiceAccount: { credentialsJson: googleJson(), scopes: ['drive.readonly'] } } },
        {
          authMethod: 'MCP_SERVER_AUTH_METHOD_OAUTH2',
          oauth2Mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_GOOGLE_SERVICE_ACCOUNT',
          oauth2JwtIssuer: 'robot@p.iam.gserviceaccount.com',
          oauth2TokenUrl: 'https://oauth2.googleapis.com/token',
          oauth2JwtPrivateKeyConfigured: true,
          oauth2Scopes: ['drive.readonly'],
        },
      ],
      [
        'external',
        { externalConfig: { url: 'https://a.example.com/mcp', basicAuth: { username: 'u', password: 'p' } } },
        { authMethod: 'MCP_SERVER_AUTH_METHOD_BASIC_AUTH', basicAuthUsername: 'u', basicAuthPasswordConfigured: true },
      ],
      [
        'external',
        { externalConfig: { url: 'https://a.example.com/mcp', none: {} } },
        { authMethod: 'MCP_SERVER_AUTH_METHOD_NONE', basicAuthUsername: '', basicAuthPasswordConfigured: false },
      ],
      [
        'external',
        {
          externalConfig: {
            url: 'https://a.example.com/mcp',
            oauth2: {
              mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER',
              tokenUrl: 'https://idp.example.com/token',
              jwtPrivateKey: RSA_PEM,
              jwtIssuer: 'iss',
              jwtSubject: 'sub',
              jwtAudience: 'aud',
            },
          },
        },
        {
          oauth2Mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER',
          oauth2JwtPrivateKeyConfigured: true,
          oauth2JwtIssuer: 'iss',
          oauth2JwtSubject: 'sub',
          oauth2JwtAudience: 'aud',
          oauth2CredentialsConfigured: false,
        },
      ],
      [
        'external',
        {
          externalConfig: {
            url: 'https://a.example.com/mcp',
            tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
            oauth2: {
              mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE',
              clientIdMode: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_DCR',
              tokenUrl: 'https://idp.example.com/token',
              authorizeUrl: 'https://idp.example.com/authorize',
              pkce: 's256',
              codeChallengeMethodsSupported: ['S256'],
              scopesSupported: ['a', 'b'],
              scopes: ['a'],
              extraAuthorizeParams: { prompt: 'consent' },
              tokenEndpointAuthMethod: 'none',
            },
          },
        },
        {
          tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
          oauth2ClientIdMode: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_DCR',
          oauth2Pkce: 's256',
          oauth2CodeChallengeMethodsSupported: ['S256'],
          oauth2ScopesSupported: ['a', 'b'],
          oauth2Scopes: ['a'],
          oauth2ExtraAuthorizeParams: { prompt: 'consent' },
          oauth2TokenEndpointAuthMethod: '',
          oauth2AuthorizeUrl: 'https://idp.example.com/authorize',
        },
      ],
      [
        'external',
        {
          externalConfig: {
            url: 'https://a.example.com/mcp',
            oauth2: {
              mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS',
              tokenUrl: 'https://idp.example.com/token',
              clientId: 'cid',
              clientSecret: 'cs',
              extraTokenParams: { audience: 'api' },
            },
          },
        },
        {
          oauth2CredentialsConfigured: true,
          oauth2ClientId: 'cid',
          oauth2ExtraTokenParams: { audience: 'api' },
          oauth2ClientIdMode: '',
          oauth2Pkce: '',
          oauth2ServiceAuthorized: false,
        },
      ],
    ];
    for (const [kind, body, expected] of cases) {
      const res = await post(s, kind === 'hosted' ? d.hosted : d.legacyPassthrough, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.mcpServer).toMatchObject(expected);
    }
  });

  it('reports extra token parameters only in client-credentials mode and extra authorize parameters only in authorization-code mode', async () => {
    // service-api.md §2.2: extraTokenParams "client_credentials mode only; ignored by other modes";
    // extraAuthorizeParams "authorization_code mode only". The view must not report parameters that are not used.
    const oauth2 = (mode: string, extra: Record<string, unknown>) => ({
      externalConfig: {
        url: 'https://a.example.com/mcp',
        oauth2: {
          mode,
          tokenUrl: 'https://idp.example.com/token',
          clientId: 'cid',
          clientSecret: 'cs',
          extraTokenParams: { audience: 'api' },
          extraAuthorizeParams: { prompt: 'consent' },
          ...extra,
        },
      },
    });
    const cc = await post(s, d.legacyPassthrough, oauth2('MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', {}));
    expect(cc.status, JSON.stringify(cc.body)).toBe(200);
    const params = (v: Record<string, unknown>) => ({ token: v.oauth2ExtraTokenParams, authorize: v.oauth2ExtraAuthorizeParams });
    expect(params(cc.body.mcpServer)).toEqual({ token: { audience: 'api' }, authorize: {} });
    const code = await post(s, d.legacyPassthrough, oauth2('MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', {}));
    expect(code.status, JSON.stringify(code.body)).toBe(200);
    expect(params(code.body.mcpServer)).toEqual({ token: {}, authorize: { prompt: 'consent' } });
    const svc = await post(s, d.legacyPassthrough, oauth2('MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE', { issuerUrl: 'https://idp.example.com' }));
    expect(svc.status, JSON.stringify(svc.body)).toBe(200);
    expect(params(svc.body.mcpServer)).toEqual({ token: {}, authorize: {} });
  });
});

describe('MCP credentials: secrets at rest and in responses', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('never writes a secret to the database files, responses or the request log', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agctl-mcp-'));
    dirs.push(dataDir);
    const log: string[] = [];
    const s = await startTestServer({ dataDir, frontendUrl: 'https://admin.example.com/', autoClose: false, log: (l) => log.push(l) });
    const d = s.demo.mcp;
    const tag = `S3CRET${Date.now()}`;
    const secrets = {
      bearer: `${tag}-bearer-token`,
      basicPassword: `${tag}-basic-password`,
      headerValue: `${tag}-header-value`,
      awsSecret: `${tag}-aws-secret-key`,
      awsSession: `${tag}-aws-session-token`,
      clientSecret: `${tag}-oauth2-client-secret`,
      apiKey: `${tag}-catalog-api-key`,
    };
    const googleCreds = googleJson({ client_id: `${tag}-google-client` });
    const responses: string[] = [];
    const send = async (id: string, body: unknown) => {
      const res = await post(s, id, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      responses.push(JSON.stringify(res.body), JSON.stringify((await s.api(serverPath(s, id))).body));
      return res.body.mcpServer;
    };
    const url = 'https://a.example.com/mcp';
    expect((await send(d.external, { externalConfig: { url, bearerToken: { token: secrets.bearer } } })).bearerTokenConfigured).toBe(true);
    expect(
      (await send(d.legacyPassthrough, { externalConfig: { url, basicAuth: { username: 'u', password: secrets.basicPassword } } }))
        .basicAuthPasswordConfigured,
    ).toBe(true);
    expect(
      (await send(d.unknownEnums, { externalConfig: { url, customHeader: { headerName: 'X-Key', headerValue: secrets.headerValue } } }))
        .customHeaderValueConfigured,
    ).toBe(true);
    expect(
      (
        await send(d.legacyService, {
          externalConfig: {
            url,
            oauth2: { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', tokenUrl: 'https://idp.example.com/t', jwtPrivateKey: RSA_PEM },
          },
        })
      ).oauth2JwtPrivateKeyConfigured,
    ).toBe(true);
    expect(
      (
        await send(d.legacyService, {
          externalConfig: {
            oauth2: {
              mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS',
              tokenUrl: 'https://idp.example.com/t',
              clientId: 'c',
              clientSecret: secrets.clientSecret,
            },
          },
          updateMask: 'oauth2',
        })
      ).oauth2CredentialsConfigured,
    ).toBe(true);
    const v = await send(d.hosted, {
      hostedConfig: {
        mcpServerCatalogId: d.catalogIds.datadog,
        configFields: { site: 'eu', apiKey: secrets.apiKey },
        awsSigv4: { accessKeyId: 'AKIA', secretAccessKey: secrets.awsSecret, sessionToken: secrets.awsSession },
      },
    });
    expect(v).toMatchObject({
      awsSecretAccessKeyConfigured: true,
      awsSessionTokenConfigured: true,
      configFieldValues: { site: 'eu' },
      credentialsSetupUrl: `https://admin.example.com/apps/${d.appId}/mcp-servers/${d.hosted}`,
    });
    // The JWT key and the Google credentials, on a second hosted run (one auth object at a time).
    const g = await send(d.hosted, {
      hostedConfig: { mcpServerCatalogId: d.catalogIds.googleDrive, googleServiceAccount: { credentialsJson: googleCreds } },
    });
    expect(g.oauth2JwtPrivateKeyConfigured).toBe(true);

    // The sealed values open to the plaintext (so they really were stored) ...
    const secretsOf = (id: string) => JSON.parse(row(s, id).secrets_json) as Record<string, string>;
    expect(s.server.store.open(secretsOf(d.external)['auth.token']!, 'mcp_servers', d.appId, d.external, 'auth.token')).toBe(
      secrets.bearer,
    );
    // ... only at their own place: a sealed value copied to another row does not open.
    expect(() =>
      s.server.store.open(secretsOf(d.external)['auth.token']!, 'mcp_servers', d.appId, d.legacyPassthrough, 'auth.token'),
    ).toThrow();

    // Reads of the WAL and the main file, while open and after close.
    const files = () =>
      readdirSync(dataDir)
        .filter((f) => f.startsWith('agctl.db'))
        .map((f) => join(dataDir, f));
    const needles = [...Object.values(secrets), RSA_PEM.split('\n')[1]!, `${tag}-google-client`];
    const scan = () => {
      const found: string[] = [];
      for (const file of files()) {
        const bytes = readFileSync(file);
        for (const n of needles) if (bytes.includes(Buffer.from(n))) found.push(`${file}: ${n}`);
      }
      return found;
    };
    expect(files().length).toBeGreaterThan(0);
    expect(scan()).toEqual([]);
    await s.close();
    expect(existsSync(join(dataDir, 'agctl.db'))).toBe(true);
    expect(scan()).toEqual([]);
    // The check can see plaintext: the demo user's e-mail is stored in the clear.
    expect(readFileSync(join(dataDir, 'agctl.db')).includes(Buffer.from('ada@example.com'))).toBe(true);

    for (const text of [...responses, ...log]) for (const n of needles) expect(text).not.toContain(n);
    expect(log.length).toBeGreaterThan(0);

    // Reopening the same data dir keeps the demo IDs and the sealed values.
    const again = await startTestServer({ dataDir, autoClose: false });
    expect(again.demo.mcp).toEqual(d);
    expect((await again.api(serverPath(again, d.external))).body.mcpServer.bearerTokenConfigured).toBe(true);
    await again.close();
  });
});
