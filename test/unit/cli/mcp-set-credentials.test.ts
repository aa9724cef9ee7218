// agctl mcp set-credentials in-process: flags -> request, the interactive
// walk-through with a scripted prompter, and the prompt for a missing secret.
// The flag runs are dry runs on external servers, so nothing reaches a server;
// the walk-through reads an in-process embedded server (loopback), which a run
// writes to only when a test says so.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { EXIT_INTERRUPTED, UsageError } from '../../../src/lib/exit.js';
import { CommandContext } from '../../../src/cli/context.js';
import { fakeIO } from '../../helpers/io.js';
import type { Prompter } from '../../../src/cli/prompt.js';
import {
  draftFromFlags,
  flagForPath,
  neededSecrets,
  parseEnumFlag,
  toBody,
  type SetCredentialsOptions,
} from '../../../src/cli/commands/mcp/draft.js';
import { run } from '../../../src/cli/commands/mcp/set-credentials/run.js';
import { enumLabel, toolApproval } from '../../../src/cli/commands/mcp/summary.js';
import { looksSecret } from '../../../src/cli/commands/mcp/set-credentials/secret-name.js';
import { AUTH_FIELDS, TRANSPORT_TYPES, type McpServerView } from '../../../src/api/mcp-schema.js';
import { AUTH_SECRET_FIELDS as SECRET_FIELDS, type AuthKind } from '../../../src/api/secret-fields.js';
import { validateCredentialsRequest } from '../../../src/api/mcp.js';
import { unappliedChanges } from '../../../src/cli/commands/mcp/applied.js';
import { REDACTED, redactJson } from '../../../src/client/redact.js';
import { ksuid } from '../../../src/lib/ids.js';
import { privatePem, rsaKey } from '../../helpers/keys.js';
import { startTestServer } from '../../helpers/server.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-mcp-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const RSA_PEM = privatePem(rsaKey());
const CATALOG = ksuid();

/** Pressing Enter: a question's default (the offered value, or the current choice). */
const ENTER = Symbol('Enter');
type Answer = string | boolean | typeof ENTER;
/** A prompter answering in order from a script of [message prefix, answer]; records what was asked, and which inputs were hidden. */
function scripted(script: [string, Answer][], enabled = true) {
  const asked: string[] = [];
  const hidden: string[] = [];
  /** What each prompt showed besides its message: an input's offered default, a select's choice names and descriptions. */
  const shown: string[] = [];
  const next = (message: string) => {
    asked.push(message);
    const step = script.shift();
    if (!step) throw new Error(`unexpected prompt: ${message}`);
    if (!message.startsWith(step[0])) throw new Error(`expected the prompt "${step[0]}", got "${message}"`);
    return step[1];
  };
  const p: Prompter = {
    enabled,
    input: async (m, o) => {
      if (o?.default !== undefined) shown.push(o.default);
      const a = next(m);
      const v = a === ENTER ? (o?.default ?? '') : String(a);
      if (o?.validate) {
        const ok = o.validate(v);
        if (ok !== true) throw new Error(`the answer to "${m}" fails validation: ${ok}`);
      }
      return v;
    },
    password: async (m, o) => {
      hidden.push(m);
      const v = String(next(m));
      if (o?.validate && o.validate(v) !== true) throw new Error(`the answer to "${m}" fails validation`);
      return v;
    },
    confirm: async (m, o) => {
      const a = next(m);
      return a === ENTER ? Boolean(o?.default) : Boolean(a);
    },
    select: async <T extends string>(m: string, choices: { value: T; name?: string; description?: string }[], o?: { default?: T }) => {
      asked.push(m);
      for (const c of choices) shown.push(c.name ?? '', c.description ?? '');
      const step = script.shift();
      if (!step) throw new Error(`unexpected prompt: ${m}`);
      if (!m.startsWith(step[0])) throw new Error(`expected the prompt "${step[0]}", got "${m}"`);
      const a = step[1] === ENTER ? o?.default : step[1];
      if (!choices.some((c) => c.value === a)) throw new Error(`"${String(a)}" is not a choice of "${m}"`);
      return a as T;
    },
  };
  return { p, asked, hidden, shown, left: () => script.length };
}

