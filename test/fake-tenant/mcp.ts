// MCP servers (service-api.md §2.1, §2.2, §4.1; service-notes.md §3).
// - GET  /api/v1/apps/{app}/mcp_servers/{connector} -> {mcpServer}
// - GET  /api/v1/apps/{app}/mcp_servers -> {list, nextPageToken}
// - GET  /api/v1/mcp_server_catalog?page_size=&page_token=&query= -> {list, nextPageToken} (query: display name)
// - GET  /api/v1/mcp_server_catalog/{id} -> {catalogEntry}
// - POST /api/v1/apps/{app}/mcp_servers/{connector}/credentials {externalConfig | hostedConfig, updateMask}
//   * a hosted request must carry a non-empty hostedConfig.mcpServerCatalogId, even when
//     only the auth changes (400 otherwise); it is applied only when the mask names it;
//   * mask paths are relative to the config (`bearerToken`, `bearerToken.token`,
//     `tokenSharing`, `configFields`, `configFields.apiKey`); a path that names nothing
//     in the config (`externalConfig.bearerToken`, ...) matches nothing and is SILENTLY
//     ignored: 200, nothing changed, as the real service does;
//   * no mask: the whole config is replaced;
//   * naming an auth object whole replaces the auth config, and with it the token
//     sharing and tool approval settings the mask does not name: they fall back to
//     UNSPECIFIED (what an admin saw happen to a PER_USER server; see the README);
//   * rows under the legacy OAuth2 modes SERVICE / PASSTHROUGH report their token
//     sharing as SHARED / PER_USER (service-api.md §2.1);
//   * `configFields` replaces the whole map: every stored field not sent is dropped,
//     secrets included (service-notes.md §3); `configFields.<name>` (undocumented on
//     the service) changes one entry here;
//   * the answer is the view, never a secret.
import { invalidArgument, isObject, jsonObject, notFound, pageToken, str, type Request, type Router } from './http.js';
import { iso, type FakeClock } from './ids.js';

export type ConfigKind = 'external' | 'hosted';
type Values = Record<string, unknown>;

export interface McpServer {
  appId: string;
  connectorId: string;
  displayName: string;
  description: string;
  kind: ConfigKind;
  /** Settings of the config (url, transportType, mcpServerCatalogId, ...), as stored. */
  settings: Record<string, string>;
  configFields: Record<string, string>;
  /** The auth oneof as stored, secrets included (the tests read them; the view never shows them). */
  auth?: { kind: string; values: Values };
  createdAt: string;
  updatedAt: string;
}

/** A catalog entry config field (sdk-go `mcpservercatalogconfigfield.md`); members may be missing. */
export interface CatalogField {
  name: string;
  displayName?: string;
  description?: string;
  placeholder?: string;
  default?: string;
  required?: boolean;
  /** Sealed: never in the view's `configFieldValues`. */
  secret?: boolean;
}

/**
 * A catalog entry as the service sends it (service-notes.md §3): `authModes[]`
 * (the first is the default) and `configSchema.fields[]`; no top-level
 * `configFields`. Sparse entries leave members out or null.
 */
export interface CatalogEntry {
  id: string;
  displayName: string;
  description?: string;
  serviceName?: string;
  authModes?: { authMethod?: string }[] | null;
  configSchema?: { fields?: CatalogField[] | null } | null;
}

const fieldsOf = (e: CatalogEntry | undefined): CatalogField[] => e?.configSchema?.fields ?? [];

