// A fake tenant for end-to-end tests: a small HTTP server that behaves as the
// service's own published clients show the real service behaves
// (service-notes.md; service-api.md where the notes are silent), written apart
// from agctl's embedded server so that the CLI and that server cannot agree on
// a mistake.
// It is strict where the service is:
// - token endpoint: key-form client assertions only (see token.ts);
// - every /api route needs a bearer token it issued (401 otherwise);
// - errors: `{"code":"<string>","message":"..."}`, and a rule not found has no message at all;
// - rules list ignores page_size and pages by its own size (rules.ts);
// - MCP: hosted requests need a catalog ID, mask paths are relative to the
//   config and others are silently ignored (mcp.ts);
// - step-up transactions are issued by the tenant (tasks.ts);
// - every /api request is validated against the vendor OpenAPI, a forbidden
//   one answered 400 and recorded in `violations`, and so is every answer of
//   its own (contract.ts);
// - with `sparse`, it answers the sparse variants the contract allows (sparse.ts).
// It imports nothing from agctl.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KNOWN_VIOLATIONS, checkAnswer, checkRequest, type Violation } from './contract.js';
import { HttpError, Router, invalidArgument, notFound, readBody, sendError, sendHtml, sendJson, toRequest } from './http.js';
import { FakeClock, ksuid } from './ids.js';
import { McpStore, registerMcp, type McpServer } from './mcp.js';
import { EndTokens, sparseAnswer } from './sparse.js';
import { RuleStore, registerRules, type RulesOptions } from './rules.js';
import { TaskStore, registerTasks } from './tasks.js';
import { TokenError, TokenIssuer, newKeyClient, type KeyClient } from './token.js';

export interface FakeTenantOptions {
  rules?: RulesOptions;
  /** Answer the sparse variant of every answer (sparse.ts): defaults left out, nulls, unknown enum values, a token on every last page. */
  sparse?: boolean;
  /** Changes an answer before it is checked against the contract and sent (a test's tenant that answers about another object). */
  rewrite?: (operationId: string, answer: unknown) => unknown;
}

/** Requests the vendor OpenAPI forbids (answered 400) and answers of this tenant it forbids (a bug of the fake). */
export interface ContractLog {
  violations: Violation[];
  /** Violations let through because KNOWN_VIOLATIONS lists them. */
  knownViolations: Violation[];
  /** The violations so far, emptied (for a test that sends a forbidden request on purpose). */
  takeViolations(): Violation[];
}

