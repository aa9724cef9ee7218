// The MCP auth method table (src/api/mcp-auth.ts) is the one home of each
// method: what the rest derives from it follows it.
import { describe, expect, it } from 'vitest';
import { AUTH_KIND_LIST, AUTH_METHOD_TABLE, authKindOfView, authMethod, optionKey, perUserSupported } from '../../../src/api/mcp-auth.js';
import { AUTH_FIELDS, AUTH_KINDS, isSecretField } from '../../../src/api/mcp-schema.js';
import { AUTH_SECRET_FIELDS } from '../../../src/api/secret-fields.js';
import { command } from '../../../src/cli/commands/mcp/set-credentials/command.js';
import { draftFromFlags, SECRET_INPUTS, type SetCredentialsOptions } from '../../../src/cli/commands/mcp/draft.js';
import { environment } from '../../../src/cli/environment.js';

describe('the MCP auth method table', () => {
  it("the wire schema has each method's object, its secret fields marked as the table says", () => {
    expect(Object.keys(AUTH_FIELDS).sort()).toEqual([...AUTH_KIND_LIST].sort());
    for (const k of AUTH_KIND_LIST) {
      const fields = AUTH_FIELDS[k] as Record<string, Parameters<typeof isSecretField>[0]>;
      const secret = Object.keys(fields).filter((f) => isSecretField(fields[f]!));
      expect(secret.sort(), k).toEqual(Object.keys(AUTH_METHOD_TABLE[k].secrets).sort());
      expect(AUTH_SECRET_FIELDS[k], k).toEqual(Object.keys(AUTH_METHOD_TABLE[k].secrets));
      // Every field the table sets from a flag is a field of the object.
      for (const f of Object.keys(authMethod(k).values)) expect(Object.keys(fields), `${k}.${f}`).toContain(f);
    }
    expect(AUTH_KINDS.external).toEqual(['none', 'bearerToken', 'oauth2', 'customHeader', 'basicAuth']);
    expect(AUTH_KINDS.hosted).toEqual(['none', 'bearerToken', 'oauth2', 'customHeader', 'googleServiceAccount', 'awsSigv4', 'basicAuth']);
  });

  it('set-credentials declares every flag the table names, takes every --auth spelling and reads every variable', () => {
    const cmd = command();
    const longs = new Set(cmd.options.map((o) => o.long));
    for (const k of AUTH_KIND_LIST) {
      const spec = authMethod(k);
      for (const v of Object.values(spec.values)) if (v.flag) expect(longs, v.flag).toContain(v.flag);
      for (const s of Object.values(spec.secrets))
        for (const suffix of ['-stdin', '-file']) expect(longs, s.flag).toContain(`${s.flag}${suffix}`);
      for (const spelling of [spec.flag, ...spec.aliases, k]) {
        const d = draftFromFlags({ appId: 'a', connectorId: 'c', auth: spelling } as SetCredentialsOptions);
        expect(d.auth, spelling).toBe(k);
      }
    }
    const auth = cmd.options.find((o) => o.long === '--auth')!;
    for (const k of AUTH_KIND_LIST) expect(auth.description).toContain(authMethod(k).flag);
    const names = environment(cmd as unknown as Parameters<typeof environment>[0]).map((v) => v.name);
    for (const s of SECRET_INPUTS) {
      expect(names, s.env).toContain(s.env);
      expect(s.key).toBe(optionKey(s.flag));
    }
  });

  it("PER_USER support and the view's method, as service-api.md §2.1 and §2.2 say", () => {
    expect(AUTH_KIND_LIST.filter((k) => perUserSupported(k, ''))).toEqual(['bearerToken', 'customHeader', 'basicAuth']);
    expect(perUserSupported('oauth2', 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE')).toBe(true);
    expect(perUserSupported('oauth2', 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS')).toBe(false);
    expect(perUserSupported('mutualTls', '')).toBe(false);
    expect(authKindOfView('MCP_SERVER_AUTH_METHOD_OAUTH2', 'MCP_SERVER_AUTH_OAUTH2_MODE_GOOGLE_SERVICE_ACCOUNT')).toBe(
      'googleServiceAccount',
    );
    expect(authKindOfView('MCP_SERVER_AUTH_METHOD_OAUTH2', 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE')).toBe('oauth2');
    expect(authKindOfView('MCP_SERVER_AUTH_METHOD_AWS_SIGV4')).toBe('awsSigv4');
    expect(authKindOfView('MCP_SERVER_AUTH_METHOD_MUTUAL_TLS')).toBeUndefined();
  });
});