const SETTINGS: Record<ConfigKind, string[]> = {
  external: ['url', 'transportType', 'tokenSharing', 'requireToolApproval'],
  hosted: ['mcpServerCatalogId', 'sourceAppId', 'tokenSharing', 'requireToolApproval'],
};
const AUTH_KINDS: Record<ConfigKind, string[]> = {
  external: ['none', 'bearerToken', 'oauth2', 'customHeader', 'basicAuth'],
  hosted: ['none', 'bearerToken', 'oauth2', 'customHeader', 'googleServiceAccount', 'awsSigv4', 'basicAuth'],
};
const ENUMS: Record<string, string[]> = {
  transportType: ['MCP_SERVER_TRANSPORT_TYPE_UNSPECIFIED', 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP', 'MCP_SERVER_TRANSPORT_TYPE_SSE'],
  tokenSharing: ['MCP_SERVER_TOKEN_SHARING_UNSPECIFIED', 'MCP_SERVER_TOKEN_SHARING_SHARED', 'MCP_SERVER_TOKEN_SHARING_PER_USER'],
  requireToolApproval: ['OPTIONAL_BOOL_UNSPECIFIED', 'OPTIONAL_BOOL_TRUE', 'OPTIONAL_BOOL_FALSE'],
};
const AUTH_METHOD: Record<string, string> = {
  none: 'NONE',
  bearerToken: 'BEARER_TOKEN',
  oauth2: 'OAUTH2',
  googleServiceAccount: 'OAUTH2',
  customHeader: 'CUSTOM_HEADER',
  awsSigv4: 'AWS_SIGV4',
  basicAuth: 'BASIC_AUTH',
};
/** Auth methods that support PER_USER token sharing (service-api.md §2.2). */
const PER_USER_OK = new Set(['bearerToken', 'customHeader', 'basicAuth']);

export class McpStore {
  readonly servers: McpServer[] = [];
  readonly catalog: CatalogEntry[] = [];
  /** Every credentials request body received, in order. */
  readonly requests: { appId: string; connectorId: string; body: Values }[] = [];
  /** Mask paths that matched nothing and were ignored. */
  readonly ignoredMaskPaths: string[] = [];
  /** When true, a successful credentials update answers `{"mcpServer": null}` (the contract allows it). */
  answerNullView = false;

  find(appId: string, connectorId: string): McpServer | undefined {
    return this.servers.find((s) => s.appId === appId && s.connectorId === connectorId);
  }

  view(s: McpServer, baseUrl: string): Values {
    const a = s.auth?.values ?? {};
    const is = (k: string) => s.auth?.kind === k;
    const set = (v: unknown) => typeof v === 'string' && v !== '';
    const entry = this.catalog.find((c) => c.id === s.settings.mcpServerCatalogId);
    const secret = new Set(
      fieldsOf(entry)
        .filter((f) => f.secret)
        .map((f) => f.name),
    );
    const hosted = s.kind === 'hosted';
    return {
      appId: s.appId,
      connectorId: s.connectorId,
      displayName: s.displayName,
      description: s.description,
      serverType: hosted ? 'MCP_SERVER_TYPE_HOSTED' : 'MCP_SERVER_TYPE_EXTERNAL',
      mcpServerCatalogId: s.settings.mcpServerCatalogId ?? '',
      sourceAppId: s.settings.sourceAppId ?? '',
      authMethod: `MCP_SERVER_AUTH_METHOD_${s.auth ? AUTH_METHOD[s.auth.kind] : 'UNSPECIFIED'}`,
      tokenSharing: reportedTokenSharing(s),
      requireToolApproval: s.settings.requireToolApproval || 'OPTIONAL_BOOL_UNSPECIFIED',
      dataSensitivity: 'MCP_SERVER_DATA_SENSITIVITY_UNSPECIFIED',
      toolPrefix: '',
      defaultToolPrefix: hosted ? s.connectorId.replace(/-mcp$/, '') : '',
      endpointUrl: hosted ? '' : (s.settings.url ?? ''),
      endpointUrlLocked: false,
      transportType: s.settings.transportType || 'MCP_SERVER_TRANSPORT_TYPE_UNSPECIFIED',
      configFieldValues: Object.fromEntries(Object.entries(s.configFields).filter(([k]) => !secret.has(k))),
      credentialsSetupUrl: `${baseUrl}/admin/apps/${encodeURIComponent(s.appId)}/mcp/${encodeURIComponent(s.connectorId)}`,
      bearerTokenConfigured: is('bearerToken') && set(a.token),
      basicAuthUsername: is('basicAuth') ? String(a.username ?? '') : '',
      basicAuthPasswordConfigured: is('basicAuth') && set(a.password),
      customHeaderName: is('customHeader') ? String(a.headerName ?? '') : '',
      customHeaderValueConfigured: is('customHeader') && set(a.headerValue),
      awsAccessKeyId: is('awsSigv4') ? String(a.accessKeyId ?? '') : '',
      awsSecretAccessKeyConfigured: is('awsSigv4') && set(a.secretAccessKey),
      awsSessionTokenConfigured: is('awsSigv4') && set(a.sessionToken),
      oauth2Mode: is('oauth2')
        ? String(a.mode || 'MCP_SERVER_AUTH_OAUTH2_MODE_UNSPECIFIED')
        : is('googleServiceAccount')
          ? 'MCP_SERVER_AUTH_OAUTH2_MODE_GOOGLE_SERVICE_ACCOUNT'
          : 'MCP_SERVER_AUTH_OAUTH2_MODE_UNSPECIFIED',
      oauth2ClientId: is('oauth2') ? String(a.clientId ?? '') : '',
      oauth2CredentialsConfigured: is('oauth2') && set(a.clientId) && set(a.clientSecret),
      oauth2TokenUrl: is('oauth2') ? String(a.tokenUrl ?? '') : '',
      oauth2JwtPrivateKeyConfigured: is('oauth2') && set(a.jwtPrivateKey),
      oauth2Scopes: is('oauth2') && Array.isArray(a.scopes) ? a.scopes : null,
      tunneled: false,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      lastCalledAt: null,
    };
  }
}

/** Token sharing as the view reports it: the legacy OAuth2 modes SERVICE / PASSTHROUGH stand for SHARED / PER_USER. */
function reportedTokenSharing(s: McpServer): string {
  const mode = s.auth?.kind === 'oauth2' ? s.auth.values.mode : undefined;
  if (mode === 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE') return 'MCP_SERVER_TOKEN_SHARING_SHARED';
  if (mode === 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH') return 'MCP_SERVER_TOKEN_SHARING_PER_USER';
  return s.settings.tokenSharing || 'MCP_SERVER_TOKEN_SHARING_UNSPECIFIED';
}

/** Settings that live in the auth config: replacing the auth object resets those the mask does not name. */
const AUTH_CONFIG_SETTINGS = ['tokenSharing', 'requireToolApproval'];

/** The config of a request, checked member by member (types, enums, the auth oneof). */
function checkConfig(kind: ConfigKind, cfg: Values): void {
  const where = `${kind}Config.`;
  for (const k of SETTINGS[kind]) {
    const v = str(cfg, k, where);
    if (ENUMS[k] && v !== '' && !ENUMS[k].includes(v)) throw invalidArgument(`${where}${k}: invalid value ${JSON.stringify(v)}`);
  }
  if (kind === 'external') {
    const url = str(cfg, 'url', where);
    if (url !== '' && !/^https:\/\//i.test(url)) throw invalidArgument(`${where}url: HTTPS is required`);
  }
  if (cfg.configFields !== undefined && cfg.configFields !== null) {
    if (kind !== 'hosted') throw invalidArgument(`${where}configFields: unknown field`);
    if (!isObject(cfg.configFields) || Object.values(cfg.configFields).some((v) => typeof v !== 'string'))
      throw invalidArgument(`${where}configFields: expected a map of strings`);
  }
  const auths = AUTH_KINDS[kind].filter((k) => cfg[k] !== undefined && cfg[k] !== null);
  if (auths.length > 1) throw invalidArgument(`${where}: at most one authentication method may be set (got ${auths.join(', ')})`);
  for (const k of auths) if (!isObject(cfg[k])) throw invalidArgument(`${where}${k}: expected an object`);
}

const settingValue = (cfg: Values, k: string): string => (typeof cfg[k] === 'string' ? (cfg[k] as string) : '');
const clone = (v: unknown): Values => (isObject(v) ? (JSON.parse(JSON.stringify(v)) as Values) : {});

/** The server after applying a config (whole, or the masked paths); records the paths that matched nothing. */
function applyConfig(s: McpServer, kind: ConfigKind, cfg: Values, mask: string[] | null, ignored: string[]): McpServer {
  const next: McpServer = JSON.parse(JSON.stringify(s)) as McpServer;
  const auth = AUTH_KINDS[kind].find((k) => isObject(cfg[k]));
  if (mask === null) {
    for (const k of SETTINGS[kind]) next.settings[k] = settingValue(cfg, k);
    if (kind === 'hosted') next.configFields = { ...(cfg.configFields as Record<string, string> | undefined) };
    next.auth = auth ? { kind: auth, values: clone(cfg[auth]) } : undefined;
    return next;
  }
  for (const path of mask) {
    const [head = '', ...rest] = path.split('.');
    const sub = rest.join('.');
    if (SETTINGS[kind].includes(head) && !sub) {
      next.settings[head] = settingValue(cfg, head);
    } else if (kind === 'hosted' && head === 'configFields') {
      const given = (cfg.configFields ?? {}) as Record<string, string>;
      if (!sub) next.configFields = { ...given };
      else if (given[sub] !== undefined) next.configFields[sub] = given[sub];
      else delete next.configFields[sub];
    } else if (AUTH_KINDS[kind].includes(head)) {
      const given = isObject(cfg[head]) ? (cfg[head] as Values) : undefined;
      if (!sub) {
        for (const k of AUTH_CONFIG_SETTINGS) if (!mask.includes(k)) next.settings[k] = '';
        if (given) next.auth = { kind: head, values: clone(given) };
        else if (next.auth?.kind === head) next.auth = undefined;
      } else {
        if (next.auth?.kind !== head) next.auth = { kind: head, values: {} };
        if (given?.[sub] !== undefined) next.auth.values[sub] = given[sub];
        else delete next.auth.values[sub];
      }
    } else {
      ignored.push(path);
    }
  }
  return next;
}

/** Rules the handler enforces on the resulting config (service-api.md §7). */
function checkResult(s: McpServer): void {
  const perUser = s.settings.tokenSharing === 'MCP_SERVER_TOKEN_SHARING_PER_USER';
  const a = s.auth;
  if (perUser && a) {
    const ok = PER_USER_OK.has(a.kind) || (a.kind === 'oauth2' && a.values.mode === 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE');
    if (!ok) throw invalidArgument(`tokenSharing PER_USER is not supported with the ${a.kind} authentication method`);
  }
  if (a?.kind === 'basicAuth' && !perUser && !a.values.username)
    throw invalidArgument('basicAuth.username: required for SHARED token sharing');
}

/** The page a GET list asks for: `page_size` (default 10, at most 100) and `page_token` (an offset of this tenant's). */
function listPage(req: Request): { offset: number; size: number } {
  const size = Math.min(Number(req.query.get('page_size')) || 10, 100);
  const token = req.query.get('page_token') ?? '';
  return { size, offset: token ? pageToken.decode(token, (v): v is number => Number.isInteger(v) && (v as number) >= 0) : 0 };
}

export function registerMcp(router: Router, store: McpStore, clock: FakeClock, baseUrl: () => string): void {
  const server = '/api/v1/apps/{app}/mcp_servers/{connector}';

  router.add('GET', '/api/v1/apps/{app}/mcp_servers', (req, [app]) => {
    const { offset, size } = listPage(req);
    const all = store.servers.filter((s) => s.appId === app).sort((a, b) => (a.connectorId < b.connectorId ? -1 : 1));
    const page = all.slice(offset, offset + size);
    return {
      list: page.map((s) => store.view(s, baseUrl())),
      nextPageToken: offset + size < all.length ? pageToken.encode(offset + size) : '',
    };
  });

  router.add('GET', server, (_req, [app, connector]) => {
    const s = store.find(app!, connector!);
    if (!s) throw notFound(`MCP server ${connector} not found in app ${app}`);
    return { mcpServer: store.view(s, baseUrl()) };
  });

  router.add('GET', '/api/v1/mcp_server_catalog', (req) => {
    const { offset, size } = listPage(req);
    const query = (req.query.get('query') ?? '').trim().toLowerCase();
    const all = store.catalog.filter((c) => c.displayName.toLowerCase().includes(query));
    return { list: all.slice(offset, offset + size), nextPageToken: offset + size < all.length ? pageToken.encode(offset + size) : '' };
  });

  router.add('GET', '/api/v1/mcp_server_catalog/{id}', (_req, [id]) => {
    const entry = store.catalog.find((c) => c.id === id);
    if (!entry) throw notFound(`catalog entry ${id} not found`);
    return { catalogEntry: entry };
  });

  router.add('POST', `${server}/credentials`, (req, [app, connector]) => {
    const body = jsonObject(req);
    store.requests.push({ appId: app!, connectorId: connector!, body });
    const s = store.find(app!, connector!);
    if (!s) throw notFound(`MCP server ${connector} not found in app ${app}`);
    const given = (['external', 'hosted'] as const).filter((k) => body[`${k}Config`] !== undefined && body[`${k}Config`] !== null);
    if (given.length !== 1) throw invalidArgument('exactly one of externalConfig and hostedConfig must be set');
    const kind = given[0]!;
    const cfg = body[`${kind}Config`];
    if (!isObject(cfg)) throw invalidArgument(`${kind}Config: expected an object`);
    if (kind !== s.kind) throw invalidArgument(`MCP server ${connector} is ${s.kind}, not ${kind}`);
    checkConfig(kind, cfg);
    if (kind === 'hosted') {
      const catalogId = str(cfg, 'mcpServerCatalogId');
      if (catalogId === '') throw invalidArgument('hostedConfig.mcpServerCatalogId is required');
      if (!store.catalog.some((c) => c.id === catalogId))
        throw invalidArgument(`hostedConfig.mcpServerCatalogId: unknown catalog entry ${catalogId}`);
    }
    const rawMask = str(body, 'updateMask');
    const mask =
      rawMask.trim() === ''
        ? null
        : rawMask
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean);
    const next = applyConfig(s, kind, cfg, mask, store.ignoredMaskPaths);
    checkResult(next);
    if (JSON.stringify(next) !== JSON.stringify(s)) next.updatedAt = iso(clock.now());
    Object.assign(s, next);
    return { mcpServer: store.answerNullView ? null : store.view(s, baseUrl()) };
  });
}
