import { describe, expect, it } from 'vitest';
// The schema whose secret fields are redacted (it registers them when loaded).
import { AUTH_SECRET_FIELDS as SECRET_FIELDS } from '../../../src/api/secret-fields.js';
import { REDACTED, redactBody, redactForm, redactHeaders, redactJson } from '../../../src/client/redact.js';
import { hideUserinfo } from '../../../src/lib/url.js';
import { normalizeBaseUrl } from '../../../src/config/resolve.js';

describe('redactHeaders', () => {
  it('hides credentials whatever the case of the name, keeping the scheme', () => {
    const out = redactHeaders({
      Authorization: 'Bearer agt_abc',
      'proxy-authorization': 'Basic dXNlcjpwYXNz',
      cookie: 'sid=1',
      'Set-Cookie': ['a=1', 'b=2'],
      'webhook-signature': 'c2lnbmF0dXJl',
      'X-Api-Key': 'key-1',
      'X-Auth-Token': 'tok-1',
      'x-client-secret': 's-1',
      'X-Session-Id': 'sess-1',
      'webhook-event-id': '9b2f4c1e-7d3a-4e8b-9f60-1a2b3c4d5e6f',
      'content-type': 'application/json',
      accept: undefined,
    });
    expect(out).toEqual({
      'X-Auth-Token': REDACTED,
      'x-client-secret': REDACTED,
      'X-Session-Id': REDACTED,
      'webhook-event-id': '9b2f4c1e-7d3a-4e8b-9f60-1a2b3c4d5e6f',
      Authorization: `Bearer ${REDACTED}`,
      'proxy-authorization': `Basic ${REDACTED}`,
      cookie: REDACTED,
      'Set-Cookie': REDACTED,
      'webhook-signature': REDACTED,
      'X-Api-Key': REDACTED,
      'content-type': 'application/json',
      accept: undefined,
    });
    expect(redactHeaders({ authorization: 'agt_no_scheme' }).authorization).toBe(REDACTED);
  });
});

describe('redactForm', () => {
  it('hides client_secret, client_assertion and tokens and keeps the rest', () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'bot@acme.example.com/x',
      client_secret: 's3cret',
      client_assertion: 'eyJ.x.y',
      access_token: 'agt_1',
      refresh_token: 'r',
    });
    const out = redactForm(form.toString());
    expect(out).toBe(
      `grant_type=client_credentials&client_id=bot%40acme.example.com%2Fx&client_secret=${REDACTED}&client_assertion=${REDACTED}&access_token=${REDACTED}&refresh_token=${REDACTED}`,
    );
    for (const s of ['s3cret', 'eyJ.x.y', 'agt_1']) expect(out).not.toContain(s);
  });
});

describe('redactJson', () => {
  it('hides secret fields at any depth, in objects and arrays', () => {
    const input = {
      access_token: 'agt_1',
      token_type: 'Bearer',
      expires_in: 3600,
      hostedConfig: {
        mcpServerCatalogId: '2ABC',
        bearerToken: { token: 'bt-secret' },
        basicAuth: { username: 'ada', password: 'pw-secret' },
        awsSigv4: { accessKeyId: 'AKIA1', secretAccessKey: 'aws-secret', sessionToken: 'sess-secret' },
        oauth2: { clientId: 'cid', clientSecret: 'oauth-secret', jwtPrivateKey: '-----BEGIN', scopes: ['a'] },
        googleServiceAccount: { credentialsJson: '{"private_key":"x"}' },
        customHeader: { headerName: 'X-Key', headerValue: 'hv-secret' },
      },
      list: [{ secret: 'list-secret', name: 'n' }, 'plain'],
      jwk: { kty: 'OKP', crv: 'Ed25519', x: 'pub', d: 'priv' },
    };
    const out = redactJson(input) as any;
    expect(out.access_token).toBe(REDACTED);
    expect(out.token_type).toBe('Bearer');
    expect(out.expires_in).toBe(3600);
    expect(out.hostedConfig.mcpServerCatalogId).toBe('2ABC');
    expect(out.hostedConfig.bearerToken.token).toBe(REDACTED);
    expect(out.hostedConfig.basicAuth).toEqual({ username: 'ada', password: REDACTED });
    expect(out.hostedConfig.awsSigv4).toEqual({ accessKeyId: 'AKIA1', secretAccessKey: REDACTED, sessionToken: REDACTED });
    expect(out.hostedConfig.oauth2).toEqual({ clientId: 'cid', clientSecret: REDACTED, jwtPrivateKey: REDACTED, scopes: ['a'] });
    expect(out.hostedConfig.googleServiceAccount.credentialsJson).toBe(REDACTED);
    expect(out.hostedConfig.customHeader).toEqual({ headerName: 'X-Key', headerValue: REDACTED });
    expect(out.list).toEqual([{ secret: REDACTED, name: 'n' }, 'plain']);
    expect(out.jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: 'pub', d: REDACTED });
    const text = JSON.stringify(out);
    for (const s of [
      'agt_1',
      'bt-secret',
      'pw-secret',
      'aws-secret',
      'sess-secret',
      'oauth-secret',
      'BEGIN',
      'private_key',
      'hv-secret',
      'list-secret',
      'priv',
    ])
      expect(text).not.toContain(s);
    // the input is not modified
    expect(input.hostedConfig.basicAuth.password).toBe('pw-secret');
  });

  it('hides every field the request schemas mark secret, and only those of theirs', () => {
    const marked = Object.values(SECRET_FIELDS).flat();
    expect(marked).toEqual(
      expect.arrayContaining(['token', 'password', 'headerValue', 'clientSecret', 'jwtPrivateKey', 'credentialsJson']),
    );
    for (const name of marked) expect(redactJson({ [name]: 'x' }), name).toEqual({ [name]: REDACTED });
    for (const name of ['username', 'headerName', 'accessKeyId', 'clientId', 'tokenUrl'])
      expect(redactJson({ [name]: 'x' }), name).toEqual({ [name]: 'x' });
  });

  it('hides every string value of configFields (secret per catalog schema), at any depth', () => {
    const out = redactJson({
      hostedConfig: { configFields: { api_key: 'k-secret', region: 'eu', retries: 3 } },
      nested: [{ configFields: { x: 'y-secret' } }],
    }) as any;
    expect(out.hostedConfig.configFields).toEqual({ api_key: REDACTED, region: REDACTED, retries: 3 });
    expect(out.nested[0].configFields.x).toBe(REDACTED);
  });

  it("a list under a secret map's name is no map: the members of its objects stay (a catalog entry's field names)", () => {
    const out = redactJson({ configFields: [{ name: 'apiKey', displayName: 'API key', secret: true }, 'loose-string'] }) as any;
    expect(out.configFields).toEqual([{ name: 'apiKey', displayName: 'API key', secret: true }, REDACTED]);
  });

  it('keeps a __proto__ member (JSON.parse makes it an own member) as a member', () => {
    const out = redactJson(JSON.parse('{"a":1,"__proto__":{"b":"c"},"m":{"__proto__":"x"}}'));
    expect(JSON.stringify(out)).toBe('{"a":1,"__proto__":{"b":"c"},"m":{"__proto__":"x"}}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('leaves scalars and non-secret values alone', () => {
    expect(redactJson(null)).toBeNull();
    expect(redactJson('text')).toBe('text');
    expect(redactJson([1, true])).toEqual([1, true]);
    expect(redactJson({ password: null, token: 5 })).toEqual({ password: null, token: 5 });
  });
});

