// MCP server credentials: rotate, replace, preview, partial updates, the
// locked URL, client-side validation, legacy OAuth2 modes and unknown enums.
// Every request carries a mask relative to the config (derived from the flags
// when none is given); a hosted server's catalog ID is read from the server.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'Set MCP server credentials';

export default async function ({ agctl, ready, work }) {
  const m = ready.demo.mcp;
  const app = m.appId;
  const file = (name, content) => {
    const path = join(work, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };

  agctl(['mcp', 'list', app]);
  agctl(['mcp', 'catalog', 'list', '--query', 'data']);
  agctl(['mcp', 'catalog', 'get', m.catalogIds.datadog]);
  agctl(['mcp', 'get', app, m.external]);
  // Rotate only the bearer token: the mask keeps the URL and everything else.
  // A path written under the config's name is sent relative to it, with a note.
  agctl(['mcp', 'set-credentials', app, m.external, '--update-mask', 'externalConfig.bearerToken.token', '--bearer-token-stdin'], {
    input: 'demo-rotated-token\n',
  });
  // Switch to a custom header whose value comes from a file: the mask names url, transportType, requireToolApproval, customHeader.
  agctl([
    'mcp',
    'set-credentials',
    app,
    m.external,
    '--url',
    'https://wiki-mcp.example.com/mcp',
    '--transport',
    'streamable-http',
    '--header-name',
    'X-Api-Key',
    '--header-value-file',
    file('wiki-header.txt', 'demo-header-value\n'),
    '--require-tool-approval',
    'true',
  ]);

  // A hosted server: preview first (every secret redacted, nothing sent), then send.
  // No --catalog-id: agctl reads the server's and sends it outside the mask.
  // The service replaces config fields as a whole: configFields.apiKey is sent
  // as configFields, with the stored (non-secret) site re-sent unchanged.
  const hosted = [
    'mcp',
    'set-credentials',
    app,
    m.hosted,
    '--hosted',
    '--update-mask',
    'awsSigv4,configFields.apiKey',
    '--config-file',
    `apiKey=${file('datadog-api-key.txt', 'demo-datadog-api-key')}`,
    '--aws-access-key-id',
    'AKIADEMOEXAMPLE',
    '--aws-secret-access-key-stdin',
  ];
  agctl([...hosted, '--dry-run'], { input: 'demo-aws-secret-key' });
  agctl(hosted, { input: 'demo-aws-secret-key' });
  // Changing the site alone would clear the stored secret apiKey: refused, nothing sent.
  agctl(['mcp', 'set-credentials', app, m.hosted, '--hosted', '--config', 'site=us5.datadoghq.com'], { expect: 2 });

  // Basic auth on the server whose URL is locked: the URL can be resent unchanged, not changed.
  agctl(
    ['mcp', 'set-credentials', app, m.locked, '--external', '--update-mask', 'basicAuth', '--username', 'svc-tickets', '--password-stdin'],
    { input: 'demo-password' },
  );
  agctl(['mcp', 'set-credentials', app, m.locked, '--url', 'https://elsewhere.example.com/mcp', '--auth', 'none'], { expect: 7 });

  // Mistakes fail before anything is sent, with the server's own message.
  agctl(['mcp', 'set-credentials', app, m.external, '--url', 'http://insecure.example.com/mcp', '--auth', 'none'], { expect: 2 });
  agctl(
    [
      'mcp',
      'set-credentials',
      app,
      m.external,
      '--url',
      'https://wiki-mcp.example.com/mcp',
      '--oauth2-mode',
      'client-credentials',
      '--oauth2-client-id',
      'wiki',
      '--oauth2-client-secret-stdin',
    ],
    { input: 'demo-client-secret', expect: 2 },
  );

  // A new auth method keeps the token sharing it does not name (PER_USER, from the legacy PASSTHROUGH mode): the dry run lists it;
  // one that cannot be PER_USER stops before anything is sent, naming the flag that accepts the change.
  agctl(['mcp', 'set-credentials', app, m.legacyPassthrough, '--auth', 'bearer', '--bearer-token-stdin', '--dry-run'], {
    input: 'demo-crm-token',
  });
  agctl(['mcp', 'set-credentials', app, m.legacyPassthrough, '--auth', 'none'], { expect: 2 });

  // A whole request from a JSON file on stdin.
  const body = {
    externalConfig: {
      url: 'https://crm-mcp.example.com/mcp',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
      oauth2: {
        mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE',
        clientIdMode: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_DCR',
        tokenUrl: 'https://idp.example.org/token',
        authorizeUrl: 'https://idp.example.org/authorize',
        pkce: 's256',
        scopes: ['openid', 'crm.read'],
      },
    },
  };
  agctl(['mcp', 'set-credentials', app, m.legacyPassthrough, '--from-file', '-', '-o', 'json'], {
    input: JSON.stringify(body),
    quiet: true,
  });

  // Legacy OAuth2 SERVICE mode is reported as SHARED; unknown enum values are shown as they are.
  agctl(['mcp', 'get', app, m.legacyService]);
  agctl(['mcp', 'get', app, m.unknownEnums]);
}
