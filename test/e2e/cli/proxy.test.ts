// agctl behind a proxy: a recording CONNECT proxy on 127.0.0.1 in front of a
// TLS tenant reached by the name tenant.test, which only the proxy turns into
// an address (127.0.0.1), so a request that went around the proxy would fail.
// The tenant's certificate is signed by a test authority the CLI trusts
// through NODE_EXTRA_CA_CERTS (read at start-up: those runs are processes).
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor, spawnCliProcess, tempDir } from '../../helpers/cli.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/proxy.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { testPki } from '../../helpers/tls.js';
import { generateListenerKey } from '../../../src/webhook/keys.js';
import { createWebhookJwt } from '../../../src/webhook/sign.js';

/** No proxy settings of the machine's own reach the runs. */
const NO_PROXIES = {
  https_proxy: undefined,
  HTTPS_PROXY: undefined,
  http_proxy: undefined,
  HTTP_PROXY: undefined,
  all_proxy: undefined,
  ALL_PROXY: undefined,
  no_proxy: undefined,
  NO_PROXY: undefined,
};
const USER = 'proxy-user';
const PASSWORD = 'pa:ss@word';
const CREDENTIALS = `${USER}:${encodeURIComponent(PASSWORD)}`;
const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

let s: TestServer;
let tls: Server;
let tenant: string;
let tenantHost: string;
let caFile: string;
/** A listener key whose public set the TLS tenant serves at /keys.jwks.json. */
const listenerKey = generateListenerKey('ES256');
const proxies: RecordingProxy[] = [];
const proxy = async (behaviour?: Parameters<typeof startRecordingProxy>[0]) => {
  const p = await startRecordingProxy(behaviour);
  proxies.push(p);
  return p;
};

beforeAll(async () => {
  s = await startTestServer();
  const pki = testPki('tenant.test');
  const handler = s.server.http.listeners('request')[0] as (...a: unknown[]) => void;
  tls = createServer({ key: pki.key, cert: pki.cert }, (req, res) => {
    if (req.url === '/keys.jwks.json')
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(listenerKey.publicJwks));
    else handler(req, res);
  });
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  tenantHost = `tenant.test:${(tls.address() as AddressInfo).port}`;
  tenant = `https://${tenantHost}`;
  caFile = join(tempDir(), 'ca.pem');
  writeFileSync(caFile, pki.caCert);
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  tls.closeAllConnections();
  await new Promise((resolve) => tls.close(resolve));
});

const configDir = tempDir();
/** The CLI in a process, trusting the test authority, with the tenant's plain client from the environment. */
const spawned = (env: Record<string, string | undefined>) =>
  cliFor(
    configDir,
    {
      ...NO_PROXIES,
      NODE_EXTRA_CA_CERTS: caFile,
      AGCTL_BASE_URL: tenant,
      AGCTL_CLIENT_ID: s.plainClient.clientId,
      AGCTL_CLIENT_SECRET: s.plainClient.clientSecret,
      ...env,
    },
    spawnCliProcess,
  );
/** The CLI in this process (for what never reaches the TLS handshake). */
const inProcess = (env: Record<string, string | undefined>) =>
  cliFor(tempDir(), { ...NO_PROXIES, AGCTL_BASE_URL: tenant, AGCTL_ACCESS_TOKEN: 'unused', ...env });