function context(prompter: Prompter, env: Record<string, string> = {}, flags: Record<string, unknown> = {}) {
  const { io, out, err } = fakeIO({ tty: true });
  const ctx = new CommandContext({ io, env: { AGCTL_CONFIG_DIR: join(root, 'cfg'), ...env }, flags, prompter });
  return { ctx, out, err };
}

const opts = (o: Partial<SetCredentialsOptions>): SetCredentialsOptions => ({
  appId: 'ai-tools',
  connectorId: 'wiki-mcp',
  dryRun: true,
  ...o,
});
const demoServer = startTestServer();
/** What the command's run receives for these options. */
const input = (o: Partial<SetCredentialsOptions>) => {
  const { appId, connectorId, ...flags } = opts(o);
  return { args: [appId, connectorId] as [string, string], opts: flags };
};

/** A dry run with -o json against an in-process server with the demo data (a write reads the server's view first). */
async function dryRun(o: Partial<SetCredentialsOptions>, script: [string, Answer][], env: Record<string, string> = {}) {
  const srv = await demoServer;
  const s = scripted(script);
  const c = context(
    s.p,
    { AGCTL_BASE_URL: srv.baseUrl, AGCTL_CLIENT_ID: srv.plainClient.clientId, AGCTL_CLIENT_SECRET: srv.plainClient.clientSecret, ...env },
    { output: 'json' },
  );
  const code = await run(input(o), c.ctx);
  expect(code).toBe(0);
  expect(s.left()).toBe(0);
  return { body: JSON.parse(c.out()), asked: s.asked, hidden: s.hidden, err: c.err() };
}

describe('flags -> request', () => {
  it('infers the kind and the auth method from the flags given', () => {
    const d = draftFromFlags(opts({ url: 'https://a.example.com', transport: 'SSE', tokenSharing: 'per-user', username: 'u' }));
    expect(d).toMatchObject({
      kind: 'external',
      auth: 'basicAuth',
      settings: {
        url: 'https://a.example.com',
        transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE',
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
      },
    });
    expect(toBody(d)).toEqual({
      externalConfig: {
        url: 'https://a.example.com',
        transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE',
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
        basicAuth: { username: 'u' },
      },
    });
    expect(draftFromFlags(opts({ awsAccessKeyId: 'AKIA' })).kind).toBe('hosted');
    expect(draftFromFlags(opts({ updateMask: 'configFields.site' })).kind).toBe('hosted');
    expect(draftFromFlags(opts({ updateMask: 'externalConfig.bearerToken' })).kind).toBe('external');
    expect(draftFromFlags(opts({ updateMask: 'bearerToken' })).kind).toBeUndefined();
  });

  it('builds OAuth2 fields, lists and key=value pairs', () => {
    const d = draftFromFlags(
      opts({
        url: 'https://a.example.com',
        oauth2Mode: 'client-credentials',
        oauth2ClientId: 'cid',
        oauth2TokenUrl: 'https://idp/t',
        scopes: 'a, b c',
        oauth2TokenParam: ['audience=api', 'resource=x=y'],
        oauth2ClientIdMode: 'manual',
      }),
    );
    expect(d.values).toEqual({
      mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS',
      clientId: 'cid',
      tokenUrl: 'https://idp/t',
      scopes: ['a', 'b', 'c'],
      extraTokenParams: { audience: 'api', resource: 'x=y' },
      clientIdMode: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_UNSPECIFIED',
    });
    expect(neededSecrets(d).map((s) => s.key)).toEqual(['oauth2ClientSecret']);
  });

  it('rejects contradictory flags with usage errors', () => {
    const bad: [Partial<SetCredentialsOptions>, RegExp][] = [
      [{ external: true, hosted: true }, /either --external or --hosted/],
      [{ url: 'https://a', catalogId: CATALOG }, /--url \(external\) and --catalog-id \(hosted\) cannot be combined/],
      [{ auth: 'bearer', username: 'u' }, /--username belongs to --auth basic, not --auth bearer/],
      [{ auth: 'kerberos' }, /--auth: unknown method "kerberos"/],
      [{ external: true, auth: 'aws-sigv4' }, /--auth aws-sigv4 is available for hosted servers only/],
      [{ url: 'https://a', auth: 'none', scopes: 'x' }, /--scopes applies to --auth oauth2/],
      [{ config: ['novalue'] }, /--config: expected key=value/],
      [{ config: ['a=1', 'a=2'] }, /--config: a is given twice/],
      [{ tokenSharing: 'everyone' }, /--token-sharing: unknown value "everyone"; expected one of unspecified, shared, per-user/],
      [{ external: true, updateMask: 'nope' }, /^updateMask: nope: unknown path/],
    ];
    for (const [o, message] of bad) {
      expect(() => draftFromFlags(opts(o)), JSON.stringify(o)).toThrow(UsageError);
      expect(() => draftFromFlags(opts(o))).toThrow(message);
    }
  });

  it('maps enum flags and request paths', () => {
    expect(parseEnumFlag('--transport', 'streamable-http', TRANSPORT_TYPES)).toBe('MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP');
    expect(parseEnumFlag('--transport', 'MCP_SERVER_TRANSPORT_TYPE_SSE', TRANSPORT_TYPES)).toBe('MCP_SERVER_TRANSPORT_TYPE_SSE');
    expect(flagForPath('externalConfig.oauth2.tokenUrl')).toBe('--oauth2-token-url');
    expect(flagForPath('hostedConfig.awsSigv4.secretAccessKey')).toBe(
      '--aws-secret-access-key-stdin, --aws-secret-access-key-file or AGCTL_MCP_AWS_SECRET_ACCESS_KEY',
    );
    expect(flagForPath('hostedConfig.mcpServerCatalogId')).toBe('--catalog-id');
    expect(flagForPath('externalConfig')).toBeUndefined();
    expect(enumLabel('MCP_SERVER_TRANSPORT_TYPE_SSE', TRANSPORT_TYPES)).toBe('SSE');
    expect(enumLabel('MCP_SERVER_TRANSPORT_TYPE_QUIC', TRANSPORT_TYPES)).toBe('MCP_SERVER_TRANSPORT_TYPE_QUIC');
  });

  it('words the tool approval override as the prompt and the flag help do', () => {
    expect(toolApproval('OPTIONAL_BOOL_UNSPECIFIED')).toBe('tenant default');
    expect(toolApproval(undefined)).toBe('tenant default');
    expect(toolApproval('OPTIONAL_BOOL_TRUE')).toBe('required');
    expect(toolApproval('OPTIONAL_BOOL_FALSE')).toBe('not required');
    expect(toolApproval('OPTIONAL_BOOL_MAYBE')).toBe('OPTIONAL_BOOL_MAYBE');
  });
});