export interface FakeTenant extends ContractLog {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  /** The host name an assertion's `aud` must name: 127.0.0.1, without the port. */
  audience: string;
  /** The key-form client (`secret-token:<issuer>:v1:<key>`), acting as `userId`. */
  clientId: string;
  clientSecret: string;
  userId: string;
  /** A second client of the same tenant, acting as another user. */
  otherClient: KeyClient;
  clock: FakeClock;
  tokens: TokenIssuer;
  rules: RuleStore;
  mcp: McpStore;
  tasks: TaskStore;
  /** Seeded IDs: apps, MCP servers, the catalog entry. */
  seed: {
    rulesApp: string;
    mcpApp: string;
    externalServer: string;
    hostedServer: string;
    legacyServer: string;
    catalogId: string;
    ruleIds: string[];
  };
  /** A bearer token for the main client, issued without the token flow. */
  issueToken(client?: KeyClient): string;
  /** The stored MCP server (secrets included). */
  mcpServer(appId: string, connectorId: string): McpServer;
  /** Completes the step-up page at a redirect URL, as the person in the browser would. */
  completeStepUp(redirectUrl: string): Promise<number>;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

export async function startFakeTenant(opts: FakeTenantOptions = {}): Promise<FakeTenant> {
  const clock = new FakeClock();
  const client = await newKeyClient(`agctl-e2e-${ksuid().slice(0, 8)}`, 'conductorone.com', 'user-admin');
  const otherClient = await newKeyClient(`agctl-other-${ksuid().slice(0, 8)}`, 'conductorone.com', 'user-other');
  const tokens = new TokenIssuer([client, otherClient], HOST, clock);
  const rules = new RuleStore(clock);
  const mcp = new McpStore();
  const tasks = new TaskStore(clock, 'stepup-provider-1');
  let baseUrl = '';
  const base = () => baseUrl;

  const router = new Router();
  registerRules(router, rules, clock, opts.rules ?? {});
  registerMcp(router, mcp, clock, base);
  registerTasks(router, tasks, clock, base);
  // The caller's identity: sdk-ts OpenAPI c1.api.auth.v1.Auth.Introspect (cone's whoami reads userId from it).
  router.add('GET', '/api/v1/auth/introspect', (req) => ({ userId: req.userId }));

  const seed = seedData(rules, mcp, clock);

  const pageFor = (token: string) => tasks.transactions.find((t) => t.pageToken === token);
  const violations: Violation[] = [];
  const endTokens = new EndTokens();
  const knownViolations: Violation[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const r = toRequest(req, raw);
    if (r.path === '/auth/v1/token') {
      if (r.method !== 'POST') throw new HttpError(405, 'unimplemented', 'use POST');
      try {
        sendJson(res, 200, await tokens.token(req.headers['content-type'], raw));
      } catch (err) {
        if (!(err instanceof TokenError)) throw err;
        sendJson(res, err.status, { error: err.error, error_description: err.message });
      }
      return;
    }
    const page = /^\/step-up\/complete\/([A-Za-z0-9_-]+)$/.exec(r.path);
    if (page) {
      const tx = pageFor(page[1]!);
      if (!tx) return sendHtml(res, 404, '<!doctype html><p>No such step-up request.</p>');
      if (r.method === 'GET') return sendHtml(res, 200, '<!doctype html><form method="post"><button>Confirm it is me</button></form>');
      if (r.method !== 'POST') throw new HttpError(405, 'unimplemented', 'use GET or POST');
      try {
        tasks.verify(tx);
      } catch (err) {
        return sendHtml(res, 409, `<!doctype html><p>${(err as Error).message}</p>`);
      }
      return sendHtml(res, 200, '<!doctype html><p>Step-up complete. You can close this page.</p>');
    }
    if (!r.path.startsWith('/api/')) throw notFound(`no route ${r.path}`);
    const auth = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
    const userId = auth ? tokens.userOf(auth[1]!) : undefined;
    if (!userId) throw new HttpError(401, 'unauthenticated', 'a valid bearer token is required', { 'www-authenticate': 'Bearer' });
    r.userId = userId;
    const route = router.match(r.method, r.path);
    // The vendor's contract: a request it forbids is recorded and refused (400), whatever the route would say.
    let body: unknown;
    try {
      body = r.json();
    } catch (err) {
      violations.push({ kind: 'request', operationId: '', method: r.method, path: r.path, message: 'the body is not JSON' });
      throw err;
    }
    const { operation, problem } = await checkRequest({ method: r.method, path: r.path, query: r.query, headers: req.headers, body });
    const operationId = operation?.operationId ?? '';
    if (problem) {
      const v: Violation = { kind: 'request', operationId, method: r.method, path: r.path, message: problem };
      if (KNOWN_VIOLATIONS.some((k) => k.operationId === operationId && k.message.test(problem))) knownViolations.push(v);
      else {
        violations.push(v);
        throw invalidArgument(`the request does not follow the vendor OpenAPI${operationId ? ` (${operationId})` : ''}: ${problem}`);
      }
    }
    if (!route) throw notFound(`no route ${r.method} ${r.path}`);
    let answer: unknown;
    if (opts.sparse && endTokens.past(r.query, body)) answer = {};
    else {
      answer = await route.handler(r, route.params);
      if (opts.sparse) answer = sparseAnswer(operationId, endTokens.mark(answer), body);
    }
    if (opts.rewrite) answer = opts.rewrite(operationId, answer);
    // And so must this tenant's own answer, full or sparse.
    const wrong = operation ? await checkAnswer(operation, 200, answer) : '';
    if (wrong) violations.push({ kind: 'answer', operationId, method: r.method, path: r.path, message: wrong });
    sendJson(res, 200, answer);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return res.destroy();
      if (err instanceof HttpError) return sendError(res, err);
      sendError(res, new HttpError(500, 'internal', 'internal error'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  baseUrl = `http://${HOST}:${(server.address() as AddressInfo).port}`;

  return {
    violations,
    knownViolations,
    takeViolations: () => violations.splice(0),
    baseUrl,
    audience: HOST,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    userId: client.userId,
    otherClient,
    clock,
    tokens,
    rules,
    mcp,
    tasks,
    seed,
    issueToken: (c = client) => tokens.issue(c).access_token,
    mcpServer(appId, connectorId) {
      const s = mcp.find(appId, connectorId);
      if (!s) throw new Error(`no MCP server ${appId}/${connectorId}`);
      return s;
    },
    async completeStepUp(redirectUrl) {
      const res = await fetch(redirectUrl, { method: 'POST' });
      await res.text();
      return res.status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function seedData(rules: RuleStore, mcp: McpStore, clock: FakeClock): FakeTenant['seed'] {
  const rulesApp = 'crm-app';
  // Inserted out of order; evaluation order is (priority, id).
  const defs = [
    { id: 'rule-g', priority: 50, displayName: 'Everyone else' },
    { id: 'rule-b', priority: 10, displayName: 'Sales read-only' },
    { id: 'rule-a', priority: 10, displayName: 'Engineering admins' },
    { id: 'rule-e', priority: 30, displayName: 'Contractors' },
    { id: 'rule-c', priority: 20, displayName: 'Support agents' },
    { id: 'rule-f', priority: 40, displayName: 'Finance approvers' },
    { id: 'rule-d', priority: 30, displayName: 'Break-glass', enabled: false },
  ];
  for (const d of defs) rules.add(rulesApp, d);
  const ruleIds = rules.active(rulesApp).map((r) => r.id);

  const catalogId = ksuid();
  mcp.catalog.push(
    {
      id: catalogId,
      displayName: 'Datadog',
      serviceName: 'datadog',
      authModes: [{ authMethod: 'MCP_SERVER_AUTH_METHOD_NONE' }],
      configSchema: {
        fields: [
          {
            name: 'site',
            displayName: 'Datadog site',
            description: 'The Datadog site',
            placeholder: 'datadoghq.com',
            default: 'datadoghq.com',
            required: true,
            secret: false,
          },
          { name: 'apiKey', displayName: 'API key', required: true, secret: true },
        ],
      },
    },
    // Sparse entries: no schema, a null one, no auth modes (members the contract lets the service leave out).
    ...['GitHub', 'Jira', 'Linear', 'Notion', 'PagerDuty', 'Salesforce', 'Slack', 'Snowflake', 'Zendesk', 'Google Drive', 'Confluence'].map(
      (displayName, i) => ({
        id: ksuid(),
        displayName,
        description: `${displayName} tools`,
        serviceName: displayName.toLowerCase().replace(/ /g, '_'),
        ...(i % 3 === 0
          ? {}
          : i % 3 === 1
            ? { configSchema: null, authModes: null }
            : { configSchema: {}, authModes: [{ authMethod: 'MCP_SERVER_AUTH_METHOD_OAUTH2' }] }),
      }),
    ),
  );
  const now = new Date(clock.now()).toISOString();
  const mcpApp = 'ai-tools';
  mcp.servers.push(
    {
      appId: mcpApp,
      connectorId: 'wiki-mcp',
      displayName: 'Wiki',
      description: 'Team wiki',
      kind: 'external',
      settings: {
        url: 'https://wiki-mcp.example.com/mcp',
        transportType: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP',
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
        requireToolApproval: '',
      },
      configFields: {},
      auth: { kind: 'bearerToken', values: { token: 'initial-wiki-token' } },
      createdAt: now,
      updatedAt: now,
    },
    {
      appId: mcpApp,
      connectorId: 'datadog-mcp',
      displayName: 'Datadog',
      description: 'Metrics',
      kind: 'hosted',
      settings: {
        mcpServerCatalogId: catalogId,
        sourceAppId: '',
        tokenSharing: 'MCP_SERVER_TOKEN_SHARING_SHARED',
        requireToolApproval: '',
      },
      configFields: { site: 'datadoghq.eu', apiKey: 'initial-dd-key' },
      auth: { kind: 'none', values: {} },
      createdAt: now,
      updatedAt: now,
    },
    {
      appId: mcpApp,
      connectorId: 'crm-mcp',
      displayName: 'CRM',
      description: 'Stored under the legacy OAuth2 PASSTHROUGH mode: reported as PER_USER',
      kind: 'external',
      settings: {
        url: 'https://crm-mcp.example.com/mcp',
        transportType: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP',
        tokenSharing: '',
        requireToolApproval: 'OPTIONAL_BOOL_TRUE',
      },
      configFields: {},
      auth: {
        kind: 'oauth2',
        values: {
          mode: 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH',
          clientId: 'crm',
          issuerUrl: 'https://idp.example.org',
          tokenUrl: 'https://idp.example.org/token',
        },
      },
      createdAt: now,
      updatedAt: now,
    },
  );
  return { rulesApp, mcpApp, externalServer: 'wiki-mcp', hostedServer: 'datadog-mcp', legacyServer: 'crm-mcp', catalogId, ruleIds };
}