describe('through HTTPS_PROXY', () => {
  it('gets a token and lists rules through a CONNECT tunnel, TLS end to end, the credentials never shown (--debug included)', async () => {
    const p = await proxy({ requireAuthorization: BASIC });
    const r = await spawned({ HTTPS_PROXY: `http://${CREDENTIALS}@127.0.0.1:${p.port}` })([
      'rules',
      'list',
      'crm-app',
      '-o',
      'json',
      '--debug',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<unknown[]>().length).toBeGreaterThan(0);
    // Every connection was a tunnel to the tenant's name (the token request's and the API's), with the proxy's credentials.
    expect(p.records.length).toBeGreaterThanOrEqual(1);
    for (const rec of p.records) expect(rec).toEqual({ method: 'CONNECT', target: tenantHost, proxyAuthorization: BASIC });
    // The proxy saw TLS records only: neither the requests nor the client secret in clear.
    const seen = p.tunnelled().toString('latin1');
    expect(seen.length).toBeGreaterThan(0);
    for (const clear of ['POST /auth/v1/token', 'GET /api/', s.plainClient.clientSecret, 'client_credentials'])
      expect(seen).not.toContain(clear);
    // --debug names the proxy, never its credentials.
    expect(r.stderr).toContain(`through the proxy http://127.0.0.1:${p.port} (HTTPS_PROXY)`);
    for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), USER, BASIC.slice(6)]) expect(r.stderr + r.stdout).not.toContain(secret);
  });

  it('sends webhook load mode through tunnels too', async () => {
    const p = await proxy();
    const w = s.demo.webhooks;
    const url = `${tenant}${w.hmac.path}`;
    const r = await spawned({ HTTPS_PROXY: `http://127.0.0.1:${p.port}`, AGCTL_WEBHOOK_SECRET: w.hmac.secret })([
      'webhook',
      'send',
      url,
      '-d',
      '{"via":"proxy"}',
      '--count',
      '12',
      '--concurrency',
      '3',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ sent: 12, delivered: 12 });
    expect(p.records.length).toBeGreaterThanOrEqual(1);
    expect(p.records.length).toBeLessThanOrEqual(3);
    for (const rec of p.records) expect(rec).toMatchObject({ method: 'CONNECT', target: tenantHost });
    expect(p.tunnelled().toString('latin1')).not.toContain('"via":"proxy"');
  });

  it('sends one webhook event through a tunnel', async () => {
    const p = await proxy();
    const w = s.demo.webhooks;
    const r = await spawned({ HTTPS_PROXY: `http://127.0.0.1:${p.port}`, AGCTL_WEBHOOK_SECRET: w.hmac.secret })([
      'webhook',
      'send',
      `${tenant}${w.hmac.path}`,
      '-d',
      '{"one":1}',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ status: 200 });
    expect(p.records).toEqual([{ method: 'CONNECT', target: tenantHost, proxyAuthorization: undefined }]);
  });
});

