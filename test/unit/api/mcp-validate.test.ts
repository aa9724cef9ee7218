import { describe, expect, it } from 'vitest';
import { ApiError, Code } from '../../../src/api/errors.js';
import { OAuth2Mode, TokenSharing, shortEnum } from '../../../src/api/mcp-schema.js';
import {
  KEPT,
  isPemRsaPrivateKey,
  parseGoogleCredentials,
  reportedTokenSharing,
  sameEndpointUrl,
  type CatalogEntryInfo,
  type StoredServer,
} from '../../../src/api/mcp-config.js';
import { deriveUpdateMask, parseUpdateMask, planCredentialsUpdate, relativeUpdateMask } from '../../../src/api/mcp-mask.js';
import { validateCredentialsRequest } from '../../../src/api/mcp.js';
import { ksuid } from '../../../src/lib/ids.js';
import { ecKey, privatePem, rsaKey } from '../../helpers/keys.js';

const RSA_PEM = privatePem(rsaKey());
const RSA_PKCS1_PEM = privatePem(rsaKey(), { type: 'pkcs1' });
const EC_PEM = privatePem(ecKey());
const GOOGLE_JSON = JSON.stringify({
  type: 'service_account',
  private_key: RSA_PEM,
  client_email: 'robot@project.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
});

const CATALOG_ID = ksuid();
const CATALOG: CatalogEntryInfo = {
  id: CATALOG_ID,
  serviceName: 'datadog',
  configFields: [
    { name: 'site', secret: false },
    { name: 'apiKey', secret: true },
  ],
};
const catalog = (id: string) => (id === CATALOG_ID ? CATALOG : undefined);

/** Runs fn and returns the ApiError it throws (fails the test when it does not throw one). */
function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

const invalid = (body: unknown, message: RegExp) => {
  const err = apiError(() => validateCredentialsRequest(body));
  expect(err.code).toBe(Code.InvalidArgument);
  expect(err.status).toBe(400);
  expect(err.message).toMatch(message);
};

const ext = (cfg: Record<string, unknown>) => ({ externalConfig: { url: 'https://mcp.example.com/mcp', ...cfg } });
const oauth = (o: Record<string, unknown>, cfg: Record<string, unknown> = {}) =>
  ext({ ...cfg, oauth2: { tokenUrl: 'https://idp.example.com/token', ...o } });

function storedExternal(over: Partial<StoredServer> = {}): StoredServer {
  return {
    appId: 'app',
    connectorId: 'conn',
    serverType: 'MCP_SERVER_TYPE_EXTERNAL',
    endpointUrlLocked: false,
    config: {
      kind: 'external',
      settings: {
        url: 'https://mcp.example.com/mcp',
        transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE',
        tokenSharing: TokenSharing.SHARED,
        requireToolApproval: 'OPTIONAL_BOOL_TRUE',
        mcpServerCatalogId: '',
        sourceAppId: '',
      },
      configFields: {},
      auth: {
        kind: 'oauth2',
        values: { mode: OAuth2Mode.CLIENT_CREDENTIALS, clientId: 'cid', tokenUrl: 'https://idp.example.com/token', scopes: ['a'] },
        secrets: { clientSecret: KEPT },
      },
    },
    ...over,
  };
}

function storedHosted(): StoredServer {
  return {
    appId: 'app',
    connectorId: 'hosted',
    serverType: 'MCP_SERVER_TYPE_HOSTED',
    endpointUrlLocked: false,
    config: {
      kind: 'hosted',
      settings: {
        url: '',
        transportType: 'MCP_SERVER_TRANSPORT_TYPE_UNSPECIFIED',
        tokenSharing: TokenSharing.SHARED,
        requireToolApproval: 'OPTIONAL_BOOL_UNSPECIFIED',
        mcpServerCatalogId: CATALOG_ID,
        sourceAppId: '',
      },
      configFields: { site: { value: 'eu' }, apiKey: KEPT },
      auth: { kind: 'none', values: {}, secrets: {} },
    },
  };
}