describe('redactBody', () => {
  it('redacts by what the body is, not by what the content type says', () => {
    // JSON labelled as a form: redacted as JSON (parsed as a form it was one key holding the secret).
    expect(redactBody('{"client_secret":"S","a":1}', 'application/x-www-form-urlencoded')).toBe(`{"client_secret":"${REDACTED}","a":1}`);
    expect(redactBody('[{"token":"T"}]', 'text/plain')).toBe(`[{"token":"${REDACTED}"}]`);
    // A form labelled as JSON, or not labelled: redacted as a form.
    expect(redactBody('client_secret=S&a=1', 'application/json')).toBe(`client_secret=${REDACTED}&a=1`);
    expect(redactBody('client_secret=S', undefined)).toBe(`client_secret=${REDACTED}`);
    // Labelled a form or JSON but neither: summarised, never shown.
    expect(redactBody('SECRET VALUE', 'application/x-www-form-urlencoded')).toBe(
      '<12 bytes of application/x-www-form-urlencoded, not shown>',
    );
    expect(redactBody('{"token":"T"', 'application/x-www-form-urlencoded')).toBe(
      '<12 bytes of application/x-www-form-urlencoded, not shown>',
    );
    expect(redactBody('"T"', 'application/json')).toBe('<3 bytes of application/json, not shown>');
  });

  it('redacts by content type and summarises what it cannot parse', () => {
    expect(redactBody('client_secret=x&a=1', 'application/x-www-form-urlencoded; charset=utf-8')).toBe(`client_secret=${REDACTED}&a=1`);
    expect(redactBody(Buffer.from('{"password":"p","a":1}'), 'application/json')).toBe(`{"password":"${REDACTED}","a":1}`);
    expect(redactBody('{"token":"t"}', undefined)).toBe(`{"token":"${REDACTED}"}`);
    expect(redactBody('not json {', 'application/json')).toBe('<10 bytes of application/json, not shown>');
    expect(redactBody('raw secret bytes', 'text/plain')).toBe('<16 bytes of text/plain, not shown>');
    expect(redactBody(undefined, 'application/json')).toBe('');
    expect(redactBody('', 'application/json')).toBe('');
    const long = redactBody(JSON.stringify({ a: 'x'.repeat(5000) }), 'application/json');
    expect(long.length).toBeLessThan(4200);
    expect(long).toMatch(/\.\.\. \(\d+ bytes\)$/);
  });
});

describe('hideUserinfo', () => {
  it('hides user:password@ in URL-like strings, parseable or not', () => {
    expect(hideUserinfo('http://user:PW@[bad/')).toBe(`http://${REDACTED}@[bad/`);
    expect(hideUserinfo('https://tok@host.example.com/x?a=b@c')).toBe(`https://${REDACTED}@host.example.com/x?a=b@c`);
    expect(hideUserinfo('https://host.example.com/a@b')).toBe('https://host.example.com/a@b');
    expect(hideUserinfo('not a url')).toBe('not a url');
  });

  it('keeps credentials out of the invalid base URL message', () => {
    expect(() => normalizeBaseUrl('http://user:PW-123@[bad/', '--base-url')).toThrow(
      `--base-url: "http://${REDACTED}@[bad/" is not a valid URL`,
    );
  });
});