describe('redaction of MCP requests (dry runs and --debug logs)', () => {
  it('redacts every secret field of every auth object and every config field value', () => {
    const body: Record<string, any> = { hostedConfig: { configFields: { site: 'eu', apiKey: 'cf-secret' } }, externalConfig: {} };
    const plain: string[] = [];
    for (const kind of Object.keys(AUTH_FIELDS) as AuthKind[]) {
      const obj: Record<string, string> = {};
      for (const field of Object.keys(AUTH_FIELDS[kind]))
        obj[field] = SECRET_FIELDS[kind].includes(field) ? `secret-${kind}-${field}` : `plain-${kind}-${field}`;
      body.hostedConfig[kind] = obj;
      plain.push(...Object.values(obj).filter((v) => v.startsWith('plain-')));
    }
    expect(Object.values(SECRET_FIELDS).flat().length).toBeGreaterThanOrEqual(8);
    const text = JSON.stringify(redactJson(body));
    expect(text).not.toMatch(/secret-|cf-secret/);
    for (const p of plain) expect(text).toContain(p);
    expect((redactJson(body) as any).hostedConfig.configFields).toEqual({ site: REDACTED, apiKey: REDACTED });
    expect(body.hostedConfig.basicAuth.password).toBe('secret-basicAuth-password');
  });
});