describe('validateCredentialsRequest: accepted requests', () => {
  it('normalizes an external bearer-token request and drops empty secrets and nulls', () => {
    const r = validateCredentialsRequest(
      ext({ transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE', tokenSharing: null, bearerToken: { token: 's3cret' }, basicAuth: null }),
    );
    expect(r.kind).toBe('external');
    expect(r.root).toBe('externalConfig');
    expect(r.settings).toEqual({ url: 'https://mcp.example.com/mcp', transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE' });
    expect(r.auth).toEqual({ kind: 'bearerToken', values: {}, secrets: { token: 's3cret' } });
    expect(r.mask).toBeNull();
    expect(
      validateCredentialsRequest(ext({ tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER', bearerToken: { token: '' } })).auth?.secrets,
    ).toEqual({});
  });

  it('accepts every auth method with its required fields', () => {
    const ok = [
      ext({ none: {} }),
      ext({ customHeader: { headerName: 'X-Api-Key', headerValue: 'v' } }),
      ext({ basicAuth: { username: 'u', password: 'p' } }),
      ext({ tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER', basicAuth: {} }),
      oauth({
        mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS',
        clientId: 'c',
        clientSecret: 's',
        extraTokenParams: { audience: 'x' },
      }),
      oauth(
        { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', clientId: 'c', pkce: 's256' },
        { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER' },
      ),
      oauth({
        mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE',
        clientIdMode: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_DCR',
        pkce: '',
      }),
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', jwtPrivateKey: RSA_PEM, jwtIssuer: 'sa@example.com' }),
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', jwtPrivateKey: RSA_PKCS1_PEM }),
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE', issuerUrl: 'https://login.example.com/' }),
      oauth(
        { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH', issuerUrl: 'https://login.example.com' },
        { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER' },
      ),
      oauth({
        mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS',
        clientId: 'c',
        clientSecret: 's',
        scopesSupported: Array(256).fill('s'),
        codeChallengeMethodsSupported: Array(8).fill('S256'),
      }),
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, awsSigv4: { accessKeyId: 'AKIA', secretAccessKey: 'x', sessionToken: 'y' } } },
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, googleServiceAccount: { credentialsJson: GOOGLE_JSON, scopes: ['drive'] } } },
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, configFields: { site: 'eu' } } },
    ];
    for (const body of ok) expect(() => validateCredentialsRequest(body), JSON.stringify(body).slice(0, 200)).not.toThrow();
  });

  it('extracts the client email and token URI of a Google service account and ignores tokenEndpointAuthMethod', () => {
    const g = validateCredentialsRequest({
      hostedConfig: { mcpServerCatalogId: CATALOG_ID, googleServiceAccount: { credentialsJson: GOOGLE_JSON } },
    });
    expect(g.auth?.values).toEqual({
      clientEmail: 'robot@project.iam.gserviceaccount.com',
      tokenUri: 'https://oauth2.googleapis.com/token',
    });
    const o = validateCredentialsRequest(
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', clientId: 'c', tokenEndpointAuthMethod: 'none' }),
    );
    expect(o.auth?.values).not.toHaveProperty('tokenEndpointAuthMethod');
  });

  it('lets full-form enum values it does not list through only with a handler, reporting each (§9)', () => {
    const body = {
      externalConfig: {
        url: 'https://mcp.example.com/mcp',
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_TEAM',
        bearerToken: {},
      },
    };
    expect(() => validateCredentialsRequest(body)).toThrow(
      /^externalConfig.tokenSharing: unknown value "MCP_SERVER_TOKEN_SHARING_PER_TEAM"/,
    );
    const seen: [string, string][] = [];
    const r = validateCredentialsRequest(body, (path, value) => seen.push([path, value]));
    expect(seen).toEqual([['externalConfig.tokenSharing', 'MCP_SERVER_TOKEN_SHARING_PER_TEAM']]);
    // The SHARED rule (a bearer token is required) is not applied to a sharing model this version does not know.
    expect(r.settings.tokenSharing).toBe('MCP_SERVER_TOKEN_SHARING_PER_TEAM');
    const mode = validateCredentialsRequest(oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_DEVICE_CODE' }), (path, value) =>
      seen.push([path, value]),
    );
    expect(mode.auth?.values.mode).toBe('MCP_SERVER_AUTH_OAUTH2_MODE_DEVICE_CODE');
    expect(seen[1]).toEqual(['externalConfig.oauth2.mode', 'MCP_SERVER_AUTH_OAUTH2_MODE_DEVICE_CODE']);
    // Short forms and values of another enum are still refused.
    for (const transportType of ['WEBSOCKET', 'OPTIONAL_BOOL_TRUE', 'MCP_SERVER_TRANSPORT_TYPE_', 'mcp_server_transport_type_ws']) {
      expect(() =>
        validateCredentialsRequest({ externalConfig: { url: 'https://mcp.example.com/mcp', transportType, none: {} } }, () => {}),
      ).toThrow(/transportType: unknown value/);
    }
  });
});

describe('validateCredentialsRequest: rejected requests name the field', () => {
  const cases: [string, unknown, RegExp][] = [
    ['not an object', [], /^request body: must be a JSON object/],
    ['unknown top-level field', { externalConfig: {}, extra: 1 }, /^extra: unknown field/],
    ['both configs', { externalConfig: {}, hostedConfig: {} }, /^externalConfig, hostedConfig: only one/],
    ['no config', { updateMask: 'url' }, /one of externalConfig or hostedConfig is required/],
    [
      'two auth objects',
      ext({ bearerToken: { token: 'a' }, basicAuth: { username: 'u' } }),
      /^externalConfig: at most one authentication method may be set \(got bearerToken, basicAuth\)/,
    ],
    [
      'hosted-only auth on external',
      ext({ awsSigv4: { accessKeyId: 'a' } }),
      /^externalConfig.awsSigv4: not available for external servers/,
    ],
    ['unknown config field', ext({ urll: 'x' }), /^externalConfig.urll: unknown field/],
    ['unknown auth field', ext({ bearerToken: { token: 'a', tokne: 'b' } }), /^externalConfig.bearerToken.tokne: unknown field/],
    // Names every JS object inherits are fields like any other: unknown.
    ['inherited name as a config field', ext({ constructor: 'x', none: {} }), /^externalConfig.constructor: unknown field/],
    [
      'inherited name as an auth field',
      ext({ bearerToken: { token: 'a', toString: 'b' } }),
      /^externalConfig.bearerToken.toString: unknown field/,
    ],
    ['inherited name as a top-level field', { ...ext({ none: {} }), hasOwnProperty: 1 }, /^hasOwnProperty: unknown field/],
    ['http url', ext({ url: 'http://mcp.example.com', none: {} }), /^externalConfig.url: must be an absolute https URL/],
    ['relative url', ext({ url: '/mcp', none: {} }), /^externalConfig.url: must be an absolute https URL/],
    ['url with user info', ext({ url: 'https://u:p@mcp.example.com', none: {} }), /^externalConfig.url: must not carry user info/],
    ['url missing', { externalConfig: { none: {} } }, /^externalConfig.url: required/],
    ['url of the wrong type', ext({ url: 5 }), /^externalConfig.url: must be a string/],
    [
      'catalog id too short',
      { hostedConfig: { mcpServerCatalogId: 'abc' } },
      /^hostedConfig.mcpServerCatalogId: must be a 27-character KSUID/,
    ],
    [
      'catalog id bad characters',
      { hostedConfig: { mcpServerCatalogId: '2ZbP3dJ9mQ1kT8vX5cR7wY0aB-f' } },
      /^hostedConfig.mcpServerCatalogId: must be a 27-character KSUID/,
    ],
    ['catalog id missing', { hostedConfig: { none: {} } }, /^hostedConfig.mcpServerCatalogId: required on every hosted request/],
    [
      'catalog id missing from a masked request',
      { hostedConfig: { bearerToken: { token: 't' } }, updateMask: 'bearerToken' },
      /^hostedConfig.mcpServerCatalogId: required on every hosted request, even when the mask leaves it out/,
    ],
    [
      'catalog id empty',
      { hostedConfig: { mcpServerCatalogId: '', configFields: { site: 'eu' } }, updateMask: 'configFields' },
      /^hostedConfig.mcpServerCatalogId: required on every hosted request/,
    ],
    [
      'masked auth object replaced whole, missing what it needs',
      {
        externalConfig: { oauth2: { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', clientId: 'c', clientSecret: 's' } },
        updateMask: 'oauth2',
      },
      /^externalConfig.oauth2.tokenUrl: required for mode CLIENT_CREDENTIALS/,
    ],
    [
      'masked auth object with masked token sharing',
      { externalConfig: { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER', none: {} }, updateMask: 'tokenSharing,none' },
      /^externalConfig.tokenSharing: PER_USER is supported only with .* not with none/,
    ],
    ['masked url left empty', { externalConfig: { url: '' }, updateMask: 'url' }, /^externalConfig.url: required/],
    [
      'scopesSupported too long',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', scopesSupported: Array(257).fill('s') }),
      /^externalConfig.oauth2.scopesSupported: at most 256 entries/,
    ],
    [
      'codeChallengeMethodsSupported too long',
      oauth({ codeChallengeMethodsSupported: Array(9).fill('S256') }),
      /^externalConfig.oauth2.codeChallengeMethodsSupported: at most 8 entries/,
    ],
    ['scopes not strings', oauth({ scopes: [1] }), /^externalConfig.oauth2.scopes: must be an array of strings/],
    [
      'PER_USER with none',
      ext({ tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER', none: {} }),
      /^externalConfig.tokenSharing: PER_USER is supported only with .* not with none/,
    ],
    [
      'PER_USER without auth',
      ext({ tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER' }),
      /^externalConfig.tokenSharing: PER_USER .* not with no authentication method/,
    ],
    [
      'PER_USER with client credentials',
      oauth(
        { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', clientId: 'c', clientSecret: 's' },
        { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER' },
      ),
      /^externalConfig.tokenSharing: PER_USER .* oauth2 mode CLIENT_CREDENTIALS/,
    ],
    [
      'PER_USER with SERVICE',
      oauth(
        { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE', issuerUrl: 'https://i.example.com' },
        { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER' },
      ),
      /^externalConfig.tokenSharing: PER_USER .* oauth2 mode SERVICE/,
    ],
    [
      'PER_USER with AWS',
      {
        hostedConfig: {
          mcpServerCatalogId: CATALOG_ID,
          tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
          awsSigv4: { accessKeyId: 'a', secretAccessKey: 'b' },
        },
      },
      /^hostedConfig.tokenSharing: .*AWS SigV4 supports SHARED only/,
    ],
    [
      'PER_USER with Google',
      {
        hostedConfig: {
          mcpServerCatalogId: CATALOG_ID,
          tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
          googleServiceAccount: { credentialsJson: GOOGLE_JSON },
        },
      },
      /^hostedConfig.tokenSharing: PER_USER .* googleServiceAccount/,
    ],
    [
      'SHARED with PASSTHROUGH',
      oauth(
        { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH', issuerUrl: 'https://i.example.com' },
        { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED' },
      ),
      /^externalConfig.tokenSharing: SHARED conflicts with oauth2 mode PASSTHROUGH/,
    ],
    [
      'SHARED basic auth without username',
      ext({ tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED', basicAuth: { password: 'p' } }),
      /^externalConfig.basicAuth.username: must not be empty for SHARED/,
    ],
    [
      'default (shared) basic auth with empty username',
      ext({ basicAuth: { username: '', password: 'p' } }),
      /^externalConfig.basicAuth.username: must not be empty/,
    ],
    ['shared bearer without token', ext({ bearerToken: {} }), /^externalConfig.bearerToken.token: required for SHARED/],
    ['custom header without name', ext({ customHeader: { headerValue: 'v' } }), /^externalConfig.customHeader.headerName: required/],
    [
      'custom header bad name',
      ext({ customHeader: { headerName: 'X Bad', headerValue: 'v' } }),
      /^externalConfig.customHeader.headerName: must be a valid HTTP header name/,
    ],
    [
      'shared custom header without value',
      ext({ customHeader: { headerName: 'X-Key' } }),
      /^externalConfig.customHeader.headerValue: required for SHARED/,
    ],
    [
      'AWS without access key',
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, awsSigv4: { secretAccessKey: 'b' } } },
      /^hostedConfig.awsSigv4.accessKeyId: required/,
    ],
    [
      'AWS without secret key',
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, awsSigv4: { accessKeyId: 'a' } } },
      /^hostedConfig.awsSigv4.secretAccessKey: required/,
    ],
    [
      'oauth2 without tokenUrl',
      ext({ oauth2: { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', clientId: 'c', clientSecret: 's' } }),
      /^externalConfig.oauth2.tokenUrl: required for mode CLIENT_CREDENTIALS when OAuth2 credentials are created or rotated/,
    ],
    ['oauth2 without mode', oauth({ clientId: 'c' }), /^externalConfig.oauth2.mode: required/],
    [
      'oauth2 Google mode',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_GOOGLE_SERVICE_ACCOUNT' }),
      /^externalConfig.oauth2.mode: GOOGLE_SERVICE_ACCOUNT is configured with hostedConfig.googleServiceAccount/,
    ],
    [
      'oauth2 token URL over http',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', tokenUrl: 'http://idp.example.com/token' }),
      /^externalConfig.oauth2.tokenUrl: must be an absolute https URL/,
    ],
    [
      'SERVICE without issuer',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE' }),
      /^externalConfig.oauth2.issuerUrl: required for mode SERVICE/,
    ],
    [
      'SERVICE with issuer path',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE', issuerUrl: 'https://login.example.com/tenant' }),
      /^externalConfig.oauth2.issuerUrl: must be an issuer URL without a path/,
    ],
    [
      'PASSTHROUGH without issuer',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH' }),
      /^externalConfig.oauth2.issuerUrl: required for mode PASSTHROUGH/,
    ],
    [
      'PASSTHROUGH with issuer query',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH', issuerUrl: 'https://login.example.com/?x=1' }),
      /^externalConfig.oauth2.issuerUrl: must be an issuer URL without/,
    ],
    [
      'CLIENT_CREDENTIALS without client ID',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', clientSecret: 's' }),
      /^externalConfig.oauth2.clientId: required for mode CLIENT_CREDENTIALS/,
    ],
    [
      'CLIENT_CREDENTIALS without client secret',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', clientId: 'c' }),
      /^externalConfig.oauth2.clientSecret: required for mode CLIENT_CREDENTIALS/,
    ],
    [
      'manual authorization code without client ID',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE' }),
      /^externalConfig.oauth2.clientId: required for a manual authorization-code client/,
    ],
    [
      'pkce plain',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', clientId: 'c', pkce: 'plain' }),
      /^externalConfig.oauth2.pkce: must be discover \(or empty\), s256 or disabled/,
    ],
    [
      'pkce upper case',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', clientId: 'c', pkce: 'S256' }),
      /^externalConfig.oauth2.pkce:/,
    ],
    [
      'unknown transport',
      ext({ transportType: 'MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET', none: {} }),
      /^externalConfig.transportType: unknown value "MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET"/,
    ],
    ['unknown token sharing', ext({ tokenSharing: 'PER_USER', none: {} }), /^externalConfig.tokenSharing: unknown value "PER_USER"/],
    [
      'unknown tool approval',
      ext({ requireToolApproval: true, none: {} }),
      /^externalConfig.requireToolApproval: must be a string enum value/,
    ],
    ['unknown oauth2 mode', oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_DEVICE_CODE' }), /^externalConfig.oauth2.mode: unknown value/],
    [
      'unknown client ID mode',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', clientIdMode: 'DCR' }),
      /^externalConfig.oauth2.clientIdMode: unknown value "DCR"/,
    ],
    [
      'JWT_BEARER without key',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER' }),
      /^externalConfig.oauth2.jwtPrivateKey: required for mode JWT_BEARER/,
    ],
    [
      'JWT key not PEM',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', jwtPrivateKey: 'not-a-key' }),
      /^externalConfig.oauth2.jwtPrivateKey: must be a PEM-encoded RSA private key/,
    ],
    [
      'JWT key EC',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', jwtPrivateKey: EC_PEM }),
      /^externalConfig.oauth2.jwtPrivateKey: must be a PEM-encoded RSA private key/,
    ],
    [
      'JWT key truncated',
      oauth({ mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER', jwtPrivateKey: RSA_PEM.slice(0, 200) }),
      /^externalConfig.oauth2.jwtPrivateKey: must be a PEM-encoded RSA private key/,
    ],
    [
      'Google JSON not JSON',
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, googleServiceAccount: { credentialsJson: '{private_key:' } } },
      /^hostedConfig.googleServiceAccount.credentialsJson: must be the JSON of a Google service account key file/,
    ],
    [
      'Google JSON an array',
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, googleServiceAccount: { credentialsJson: '[]' } } },
      /^hostedConfig.googleServiceAccount.credentialsJson: must be the JSON object/,
    ],
    ...(['private_key', 'client_email', 'token_uri'] as const).map((k): [string, unknown, RegExp] => {
      const doc = JSON.parse(GOOGLE_JSON) as Record<string, string>;
      delete doc[k];
      return [
        `Google JSON without ${k}`,
        { hostedConfig: { mcpServerCatalogId: CATALOG_ID, googleServiceAccount: { credentialsJson: JSON.stringify(doc) } } },
        new RegExp(`^hostedConfig.googleServiceAccount.credentialsJson: the service account key has no ${k}`),
      ];
    }),
    [
      'Google JSON with an EC key',
      {
        hostedConfig: {
          mcpServerCatalogId: CATALOG_ID,
          googleServiceAccount: { credentialsJson: JSON.stringify({ ...JSON.parse(GOOGLE_JSON), private_key: EC_PEM }) },
        },
      },
      /credentialsJson: private_key is not a PEM-encoded RSA private key/,
    ],
    [
      'Google without credentials',
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, googleServiceAccount: { scopes: [] } } },
      /^hostedConfig.googleServiceAccount.credentialsJson: required/,
    ],
    [
      'config fields not strings',
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, configFields: { site: 1 } } },
      /^hostedConfig.configFields.site: must be a string/,
    ],
    ['updateMask not a string', { ...ext({ none: {} }), updateMask: ['url'] }, /^updateMask: must be a string/],
    [
      'updateMask unknown path',
      { ...ext({ none: {} }), updateMask: 'url,endpoint' },
      /^updateMask: endpoint: unknown path for externalConfig/,
    ],
    ['updateMask unknown sub-path', { ...ext({ none: {} }), updateMask: 'oauth2.secret' }, /^updateMask: oauth2.secret: unknown path/],
    [
      'updateMask inherited name as a path',
      { ...ext({ bearerToken: { token: 'a' } }), updateMask: 'bearerToken.constructor' },
      /^updateMask: bearerToken.constructor: unknown path/,
    ],
    [
      'updateMask read-only',
      { ...ext({ none: {} }), updateMask: 'oauth2.tokenEndpointAuthMethod' },
      /^updateMask: oauth2.tokenEndpointAuthMethod: read-only field/,
    ],
    [
      'updateMask other root',
      { ...ext({ none: {} }), updateMask: 'hostedConfig.configFields' },
      /^updateMask: hostedConfig.configFields: the request sets externalConfig/,
    ],
    [
      'updateMask path under the config name',
      { ...ext({ bearerToken: { token: 'a' } }), updateMask: 'externalConfig.bearerToken' },
      /^updateMask: externalConfig.bearerToken: paths are relative to externalConfig; use bearerToken$/,
    ],
    ['updateMask empty path', { ...ext({ none: {} }), updateMask: 'url,,transportType' }, /^updateMask: empty path/],
    [
      'updateMask hosted-only path on external',
      { ...ext({ none: {} }), updateMask: 'awsSigv4' },
      /^updateMask: awsSigv4: unknown path for externalConfig/,
    ],
  ];
  for (const [name, body, message] of cases) it(name, () => invalid(body, message));

  it('never quotes a secret in a message', () => {
    const secret = 'PRIVATE-KEY-MATERIAL-xyz';
    for (const body of [
      oauth({
        mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER',
        jwtPrivateKey: `-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----`,
      }),
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, googleServiceAccount: { credentialsJson: `{"private_key": "${secret}` } } },
      {
        hostedConfig: {
          mcpServerCatalogId: CATALOG_ID,
          googleServiceAccount: { credentialsJson: JSON.stringify({ private_key: secret, client_email: 'a', token_uri: 'https://t' }) },
        },
      },
      ext({ url: `https://user:${secret}@mcp.example.com`, none: {} }),
    ]) {
      const err = apiError(() => validateCredentialsRequest(body));
      expect(err.message).not.toContain(secret);
    }
  });
});

describe('updateMask parsing', () => {
  it('accepts paths relative to the config, trims and de-duplicates', () => {
    expect(parseUpdateMask(' url , bearerToken.token,url', 'external')).toEqual(['url', 'bearerToken.token']);
    expect(parseUpdateMask('configFields.site,awsSigv4,tokenSharing', 'hosted')).toEqual(['configFields.site', 'awsSigv4', 'tokenSharing']);
    expect(parseUpdateMask('', 'external')).toBeNull();
    expect(parseUpdateMask('  ', 'hosted')).toBeNull();
    expect(parseUpdateMask(null, 'hosted')).toBeNull();
  });

  it('refuses a path under the config name, naming the relative path (the service would ignore it)', () => {
    expect(apiError(() => parseUpdateMask('tokenSharing,hostedConfig.configFields.site', 'hosted')).message).toBe(
      'updateMask: hostedConfig.configFields.site: paths are relative to hostedConfig; use configFields.site',
    );
  });

  it('makes a client mask relative and derives one from a config', () => {
    expect(relativeUpdateMask('externalConfig.bearerToken, tokenSharing,hostedConfig.configFields')).toEqual({
      mask: 'bearerToken,tokenSharing,configFields',
      rewritten: ['externalConfig.bearerToken', 'hostedConfig.configFields'],
    });
    expect(relativeUpdateMask(' url ,bearerToken.token')).toEqual({ mask: ' url ,bearerToken.token', rewritten: [] });
    expect(deriveUpdateMask({ url: 'https://a', transportType: null, configFields: {}, bearerToken: { token: 't' } })).toBe(
      'url,configFields,bearerToken',
    );
    expect(deriveUpdateMask({})).toBe('');
  });

  it('rejects the whole root and config fields on external servers', () => {
    expect(apiError(() => parseUpdateMask('externalConfig', 'external')).message).toMatch(
      /^updateMask: externalConfig: name fields under externalConfig/,
    );
    expect(apiError(() => parseUpdateMask('configFields', 'external')).message).toMatch(/^updateMask: configFields: unknown path/);
    expect(apiError(() => parseUpdateMask('url', 'hosted')).message).toMatch(/^updateMask: url: unknown path for hostedConfig/);
  });
});

describe('planCredentialsUpdate', () => {
  const plan = (body: unknown, stored: StoredServer = storedExternal()) =>
    planCredentialsUpdate(validateCredentialsRequest(body), stored, catalog);

  it('replaces the stored config without a mask', () => {
    const p = plan(ext({ bearerToken: { token: 'new' } }));
    expect(p.authReplaced).toBe(true);
    expect(p.config.settings).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      transportType: 'MCP_SERVER_TRANSPORT_TYPE_UNSPECIFIED',
      tokenSharing: TokenSharing.UNSPECIFIED,
    });
    expect(p.config.auth).toEqual({ kind: 'bearerToken', values: {}, secrets: { token: { value: 'new' } } });
  });

  it('changes only the masked fields and keeps stored secrets sealed', () => {
    const p = plan({
      externalConfig: {
        transportType: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP',
        url: 'https://ignored.example.com',
        oauth2: { clientId: 'new-id', scopes: ['b'] },
      },
      updateMask: 'transportType,oauth2.clientId',
    });
    expect(p.authReplaced).toBe(false);
    expect(p.config.settings.url).toBe('https://mcp.example.com/mcp');
    expect(p.config.settings.transportType).toBe('MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP');
    expect(p.config.settings.requireToolApproval).toBe('OPTIONAL_BOOL_TRUE');
    expect(p.config.auth?.values).toEqual({
      mode: OAuth2Mode.CLIENT_CREDENTIALS,
      clientId: 'new-id',
      tokenUrl: 'https://idp.example.com/token',
      scopes: ['a'],
    });
    expect(p.config.auth?.secrets).toEqual({ clientSecret: KEPT });
  });

  it('clears a masked field that the request leaves out', () => {
    const p = plan({ externalConfig: { oauth2: { clientId: 'c' } }, updateMask: 'oauth2.scopes' });
    expect(p.config.auth?.values).not.toHaveProperty('scopes');
    const cleared = apiError(() => plan({ externalConfig: { oauth2: { clientId: 'c' } }, updateMask: 'oauth2.clientSecret' }));
    expect(cleared.message).toMatch(/^externalConfig.oauth2.clientSecret: required for mode CLIENT_CREDENTIALS/);
  });

  it('needs tokenUrl when none is stored for the mode, and keeps a stored one on partial updates', () => {
    // Same mode, tokenUrl not in the mask: the stored one is kept.
    expect(
      plan({ externalConfig: { oauth2: { clientSecret: 'rotated' } }, updateMask: 'oauth2.clientSecret' }).config.auth?.values.tokenUrl,
    ).toBe('https://idp.example.com/token');
    // A new mode starts from nothing stored.
    const modeChange = apiError(() =>
      plan({
        externalConfig: { oauth2: { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE', clientId: 'c' } },
        updateMask: 'oauth2.mode,oauth2.clientId',
      }),
    );
    expect(modeChange.message).toMatch(/^externalConfig.oauth2.tokenUrl: required for mode AUTHORIZATION_CODE/);
    // A stored bearer token has no OAuth2 config at all.
    const bearer = storedExternal();
    bearer.config.auth = { kind: 'bearerToken', values: {}, secrets: { token: KEPT } };
    expect(
      apiError(() =>
        plan(
          {
            externalConfig: { oauth2: { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', clientId: 'c', clientSecret: 's' } },
            updateMask: 'oauth2.mode,oauth2.clientId,oauth2.clientSecret',
          },
          bearer,
        ),
      ).message,
    ).toMatch(/^externalConfig.oauth2.tokenUrl: required/);
    // Replacing the whole object through the mask is a rotation.
    expect(
      apiError(() =>
        plan({
          externalConfig: { oauth2: { mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS', clientId: 'c', clientSecret: 's' } },
          updateMask: 'oauth2',
        }),
      ).message,
    ).toMatch(/tokenUrl: required/);
  });

  it('rejects mask paths that name an auth object the request does not set, or two of them', () => {
    expect(apiError(() => plan({ externalConfig: { none: {} }, updateMask: 'bearerToken.token' })).message).toMatch(
      /^updateMask: bearerToken is in the mask but externalConfig.bearerToken is not set/,
    );
    expect(apiError(() => plan({ externalConfig: { none: {} }, updateMask: 'none,basicAuth.username' })).message).toMatch(
      /^updateMask: names more than one authentication method/,
    );
  });

  it('rejects a config of the wrong kind for the server', () => {
    const e1 = apiError(() => plan({ hostedConfig: { mcpServerCatalogId: CATALOG_ID, none: {} } }));
    expect(e1.code).toBe(Code.InvalidArgument);
    expect(e1.message).toMatch(/^hostedConfig: conn is an external server; send externalConfig/);
    expect(apiError(() => plan(ext({ none: {} }), storedHosted())).message).toMatch(
      /^externalConfig: hosted is a hosted server; send hostedConfig/,
    );
  });

  it('guards a locked endpoint URL with FailedPrecondition, comparing normalized URLs', () => {
    const locked = storedExternal({ endpointUrlLocked: true });
    const err = apiError(() => plan(ext({ url: 'https://other.example.com/mcp', none: {} }), locked));
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^externalConfig.url: the endpoint URL of conn is locked/);
    // The same URL written differently is accepted, and the stored form is kept.
    expect(plan(ext({ url: 'https://MCP.example.com:443/mcp', none: {} }), locked).config.settings.url).toBe('https://mcp.example.com/mcp');
    expect(plan({ externalConfig: { none: {} }, updateMask: 'none' }, locked).config.settings.url).toBe('https://mcp.example.com/mcp');
    // An invalid URL is InvalidArgument even on a locked server.
    expect(apiError(() => plan(ext({ url: 'http://mcp.example.com/mcp', none: {} }), locked)).code).toBe(Code.InvalidArgument);
  });

  it('checks the catalog entry and its config fields, and merges config fields by key', () => {
    const h = storedHosted();
    expect(apiError(() => plan({ hostedConfig: { mcpServerCatalogId: ksuid(), none: {} } }, h)).message).toMatch(
      /^hostedConfig.mcpServerCatalogId: no MCP catalog entry has ID/,
    );
    expect(
      apiError(() =>
        plan({ hostedConfig: { mcpServerCatalogId: CATALOG_ID, configFields: { region: 'x' } }, updateMask: 'configFields.region' }, h),
      ).message,
    ).toMatch(/^hostedConfig.configFields.region: not a config field of catalog entry .* \(known: site, apiKey\)/);
    const one = plan(
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, configFields: { site: 'us' } }, updateMask: 'configFields.site' },
      h,
    );
    expect(one.config.configFields).toEqual({ site: { value: 'us' }, apiKey: KEPT });
    expect(one.catalogEntry).toBe(CATALOG);
    const gone = plan({ hostedConfig: { mcpServerCatalogId: CATALOG_ID, configFields: {} }, updateMask: 'configFields.site' }, h);
    expect(gone.config.configFields).toEqual({ apiKey: KEPT });
    const all = plan({ hostedConfig: { mcpServerCatalogId: CATALOG_ID, configFields: { site: 'ap' } }, updateMask: 'configFields' }, h);
    expect(all.config.configFields).toEqual({ site: { value: 'ap' } });
    const auth = plan(
      { hostedConfig: { mcpServerCatalogId: CATALOG_ID, awsSigv4: { accessKeyId: 'AKIA', secretAccessKey: 'k' } }, updateMask: 'awsSigv4' },
      h,
    );
    expect(auth.config.configFields).toEqual(h.config.configFields);
    expect(auth.config.auth?.kind).toBe('awsSigv4');
  });
});

describe('helpers', () => {
  it('reports legacy OAuth2 modes as SHARED / PER_USER and passes other values through', () => {
    expect(reportedTokenSharing(TokenSharing.UNSPECIFIED, 'oauth2', OAuth2Mode.SERVICE)).toBe(TokenSharing.SHARED);
    expect(reportedTokenSharing(TokenSharing.UNSPECIFIED, 'oauth2', OAuth2Mode.PASSTHROUGH)).toBe(TokenSharing.PER_USER);
    expect(reportedTokenSharing(TokenSharing.PER_USER, 'oauth2', OAuth2Mode.AUTHORIZATION_CODE)).toBe(TokenSharing.PER_USER);
    expect(reportedTokenSharing('MCP_SERVER_TOKEN_SHARING_PER_TEAM', 'bearerToken', '')).toBe('MCP_SERVER_TOKEN_SHARING_PER_TEAM');
  });

  it('recognizes PEM RSA keys and compares URLs', () => {
    expect(isPemRsaPrivateKey(RSA_PEM)).toBe(true);
    expect(isPemRsaPrivateKey(RSA_PKCS1_PEM)).toBe(true);
    expect(isPemRsaPrivateKey(EC_PEM)).toBe(false);
    expect(isPemRsaPrivateKey('')).toBe(false);
    expect(sameEndpointUrl('https://A.example.com/x', 'https://a.example.com:443/x')).toBe(true);
    expect(sameEndpointUrl('https://a.example.com/x', 'https://a.example.com/y')).toBe(false);
    expect(parseGoogleCredentials('p', GOOGLE_JSON)).toEqual({
      clientEmail: 'robot@project.iam.gserviceaccount.com',
      tokenUri: 'https://oauth2.googleapis.com/token',
    });
    expect(shortEnum('MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER')).toBe('JWT_BEARER');
    expect(shortEnum('OPTIONAL_BOOL_TRUE')).toBe('TRUE');
    expect(shortEnum('SOMETHING_ELSE')).toBe('SOMETHING_ELSE');
  });
});