describe('JWKS fetches', () => {
  it('go through the proxy too (webhook verify --jwks URL)', async () => {
    const p = await proxy();
    const endpointUrl = 'https://acme.example.com/api/v1/webhooks/incoming/L1';
    const body = '{"jwks":"via proxy"}';
    const bodyFile = join(tempDir(), 'body.json');
    writeFileSync(bodyFile, body);
    const now = Math.floor(Date.now() / 1000);
    const eventId = '3f2c1a4e-9b7d-4c1e-8f0a-2b6d5e7c9a10';
    const jwt = await createWebhookJwt({
      key: listenerKey.privateJwk,
      alg: 'ES256',
      kid: listenerKey.kid,
      tenant: 'https://acme.example.com',
      endpointUrl,
      eventId,
      body: Buffer.from(body),
      nowSeconds: now,
    });
    const headers = [
      `Webhook-Timestamp: ${now}`,
      `Webhook-Event-Id: ${eventId}`,
      'Content-Type: application/json',
      `Authorization: Bearer ${jwt}`,
    ];
    const r = await spawned({ HTTPS_PROXY: `http://127.0.0.1:${p.port}` })([
      'webhook',
      'verify',
      ...headers.flatMap((h) => ['-H', h]),
      '--body-file',
      bodyFile,
      '--jwks',
      `${tenant}/keys.jwks.json`,
      '--url',
      endpointUrl,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(p.records).toEqual([{ method: 'CONNECT', target: tenantHost, proxyAuthorization: undefined }]);
  });
});

describe('a proxy that refuses or fails is named in words (exit 9), its credentials never shown', () => {
  it('a CONNECT refused (403)', async () => {
    const p = await proxy({ refuse: 403 });
    const r = await inProcess({ HTTPS_PROXY: `http://${CREDENTIALS}@127.0.0.1:${p.port}` })(['rules', 'list', 'crm-app']);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(
      `agctl: the proxy http://127.0.0.1:${p.port} (HTTPS_PROXY) refused to connect to ${tenantHost}: 403 Forbidden`,
    );
    expect(r.stderr).toMatch(/NO_PROXY/);
    expect(p.records).toHaveLength(1); // a refusal is not retried
    expect(r.stderr).not.toContain(encodeURIComponent(PASSWORD));
    expect(r.stderr).not.toContain(USER);
  });

  it('a proxy that wants credentials (407)', async () => {
    const p = await proxy({ requireAuthorization: BASIC });
    const r = await inProcess({ https_proxy: `127.0.0.1:${p.port}` })(['rules', 'list', 'crm-app']);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(
      `the proxy http://127.0.0.1:${p.port} (https_proxy) asks for credentials (407 Proxy Authentication Required)`,
    );
    expect(r.stderr).toContain('put them in https_proxy: http://user:password@host:port');
    const wrong = await inProcess({ https_proxy: `http://${USER}:nope@127.0.0.1:${p.port}` })(['rules', 'list', 'crm-app']);
    expect(wrong.stderr).toContain('the credentials in https_proxy were not accepted');
    expect(wrong.stderr).not.toContain('nope');
  });

  it('a proxy that is not running', async () => {
    const p = await proxy();
    await p.close();
    const r = await inProcess({ HTTPS_PROXY: `http://${CREDENTIALS}@127.0.0.1:${p.port}` })(['rules', 'list', 'crm-app']);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(
      `agctl: cannot reach ${tenant}: the proxy http://127.0.0.1:${p.port} (HTTPS_PROXY) failed: connection refused`,
    );
    expect(r.stderr).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('in load mode', async () => {
    const p = await proxy({ refuse: 403 });
    const w = s.demo.webhooks;
    const r = await inProcess({ HTTPS_PROXY: `http://${CREDENTIALS}@127.0.0.1:${p.port}`, AGCTL_WEBHOOK_SECRET: w.hmac.secret })([
      'webhook',
      'send',
      `${tenant}${w.hmac.path}`,
      '-d',
      '{}',
      '--count',
      '40',
      '--concurrency',
      '2',
    ]);
    expect(r.code).toBe(9);
    expect(r.stderr + r.stdout).toContain(
      `the proxy http://127.0.0.1:${p.port} (HTTPS_PROXY) refused to connect to ${tenantHost}: 403 Forbidden`,
    );
    expect(r.stderr + r.stdout).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('a proxy URL agctl cannot use is a usage error naming the variable (exit 2)', async () => {
    const r = await inProcess({ HTTPS_PROXY: 'socks5://u:hunter2@127.0.0.1:1080' })(['rules', 'list', 'crm-app']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('agctl: HTTPS_PROXY: agctl cannot use a socks5 proxy');
    expect(r.stderr).not.toContain('hunter2');
  });
});

describe('plain http and loopback', () => {
  it('sends plain http through HTTP_PROXY as an absolute-form request', async () => {
    const p = await proxy({ requireAuthorization: BASIC });
    const port = new URL(s.baseUrl).port;
    const r = await inProcess({
      HTTP_PROXY: `http://${CREDENTIALS}@127.0.0.1:${p.port}`,
      AGCTL_BASE_URL: `http://tenant.test:${port}`,
      AGCTL_ACCESS_TOKEN: await s.token(),
    })(['rules', 'list', 'crm-app', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(p.records[0]).toEqual({
      method: 'GET',
      target: `http://tenant.test:${port}/api/v1/apps/crm-app/entitlement_configuration_rules`,
      proxyAuthorization: BASIC,
    });
    // Without the credentials, the proxy's own 407 is named as the proxy's.
    const denied = await inProcess({
      HTTP_PROXY: `http://127.0.0.1:${p.port}`,
      AGCTL_BASE_URL: `http://tenant.test:${port}`,
      AGCTL_ACCESS_TOKEN: await s.token(),
    })(['rules', 'list', 'crm-app']);
    expect(denied.code).toBe(9);
    expect(denied.stderr).toContain(
      `the proxy http://127.0.0.1:${p.port} (HTTP_PROXY) asks for credentials (407 Proxy Authentication Required)`,
    );
  });

  it('never sends a request for a loopback address to a proxy', async () => {
    const p = await proxy({ refuse: 403 });
    const all = `http://127.0.0.1:${p.port}`;
    const r = await inProcess({
      HTTPS_PROXY: all,
      HTTP_PROXY: all,
      ALL_PROXY: all,
      http_proxy: all,
      AGCTL_BASE_URL: s.baseUrl,
      AGCTL_ACCESS_TOKEN: await s.token(),
    })(['rules', 'list', 'crm-app', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(p.records).toEqual([]);
  });
});