describe('on a terminal', () => {
  it('asks only for the missing secret, with a hidden prompt', async () => {
    const r = await dryRun({ url: 'https://a.example.com/mcp', auth: 'bearer' }, [['Bearer token', 'typed-token']]);
    // The server's token sharing and tool approval are sent with the new method (in the mask), so that they stay.
    expect(r.body).toEqual({
      externalConfig: {
        url: 'https://a.example.com/mcp',
        bearerToken: { token: '<redacted>' },
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
        requireToolApproval: 'OPTIONAL_BOOL_TRUE',
      },
      updateMask: 'url,bearerToken,tokenSharing,requireToolApproval',
    });
    expect(r.asked).toEqual(['Bearer token']);
    expect(r.err).not.toContain('typed-token');
  });

  it('sends only the fields given, masked, and asks for nothing else (the stored auth is kept)', async () => {
    const r = await dryRun({ url: 'https://a.example.com/mcp', tokenSharing: 'shared' }, []);
    expect(r.body).toEqual({
      externalConfig: { url: 'https://a.example.com/mcp', tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED' },
      updateMask: 'url,tokenSharing',
    });
    expect(r.asked).toEqual([]);
  });

  it('sends a mask path given under the config name relative to it, with a one-line note', async () => {
    const tokenFile = join(root, 'token.txt');
    writeFileSync(tokenFile, 'file-token');
    const r = await dryRun({ updateMask: 'externalConfig.bearerToken.token,tokenSharing', bearerTokenFile: tokenFile }, []);
    expect(r.body).toEqual({ externalConfig: { bearerToken: { token: '<redacted>' } }, updateMask: 'bearerToken.token,tokenSharing' });
    expect(r.err.split('\n').filter((l) => l.includes('note:'))).toEqual([
      'note: update mask paths are relative to the config; sending bearerToken.token,tokenSharing instead of externalConfig.bearerToken.token,tokenSharing',
    ]);
    // A mask already relative is sent as given, without a note.
    const plain = await dryRun({ external: true, updateMask: 'bearerToken.token', bearerTokenFile: tokenFile }, []);
    expect(plain.body.updateMask).toBe('bearerToken.token');
    expect(plain.err).not.toContain('note:');
  });

  it('refuses a request that changes nothing', async () => {
    await expect(run(input({ external: true }), context(scripted([]).p).ctx)).rejects.toThrow(/^nothing to change/);
  });

  it('takes a secret from its env var before prompting', async () => {
    const r = await dryRun({ url: 'https://a.example.com/mcp', username: 'u' }, [], { AGCTL_MCP_PASSWORD: 'from-env' });
    expect(r.body.externalConfig.basicAuth).toEqual({ username: 'u', password: '<redacted>' });
  });
});

describe('--interactive', async () => {
  // The walk-through starts from the server's view: an in-process server with the demo data.
  const srv = await startTestServer();
  const d = srv.demo.mcp;
  const env = { AGCTL_BASE_URL: srv.baseUrl, AGCTL_CLIENT_ID: srv.plainClient.clientId, AGCTL_CLIENT_SECRET: srv.plainClient.clientSecret };
  const row = (id: string) =>
    srv.server.store.db.prepare('SELECT * FROM mcp_servers WHERE app_id = ? AND connector_id = ?').get(d.appId, id);
  const on = (connectorId: string, o: Partial<SetCredentialsOptions>): Partial<SetCredentialsOptions> => ({
    appId: d.appId,
    connectorId,
    interactive: true,
    ...o,
  });
  /** A walk-through; a dry run prints the request with -o json unless `human`. */
  const walk = async (o: Partial<SetCredentialsOptions>, script: [string, Answer][], human = false) => {
    const s = scripted(script);
    const c = context(s.p, env, opts(o).dryRun && !human ? { output: 'json' } : {});
    const code = await run(input(o), c.ctx);
    expect(s.left()).toBe(0);
    return { code, asked: s.asked, hidden: s.hidden, shown: s.shown, err: c.err(), out: c.out() };
  };

  it("starts from the server's values: accepted as offered, nothing changes and nothing is sent (tool approval stays required)", async () => {
    const before = row(d.external);
    const r = await walk(on(d.external, { dryRun: undefined }), [
      ['Endpoint URL', ENTER],
      ['Transport', ENTER],
      ['Authentication method', ENTER],
      ['Keep the stored bearer token settings and secrets?', ENTER],
      ['Token sharing', ENTER],
      ['Require approval', ENTER],
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toContain('Nothing changed; nothing sent');
    expect(row(d.external)).toEqual(before);
  });

  it("values this version does not know (a newer service's) are offered as current and kept on Enter", async () => {
    const before = row(d.unknownEnums);
    const r = await walk(on(d.unknownEnums, { dryRun: undefined }), [
      ['Endpoint URL', ENTER],
      ['Transport', ENTER],
      ['Authentication method', ENTER],
      ['Require approval', ENTER],
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toContain('Nothing changed; nothing sent');
    expect(r.shown).toContain('MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET (current, not known to this version)');
    expect(r.shown).toContain('Keep the current method (MCP_SERVER_AUTH_METHOD_MUTUAL_TLS, not known to this version)');
    expect(row(d.unknownEnums)).toEqual(before);
  });

  it('before confirming shows a plain diff, not the JSON request; declined: nothing sent (exit 130)', async () => {
    const before = row(d.external);
    const r = await walk(on(d.external, { dryRun: undefined }), [
      ['Endpoint URL', 'https://wiki3.example.com/mcp'],
      ['Transport', ENTER],
      ['Authentication method', ENTER],
      ['Keep the stored bearer token settings and secrets?', false],
      ['Token sharing', ENTER],
      ['Bearer token', 'tok-SECRET-1'],
      ['Require approval', 'OPTIONAL_BOOL_UNSPECIFIED'],
      ['Send this update to MCP server wiki-mcp in app ai-tools?', false],
    ]);
    expect(r.code).toBe(EXIT_INTERRUPTED);
    const lines = r.err.split('\n');
    expect(lines).toContain('  Tool approval: required → tenant default');
    expect(lines).toContain('  URL: https://wiki-mcp.example.com/mcp → https://wiki3.example.com/mcp');
    expect(lines).toContain('  Authentication: BEARER_TOKEN, replaced');
    expect(lines).toContain('    token: a new secret value');
    // The bearer token is replaced: the stored token sharing is sent with it, and the diff says so.
    expect(lines).toContain('  Token sharing: SHARED (kept: sent with the new authentication, which the service could otherwise reset)');
    expect(r.err).not.toMatch(/Transport:|"externalConfig"/);
    expect(r.err).not.toContain('tok-SECRET-1');
    expect(r.err).toContain('Nothing sent');
    expect(row(d.external)).toEqual(before);
  });

  it('-i --dry-run shows the same plain diff as -i (the request only with -o json); a method that cannot be per-user takes SHARED, shown', async () => {
    const before = row(d.legacyPassthrough);
    const script = (): [string, Answer][] => [
      ['Endpoint URL', ENTER],
      ['Transport', ENTER],
      ['Authentication method', 'none'],
      ['Require approval', ENTER],
    ];
    const human = await walk(on(d.legacyPassthrough, { dryRun: true }), script(), true);
    expect(human.code).toBe(0);
    // PER_USER (the legacy PASSTHROUGH mode) cannot stay with no authentication: the change is in the request, and the diff says it.
    expect(human.out.split('\n')).toEqual([
      `Changes to MCP server ${d.legacyPassthrough}:`,
      '  Token sharing: PER_USER → SHARED',
      '  Authentication: OAUTH2 → NONE',
      'Update mask: tokenSharing,none',
      '',
    ]);
    expect(human.out).not.toContain('{');
    const json = await walk(on(d.legacyPassthrough, { dryRun: true }), script());
    expect(JSON.parse(json.out)).toEqual({
      externalConfig: { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED', none: {} },
      updateMask: 'tokenSharing,none',
    });
    expect(row(d.legacyPassthrough)).toEqual(before);
  });

  it('walks an external OAuth2 authorization-code setup, asking only what applies; unchanged answers stay out of the mask', async () => {
    const r = await walk(on(d.external, {}), [
      ['Endpoint URL', ENTER],
      ['Transport', 'MCP_SERVER_TRANSPORT_TYPE_SSE'],
      ['Authentication method', 'oauth2'],
      ['OAuth2 mode', 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE'],
      ['Token sharing', 'MCP_SERVER_TOKEN_SHARING_PER_USER'],
      ['How is the client ID acquired', 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_UNSPECIFIED'],
      ['Client ID', 'crm-client'],
      ['OAuth2 client secret (empty to skip)', ''],
      ['Authorization endpoint URL', 'https://idp.example.com/authorize'],
      ['Token endpoint URL', 'https://idp.example.com/token'],
      ['Scopes', 'openid crm.read'],
      ['PKCE', 's256'],
      ['Require approval', ENTER],
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      externalConfig: {
        transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE',
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
        oauth2: {
          mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE',
          clientIdMode: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_UNSPECIFIED',
          clientId: 'crm-client',
          authorizeUrl: 'https://idp.example.com/authorize',
          tokenUrl: 'https://idp.example.com/token',
          scopes: ['openid', 'crm.read'],
          pkce: 's256',
        },
        requireToolApproval: 'OPTIONAL_BOOL_TRUE',
      },
      updateMask: 'transportType,tokenSharing,oauth2,requireToolApproval',
    });
  });

  it('a hosted server: the catalog entry from a list, config fields from its schema (secret ones hidden), the stored values offered', async () => {
    const r = await walk(on(d.hosted, {}), [
      ['MCP catalog entry', ENTER],
      ['Source app ID', ENTER],
      ['Change the config fields (site, apiKey)?', true],
      ['Datadog site (site)', ENTER],
      ['API key (apiKey), secret', 'typed-api-key'],
      ['Authentication method', ENTER],
      ['Require approval', ENTER],
    ]);
    expect(r.code).toBe(0);
    expect(r.hidden).toEqual(['API key (apiKey), secret']);
    expect(r.asked.join('\n')).not.toMatch(/Is .* a secret|Config field name|Keep the stored/);
    // The stored site is offered and re-sent; the secret is redacted; the catalog ID is carried outside the mask.
    expect(JSON.parse(r.out)).toEqual({
      hostedConfig: { mcpServerCatalogId: d.catalogIds.datadog, configFields: { site: 'datadoghq.eu', apiKey: '<redacted>' } },
      updateMask: 'configFields',
    });
    expect(r.err).not.toContain('typed-api-key');
  });

  it('server text reaches the prompts escaped, and a current value holding a control character is not offered', async () => {
    const db = srv.server.store.db;
    db.prepare('UPDATE mcp_catalog SET display_name = ?, description = ? WHERE id = ?').run(
      'Data\u001b[2Jdog',
      'logs\u009b31m',
      d.catalogIds.awsBedrock,
    );
    db.prepare('UPDATE mcp_servers SET endpoint_url = ? WHERE app_id = ? AND connector_id = ?').run(
      'https://x.example.com/\u001b[31m',
      d.appId,
      d.legacyPassthrough,
    );
    const ext = await walk(on(d.legacyPassthrough, { transport: 'sse', auth: 'none', requireToolApproval: 'true' }), [
      ['Endpoint URL', 'https://crm2.example.com/mcp'],
    ]);
    expect(ext.code).toBe(0);
    const hosted = await walk(on(d.hosted, { auth: 'none', requireToolApproval: 'true' }), [
      ['MCP catalog entry', ENTER],
      ['Source app ID', ENTER],
      ['Change the config fields', false],
    ]);
    expect(hosted.code).toBe(0);
    expect(hosted.shown).toContain('Data\\x1b[2Jdog');
    for (const text of [...ext.shown, ...hosted.shown]) expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('a current value holding a control character is kept on Enter (the question says so), never cleared', async () => {
    const db = srv.server.store.db;
    const stored = row(d.hosted) as { config_fields_json: string; source_app_id: string };
    onTestFinished(() => {
      db.prepare('UPDATE mcp_servers SET source_app_id = ?, config_fields_json = ? WHERE app_id = ? AND connector_id = ?').run(
        stored.source_app_id,
        stored.config_fields_json,
        d.appId,
        d.hosted,
      );
    });
    const json = JSON.parse(stored.config_fields_json) as Record<string, unknown>;
    db.prepare('UPDATE mcp_servers SET source_app_id = ?, config_fields_json = ? WHERE app_id = ? AND connector_id = ?').run(
      'app\u001b[1m',
      JSON.stringify({ ...json, site: 'datadoghq.eu\u0007' }),
      d.appId,
      d.hosted,
    );
    const r = await walk(on(d.hosted, { dryRun: true }), [
      ['MCP catalog entry', ENTER],
      ['Source app ID (optional) [Enter keeps the current value, not shown: it holds control characters]', ENTER],
      ['Change the config fields (site, apiKey)?', true],
      ['Datadog site (site) [Enter keeps the current value, not shown: it holds control characters]', ENTER],
      ['API key (apiKey), secret', 'typed-api-key'],
      ['Authentication method', ENTER],
      ['Require approval', ENTER],
    ]);
    expect(r.code).toBe(0);
    // The source app stays out of the request; the stored site is re-sent exactly as it was.
    expect(JSON.parse(r.out)).toEqual({
      hostedConfig: { mcpServerCatalogId: d.catalogIds.datadog, configFields: { site: 'datadoghq.eu\u0007', apiKey: '<redacted>' } },
      updateMask: 'configFields',
    });
    for (const text of r.shown) expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('another catalog entry picked: its own default authentication method is offered, not the stored one', async () => {
    const r = await walk(on(d.hosted, { dryRun: true }), [
      ['MCP catalog entry', d.catalogIds.awsBedrock],
      ['Source app ID', ENTER],
      ['Set the config fields (region, knowledgeBaseId)?', ENTER],
      ['AWS region (region)', ENTER],
      ['Knowledge base ID (knowledgeBaseId)', 'kb-1'],
      ['Authentication method', ENTER],
      ['AWS access key ID', 'AKIAEXAMPLE'],
      ['AWS secret access key', 'typed-aws-secret'],
      ['Are these temporary credentials', false],
      ['Require approval', ENTER],
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      hostedConfig: {
        mcpServerCatalogId: d.catalogIds.awsBedrock,
        configFields: { region: 'us-east-1', knowledgeBaseId: 'kb-1' },
        awsSigv4: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: '<redacted>' },
      },
    });
  });

  it('a hosted AWS setup, skipping what flags gave and leaving the config fields as stored', async () => {
    const r = await walk(on(d.hosted, { hosted: true, awsAccessKeyId: 'AKIAFLAG' }), [
      ['MCP catalog entry', ENTER],
      ['Source app ID', ENTER],
      ['Change the config fields', ENTER],
      ['AWS secret access key', 'typed-aws-secret'],
      ['Are these temporary credentials', true],
      ['AWS session token', 'typed-session'],
      ['Require approval', 'OPTIONAL_BOOL_TRUE'],
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      hostedConfig: {
        mcpServerCatalogId: d.catalogIds.datadog,
        requireToolApproval: 'OPTIONAL_BOOL_TRUE',
        awsSigv4: { accessKeyId: 'AKIAFLAG', secretAccessKey: '<redacted>', sessionToken: '<redacted>' },
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
      },
      updateMask: 'requireToolApproval,awsSigv4,tokenSharing',
    });
    expect(r.asked.join('\n')).not.toMatch(/Token sharing|Authentication method|Endpoint URL/);
  });

  it('names that look like secrets', () => {
    for (const name of [
      'apiKey',
      'API_KEY',
      'APIKey',
      'apikey',
      'githubToken',
      'GITHUB_PERSONAL_ACCESS_TOKEN',
      'clientSecret',
      'client_secret',
      'password',
      'db-passwd',
      'private_key',
      'privateKeyPem',
      'signingKey',
      'key',
      'credentials',
      'Authorization',
    ]) {
      expect(looksSecret(name), name).toBe(true);
    }
    for (const name of [
      'region',
      'site',
      'audience',
      'tokenUrl',
      'keyId',
      'secretName',
      'monkey',
      'keyboardLayout',
      'baseUrl',
      'workspace',
      '',
    ]) {
      expect(looksSecret(name), name).toBe(false);
    }
  });

  it('asks for multi-line keys as a file path and checks them with the shared rules', async () => {
    const keyFile = join(root, 'jwt.pem');
    writeFileSync(keyFile, RSA_PEM);
    const r = await dryRun(
      { ...on(d.external, {}), url: 'https://a.example.com/mcp', transport: 'sse', requireToolApproval: 'false' },
      [
        ['Authentication method', 'oauth2'],
        ['OAuth2 mode', 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER'],
        ['Token endpoint URL', 'https://idp.example.com/token'],
        ['Path to the file holding the JWT private key', keyFile],
        ['JWT issuer', 'robot@example.com'],
        ['JWT subject', ''],
        ['JWT audience', ''],
        ['Scopes', ''],
      ],
      env,
    );
    expect(r.body.externalConfig.oauth2).toEqual({
      mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER',
      tokenUrl: 'https://idp.example.com/token',
      jwtPrivateKey: '<redacted>',
      jwtIssuer: 'robot@example.com',
    });
    // Token sharing is not offered for JWT bearer (SHARED only).
    expect(r.asked).not.toContain('Token sharing');

    const notKey = join(root, 'not-a-key.pem');
    writeFileSync(notKey, 'hello');
    const s = scripted([
      ['Authentication method', 'oauth2'],
      ['OAuth2 mode', 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER'],
      ['Token endpoint URL', 'https://idp.example.com/token'],
      ['Path to the file holding the JWT private key', notKey],
      ['JWT issuer', ''],
      ['JWT subject', ''],
      ['JWT audience', ''],
      ['Scopes', ''],
    ]);
    await expect(
      run(
        input({ ...on(d.external, {}), url: 'https://a.example.com/mcp', transport: 'sse', requireToolApproval: 'false' }),
        context(s.p, env).ctx,
      ),
    ).rejects.toThrow(/^externalConfig\.oauth2\.jwtPrivateKey: must be a PEM-encoded RSA private key/);
  });

  it('refuses --interactive with --update-mask, and without a terminal', async () => {
    await expect(run(input({ interactive: true, external: true, updateMask: 'url' }), context(scripted([]).p).ctx)).rejects.toThrow(
      /cannot be combined with --update-mask/,
    );
    await expect(run(input({ interactive: true }), context(scripted([], false).p).ctx)).rejects.toThrow(/--interactive needs a terminal/);
  });
});

describe('after an update: asked-for changes the returned view does not show', () => {
  const view = (over: Record<string, unknown>) =>
    ({
      endpointUrl: 'https://a.example.com/mcp',
      transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
      authMethod: 'MCP_SERVER_AUTH_METHOD_BEARER_TOKEN',
      oauth2Mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_UNSPECIFIED',
      bearerTokenConfigured: true,
      basicAuthUsername: '',
      configFieldValues: {},
      ...over,
    }) as unknown as McpServerView;
  const unseen = (body: unknown, over: Record<string, unknown> = {}) => unappliedChanges(validateCredentialsRequest(body), view(over));

  it('finds nothing when the view shows every masked change', () => {
    const body = {
      externalConfig: { url: 'https://A.example.com:443/mcp', transportType: 'MCP_SERVER_TRANSPORT_TYPE_SSE', bearerToken: { token: 't' } },
      updateMask: 'url,transportType,bearerToken',
    };
    expect(unseen(body)).toEqual([]);
  });

  it('names a secret not set, an auth method, a setting and a non-secret auth field not applied', () => {
    expect(
      unseen({ externalConfig: { bearerToken: { token: 't' } }, updateMask: 'bearerToken.token' }, { bearerTokenConfigured: false }),
    ).toEqual(['bearerTokenConfigured=true']);
    expect(unseen({ externalConfig: { basicAuth: { username: 'svc', password: 'p' } }, updateMask: 'basicAuth' })).toEqual([
      'authMethod=MCP_SERVER_AUTH_METHOD_BASIC_AUTH',
      'basicAuthUsername=svc',
      'basicAuthPasswordConfigured=true',
    ]);
    expect(unseen({ externalConfig: { url: 'https://b.example.com/mcp' }, updateMask: 'url' })).toEqual([
      'endpointUrl=https://b.example.com/mcp',
    ]);
  });

  it('judges only what the mask names, and never a secret config field the view omits', () => {
    // Outside the mask: the server ignores it, so its absence is no warning.
    expect(
      unseen(
        {
          externalConfig: { url: 'https://b.example.com/mcp', transportType: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP' },
          updateMask: 'transportType',
        },
        { transportType: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP' },
      ),
    ).toEqual([]);
    const hosted = { hostedConfig: { mcpServerCatalogId: CATALOG, configFields: { site: 'us', apiKey: 'k' } }, updateMask: 'configFields' };
    expect(unseen(hosted, { configFieldValues: { site: 'us' } })).toEqual([]);
    expect(unseen(hosted, { configFieldValues: { site: 'eu' } })).toEqual(['configFieldValues.site']);
  });

  it('expects legacy OAuth2 modes to report token sharing as their mode implies', () => {
    const legacy = {
      authMethod: 'MCP_SERVER_AUTH_METHOD_OAUTH2',
      oauth2Mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE',
      tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
    };
    expect(
      unseen({ externalConfig: { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_UNSPECIFIED' }, updateMask: 'tokenSharing' }, legacy),
    ).toEqual([]);
    expect(
      unseen(
        { externalConfig: { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_PER_USER' }, updateMask: 'tokenSharing' },
        { tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED' },
      ),
    ).toEqual(['tokenSharing=MCP_SERVER_TOKEN_SHARING_PER_USER']);
  });
});
