// agctl mcp set-credentials / get against a tenant that requires a catalog ID
// on every hosted request, keys update masks relative to the config and
// silently ignores a mask naming the wrapper (service-notes.md §3).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommandContext } from '../../../src/cli/context.js';
import { run } from '../../../src/cli/commands/mcp/set-credentials/run.js';
import type { Prompter } from '../../../src/cli/prompt.js';
import { tempDir } from '../../helpers/cli.js';
import { fakeIO } from '../../helpers/io.js';
import { tenant, tenantCli } from './helpers.js';

describe('mcp against the fake tenant', async () => {
  const t = await tenant();
  const { cli } = tenantCli(t);
  const app = t.seed.mcpApp;
  const ext = t.seed.externalServer;
  const hosted = t.seed.hostedServer;
  const stored = (connector: string) => t.mcpServer(app, connector);
  const lastRequest = () => t.mcp.requests.at(-1)?.body as Record<string, any> | undefined;

  it('external server: a whole config with a bearer token is stored, and no secret is printed', async () => {
    const r = await cli(
      [
        'mcp',
        'set-credentials',
        app,
        ext,
        '--external',
        '--url',
        'https://wiki-mcp.example.com/mcp',
        '--auth',
        'bearer',
        '--bearer-token-stdin',
      ],
      { input: 'token-one\n' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(stored(ext).auth).toEqual({ kind: 'bearerToken', values: { token: 'token-one' } });
    expect(r.stdout + r.stderr).not.toContain('token-one');
  });

  it('external server: a new bearer token under a mask is stored', async () => {
    const r = await cli(
      ['mcp', 'set-credentials', app, ext, '--external', '--update-mask', 'bearerToken', '--auth', 'bearer', '--bearer-token-stdin'],
      { input: 'token-two\n' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(stored(ext).auth).toEqual({ kind: 'bearerToken', values: { token: 'token-two' } });
    expect(stored(ext).settings.url).toBe('https://wiki-mcp.example.com/mcp');
  });

  it('external server: a mask given as externalConfig.bearerToken still changes the token (sent relative to the config)', async () => {
    const r = await cli(
      [
        'mcp',
        'set-credentials',
        app,
        ext,
        '--external',
        '--update-mask',
        'externalConfig.bearerToken',
        '--auth',
        'bearer',
        '--bearer-token-stdin',
      ],
      { input: 'token-three\n' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(stored(ext).auth).toEqual({ kind: 'bearerToken', values: { token: 'token-three' } });
    expect(lastRequest()?.updateMask).not.toMatch(/(^|,)\s*(externalConfig|hostedConfig)\./);
    expect(t.mcp.ignoredMaskPaths).toEqual([]);
  });

  it("hosted server without --catalog-id: agctl sends the server's catalog ID and the config field is stored", async () => {
    const file = join(tempDir(), 'dd.key');
    writeFileSync(file, 'dd-key-new\n');
    const r = await cli([
      'mcp',
      'set-credentials',
      app,
      hosted,
      '--hosted',
      '--update-mask',
      'configFields.apiKey',
      '--config-file',
      `apiKey=${file}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastRequest()?.hostedConfig?.mcpServerCatalogId).toBe(t.seed.catalogId);
    // The per-key path the service does not document is sent as configFields, the stored site with it.
    expect(lastRequest()?.updateMask).toBe('configFields');
    expect(stored(hosted).configFields).toEqual({ site: 'datadoghq.eu', apiKey: 'dd-key-new' });
    expect(r.stdout + r.stderr).not.toContain('dd-key-new');
  });

  it('hosted config fields: omitting the stored secret refuses (exit 2) and sends no update', async () => {
    const before = structuredClone(stored(hosted));
    const sent = t.mcp.requests.length;
    const r = await cli(['mcp', 'set-credentials', app, hosted, '--hosted', '--config', 'site=us5.datadoghq.com']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('would clear the secret config field apiKey of datadog-mcp');
    expect(r.stderr).toMatch(/--config-stdin apiKey .* --replace-config-fields/);
    expect(t.mcp.requests.length).toBe(sent);
    expect(stored(hosted)).toEqual(before);
  });

  it('hosted config fields: giving only apiKey keeps site; changing site with apiKey given again keeps apiKey', async () => {
    const only = await cli(['mcp', 'set-credentials', app, hosted, '--hosted', '--config-stdin', 'apiKey'], { input: 'dd-key-only' });
    expect(only.code, only.stderr).toBe(0);
    expect(lastRequest()?.hostedConfig?.configFields).toEqual({ apiKey: 'dd-key-only', site: 'datadoghq.eu' });
    expect(stored(hosted).configFields).toEqual({ site: 'datadoghq.eu', apiKey: 'dd-key-only' });
    const both = await cli(
      ['mcp', 'set-credentials', app, hosted, '--hosted', '--config', 'site=us3.datadoghq.com', '--config-stdin', 'apiKey'],
      { input: 'dd-key-both' },
    );
    expect(both.code, both.stderr).toBe(0);
    expect(stored(hosted).configFields).toEqual({ site: 'us3.datadoghq.com', apiKey: 'dd-key-both' });
    const dry = await cli(['mcp', 'set-credentials', app, hosted, '--hosted', '--config-stdin', 'apiKey', '--dry-run', '-o', 'json'], {
      input: 'dd-key-dry',
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json()).toEqual({
      hostedConfig: { mcpServerCatalogId: t.seed.catalogId, configFields: { apiKey: '<redacted>', site: 'us3.datadoghq.com' } },
      updateMask: 'configFields',
    });
    // Back as seeded, for the tests that follow.
    const back = await cli(
      ['mcp', 'set-credentials', app, hosted, '--hosted', '--config', 'site=datadoghq.eu', '--config-stdin', 'apiKey'],
      { input: 'dd-key-new' },
    );
    expect(back.code, back.stderr).toBe(0);
  });

  it('a success answered {"mcpServer": null}: exit 0 with a note', async () => {
    t.mcp.answerNullView = true;
    try {
      const r = await cli(['mcp', 'set-credentials', app, ext, '--external', '--require-tool-approval', 'true']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`note: the service returned no view of MCP server ${ext}`);
      expect(stored(ext).settings.requireToolApproval).toBe('OPTIONAL_BOOL_TRUE');
    } finally {
      t.mcp.answerNullView = false;
    }
  });

  it("--interactive on a hosted server: the catalog entry from the list, its schema's fields, a plain diff, then the update", async () => {
    const answers: [string, string | boolean | null][] = [
      ['MCP catalog entry', null],
      ['Source app ID', null],
      ['Change the config fields (site, apiKey)?', true],
      ['Datadog site (site)', 'us5.datadoghq.com'],
      ['API key (apiKey), secret', 'k-tenant-typed'],
      ['Authentication method', null],
      ['Require approval', null],
      ['Send this update', true],
    ];
    const next = (m: string) => {
      const [prefix, a] = answers.shift() ?? ['', undefined];
      if (!m.startsWith(prefix)) throw new Error(`expected the prompt "${prefix}", got "${m}"`);
      return a;
    };
    const prompter: Prompter = {
      enabled: true,
      input: async (m, o) => String(next(m) ?? o?.default ?? ''),
      password: async (m) => String(next(m)),
      confirm: async (m, o) => Boolean(next(m) ?? o?.default),
      select: async <T extends string>(m: string, _c: unknown, o?: { default?: T }) => (next(m) ?? o?.default) as T,
    };
    const { io, err } = fakeIO({ tty: true });
    const ctx = new CommandContext({
      io,
      env: { AGCTL_CONFIG_DIR: join(tempDir(), 'cfg'), AGCTL_BASE_URL: t.baseUrl, AGCTL_ACCESS_TOKEN: t.issueToken() },
      flags: {},
      prompter,
    });
    const sent = t.mcp.requests.length;
    const code = await run({ args: [app, hosted], opts: { interactive: true } }, ctx);
    expect(code, err()).toBe(0);
    expect(answers).toEqual([]);
    expect(err()).toContain('  Config field site: datadoghq.eu → us5.datadoghq.com');
    expect(err()).toContain('  Config field apiKey: a new secret value');
    expect(err()).not.toContain('k-tenant-typed');
    expect(t.mcp.requests.length).toBe(sent + 1);
    expect(lastRequest()).toEqual({
      hostedConfig: { mcpServerCatalogId: t.seed.catalogId, configFields: { site: 'us5.datadoghq.com', apiKey: 'k-tenant-typed' } },
      updateMask: 'configFields',
    });
    expect(stored(hosted).configFields).toEqual({ site: 'us5.datadoghq.com', apiKey: 'k-tenant-typed' });
    // Back as seeded, for the tests that follow.
    const back = await cli(
      ['mcp', 'set-credentials', app, hosted, '--hosted', '--config', 'site=datadoghq.eu', '--config-stdin', 'apiKey'],
      { input: 'dd-key-new' },
    );
    expect(back.code, back.stderr).toBe(0);
  });

  it("catalog list and get read the service's shape, sparse entries included", async () => {
    const g = await cli(['mcp', 'catalog', 'get', t.seed.catalogId]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toMatch(/^Config fields:\s+site "Datadog site" \(required\), apiKey "API key" \(secret, required\)$/m);
    expect(g.stdout).toMatch(/^Auth modes:\s+NONE \(default\)$/m);
    const l = await cli(['mcp', 'catalog', 'list', '-o', 'json']);
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).not.toContain('<redacted>');
    const table = await cli(['mcp', 'catalog', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/Datadog\s+datadog\s+site \(required\), apiKey \(secret, required\)/);
  });

  it('hosted server without --catalog-id: a bearer token is stored and the other config fields stay', async () => {
    const r = await cli(['mcp', 'set-credentials', app, hosted, '--hosted', '--auth', 'bearer', '--bearer-token-stdin'], {
      input: 'hosted-token\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(stored(hosted).auth).toEqual({ kind: 'bearerToken', values: { token: 'hosted-token' } });
    expect(stored(hosted).settings.mcpServerCatalogId).toBe(t.seed.catalogId);
    expect(stored(hosted).configFields.site).toBe('datadoghq.eu');
  });

  it('hosted server with --catalog-id: sent as given', async () => {
    const r = await cli([
      'mcp',
      'set-credentials',
      app,
      hosted,
      '--hosted',
      '--catalog-id',
      t.seed.catalogId,
      '--update-mask',
      'requireToolApproval',
      '--require-tool-approval',
      'true',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastRequest()?.hostedConfig?.mcpServerCatalogId).toBe(t.seed.catalogId);
    expect(stored(hosted).settings.requireToolApproval).toBe('OPTIONAL_BOOL_TRUE');
  });

  it("mcp get shows the view (no secrets); an unknown server is exit 5 with the tenant's message", async () => {
    const r = await cli(['mcp', 'get', app, hosted, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      appId: app,
      connectorId: hosted,
      serverType: 'MCP_SERVER_TYPE_HOSTED',
      mcpServerCatalogId: t.seed.catalogId,
      configFieldValues: { site: 'datadoghq.eu' },
    });
    expect(r.stdout).not.toContain(String(stored(hosted).configFields.apiKey));
    const table = await cli(['mcp', 'get', app, ext]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('https://wiki-mcp.example.com/mcp');
    const missing = await cli(['mcp', 'get', app, 'nope-mcp']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('MCP server nope-mcp not found');
  });

  describe('a write keeps the token sharing and tool approval it does not name (the tenant resets them with the auth config)', () => {
    const crm = t.seed.legacyServer;

    it("the kind comes from the server's view; a dry run lists the kept settings and sends nothing", async () => {
      const sent = t.mcp.requests.length;
      const dry = await cli(['mcp', 'set-credentials', app, crm, '--auth', 'bearer', '--bearer-token-stdin', '--dry-run'], {
        input: 'crm-token-dry',
      });
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout.split('\n')).toEqual([
        `Changes to MCP server ${crm}:`,
        '  Token sharing: PER_USER (kept: sent with the new authentication, which the service could otherwise reset)',
        '  Tool approval: required (kept: sent with the new authentication, which the service could otherwise reset)',
        '  Authentication: OAUTH2 → BEARER_TOKEN',
        '    token: a new secret value',
        'Update mask: bearerToken,tokenSharing,requireToolApproval',
        '',
      ]);
      expect(dry.stdout + dry.stderr).not.toContain('crm-token-dry');
      expect(t.mcp.requests.length).toBe(sent);
    });

    it('a method that cannot keep PER_USER: exit 2 naming the flag, nothing sent', async () => {
      const sent = t.mcp.requests.length;
      const r = await cli(
        [
          'mcp',
          'set-credentials',
          app,
          crm,
          '--oauth2-mode',
          'client-credentials',
          '--oauth2-token-url',
          'https://idp.example.org/token',
          '--oauth2-client-id',
          'crm',
          '--oauth2-client-secret-stdin',
        ],
        { input: 'crm-secret' },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `agctl: MCP server ${crm} has PER_USER token sharing, which oauth2 mode CLIENT_CREDENTIALS does not support`,
      );
      expect(r.stderr).toContain('hint: pass --token-sharing shared to change it with this write');
      expect(t.mcp.requests.length).toBe(sent);
    });

    it('--auth bearer on a PER_USER server: PER_USER and the tool approval stay, and the summary lists what changed', async () => {
      const r = await cli(['mcp', 'set-credentials', app, crm, '--auth', 'bearer', '--bearer-token-stdin'], { input: 'crm-token' });
      expect(r.code, r.stderr).toBe(0);
      expect(lastRequest()).toEqual({
        externalConfig: {
          bearerToken: { token: 'crm-token' },
          tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
          requireToolApproval: 'OPTIONAL_BOOL_TRUE',
        },
        updateMask: 'bearerToken,tokenSharing,requireToolApproval',
      });
      expect(stored(crm).settings).toMatchObject({
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
        requireToolApproval: 'OPTIONAL_BOOL_TRUE',
      });
      expect(r.stdout).toMatch(/^Token sharing:\s+PER_USER$/m);
      expect(r.stderr.split('\n').filter((l) => l.includes('changed:'))).toEqual(['  changed: Authentication: OAUTH2 → BEARER_TOKEN']);
      expect(r.stderr).toContain(
        'note: keeping tokenSharing=MCP_SERVER_TOKEN_SHARING_PER_USER, requireToolApproval=OPTIONAL_BOOL_TRUE: sent with the new authentication',
      );
    });

    it('--from-file: the kept settings are added to the request the same way', async () => {
      const body = { externalConfig: { bearerToken: { token: 'crm-token-2' } }, updateMask: 'bearerToken' };
      const file = join(tempDir(), 'crm.json');
      writeFileSync(file, JSON.stringify(body));
      // --from-file is completed the same way: the kept settings go with it.
      const r = await cli(['mcp', 'set-credentials', app, crm, '--from-file', file]);
      expect(r.code, r.stderr).toBe(0);
      expect(lastRequest()?.updateMask).toBe('bearerToken,tokenSharing,requireToolApproval');
      expect(stored(crm).settings.tokenSharing).toBe('MCP_SERVER_TOKEN_SHARING_PER_USER');
    });
  });

  it('secret config fields: the summary names them, set by this write or not reported by the service; mcp get the same', async () => {
    const r = await cli(['mcp', 'set-credentials', app, hosted, '--config', 'site=datadoghq.eu', '--config-stdin', 'apiKey'], {
      input: 'dd-key-new',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Secrets:\s+bearer token: configured, config field apiKey: set by this write$/m);
    const g = await cli(['mcp', 'get', app, hosted]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toMatch(/^Secrets:\s+bearer token: configured, config field apiKey: not reported by the service$/m);
  });

  it('an error with a string code is understood: the JSON error carries the gRPC code it names', async () => {
    const r = await cli(['mcp', 'get', app, 'nope-mcp', '-o', 'json']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      status: 404,
      code: 'not_found',
      exitCode: 5,
      message: expect.stringContaining('nope-mcp'),
    });
  });
});
