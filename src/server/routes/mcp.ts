// MCP servers: the MCP catalog (list, get), the server registry with sealed
// secrets (list, get), and the credentials update (service-api.md §2.1, §2.2,
// §4.1; service-notes.md §3).
//
// Storage: one row per (app_id, connector_id). Non-secret settings are plain
// columns; the auth object's non-secret fields are JSON in auth_json; every
// secret (auth secrets as `auth.<field>`, secret catalog config fields as
// `configFields.<name>`) is sealed on its own with AES-256-GCM, the additional
// data binding app ID, connector ID and field name, and kept in secrets_json
// as a map name -> sealed value. Secrets are never opened by this module: an
// update either seals a new value or copies the stored sealed value.
import { notFound } from '../../api/errors.js';
import { AuthMethod, OAuth2Mode, ServerType, type McpServerView } from '../../api/mcp-schema.js';
import {
  AUTH_METHOD_FOR_KIND,
  KEPT,
  isAuthKind,
  reportedTokenSharing,
  type CatalogEntryInfo,
  type CredentialsPlan,
  type EffectiveConfig,
  type FieldValue,
  type StoredServer,
} from '../../api/mcp-config.js';
import { planCredentialsUpdate } from '../../api/mcp-mask.js';
import { validateCredentialsRequest } from '../../api/mcp.js';
import { seedMcp } from '../fixtures/mcp.js';
import type { ServerModule } from '../module.js';
import type { RequestContext } from '../router.js';
import type { Store } from '../store/db.js';
import { requireApp } from './apps.js';
import { isJsonObject } from '../../lib/json.js';
import { decodePageToken, pageOf, parsePageSize } from '../paging.js';
import { CATALOG_ENTRY, MCP_PAGE_SIZE_DEFAULT, MCP_PAGE_SIZE_MAX, configFieldsOf, type McpCatalogEntry } from '../../api/mcp-catalog.js';
import { viewOf } from '../../api/shape.js';
import {
  AUTH_VALUES_COLUMN,
  CATALOG_AUTH_MODES,
  CATALOG_FIELDS,
  CONFIG_VALUES,
  OAUTH2_STATE_COLUMN,
  SECRETS,
  TUNNEL_COLUMN,
  place,
} from './mcp-storage.js';

interface McpRow {
  app_id: string;
  connector_id: string;
  display_name: string;
  description: string;
  server_type: string;
  catalog_id: string;
  source_app_id: string;
  tool_prefix: string;
  data_sensitivity: string;
  endpoint_url: string;
  endpoint_url_locked: number;
  transport_type: string;
  token_sharing: string;
  require_tool_approval: string;
  auth_method: string;
  auth_kind: string;
  auth_json: string;
  secrets_json: string;
  config_fields_json: string;
  oauth2_state_json: string;
  tunnel_json: string;
  created_at: string;
  updated_at: string;
  last_called_at: string | null;
}

interface CatalogRow {
  id: string;
  display_name: string;
  service_name: string;
  description: string;
  /** CATALOG_FIELDS */
  config_fields: string;
  /** CATALOG_AUTH_MODES */
  auth_modes: string;
}

function catalogEntry(store: Store, id: string): CatalogEntryInfo | undefined {
  if (!id) return undefined;
  const row = store.db.prepare('SELECT * FROM mcp_catalog WHERE id = ?').get(id) as CatalogRow | undefined;
  return row
    ? { id: row.id, serviceName: row.service_name, configFields: configFieldsOf(CATALOG_FIELDS.value(row.config_fields)) }
    : undefined;
}

function loadServer(store: Store, appId: string, connectorId: string): McpRow {
  const row = store.db.prepare('SELECT * FROM mcp_servers WHERE app_id = ? AND connector_id = ?').get(appId, connectorId) as
    | McpRow
    | undefined;
  if (!row) throw notFound(`MCP server ${connectorId} not found in app ${appId}`);
  return row;
}

/** What the validation needs to know about a stored server; secrets stay sealed (KEPT). */
function storedServerOf(row: McpRow): StoredServer {
  const secrets = SECRETS.value(row.secrets_json);
  const kind = row.server_type === ServerType.HOSTED ? 'hosted' : 'external';
  const configFields: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(CONFIG_VALUES.value(row.config_fields_json))) configFields[k] = { value: v };
  const authSecrets: Record<string, FieldValue> = {};
  for (const name of Object.keys(secrets)) {
    if (name.startsWith('configFields.')) configFields[name.slice('configFields.'.length)] = KEPT;
    else if (name.startsWith('auth.')) authSecrets[name.slice('auth.'.length)] = KEPT;
  }
  const config: EffectiveConfig = {
    kind,
    settings: {
      url: row.endpoint_url,
      transportType: row.transport_type,
      tokenSharing: row.token_sharing,
      requireToolApproval: row.require_tool_approval,
      mcpServerCatalogId: row.catalog_id,
      sourceAppId: row.source_app_id,
    },
    configFields,
    auth: row.auth_kind ? { kind: row.auth_kind, values: AUTH_VALUES_COLUMN.value(row.auth_json), secrets: authSecrets } : null,
  };
  return {
    appId: row.app_id,
    connectorId: row.connector_id,
    serverType: row.server_type,
    endpointUrlLocked: row.endpoint_url_locked === 1,
    config,
  };
}

/** The frontend deep link where credentials can be entered; empty without a frontend URL. */
function credentialsSetupUrl(frontendUrl: string, appId: string, connectorId: string): string {
  if (!frontendUrl) return '';
  return `${frontendUrl.replace(/\/+$/, '')}/apps/${encodeURIComponent(appId)}/mcp-servers/${encodeURIComponent(connectorId)}`;
}

/** Derives the MCPServerView from a stored row (service-api.md §2.1). */
function toView(store: Store, row: McpRow, frontendUrl: string): McpServerView {
  const values = AUTH_VALUES_COLUMN.value(row.auth_json);
  const secrets = SECRETS.value(row.secrets_json);
  const state = OAUTH2_STATE_COLUMN.value(row.oauth2_state_json);
  const tunnel = TUNNEL_COLUMN.value(row.tunnel_json);
  const kind = row.auth_kind;
  const is = (k: string) => kind === k;
  const str = (n: string) => (typeof values[n] === 'string' ? (values[n] as string) : '');
  const list = (n: string) => (Array.isArray(values[n]) ? [...(values[n] as string[])] : null);
  const map = (n: string) => (isJsonObject(values[n]) ? { ...(values[n] as Record<string, string>) } : {});
  const secret = (n: string) => secrets[`auth.${n}`] !== undefined;
  const oauth = is('oauth2');
  const google = is('googleServiceAccount');
  const mode = oauth ? str('mode') || OAuth2Mode.UNSPECIFIED : google ? OAuth2Mode.GOOGLE_SERVICE_ACCOUNT : OAuth2Mode.UNSPECIFIED;
  const authCode = oauth && mode === OAuth2Mode.AUTHORIZATION_CODE;
  const hosted = row.server_type === ServerType.HOSTED;
  const entry = hosted ? catalogEntry(store, row.catalog_id) : undefined;
  const tunneled = Boolean(tunnel.bridgeId);
  return {
    appId: row.app_id,
    connectorId: row.connector_id,
    displayName: row.display_name,
    description: row.description,
    serverType: row.server_type,
    mcpServerCatalogId: row.catalog_id,
    sourceAppId: row.source_app_id,
    authMethod: row.auth_method,
    tokenSharing: reportedTokenSharing(row.token_sharing, kind, mode),
    requireToolApproval: row.require_tool_approval,
    dataSensitivity: row.data_sensitivity,
    toolPrefix: row.tool_prefix,
    defaultToolPrefix: entry?.serviceName ?? '',
    endpointUrl: hosted ? '' : row.endpoint_url,
    endpointUrlLocked: row.endpoint_url_locked === 1,
    transportType: row.transport_type,
    configFieldValues: CONFIG_VALUES.value(row.config_fields_json),
    credentialsSetupUrl: credentialsSetupUrl(frontendUrl, row.app_id, row.connector_id),
    bearerTokenConfigured: is('bearerToken') && secret('token'),
    basicAuthUsername: is('basicAuth') ? str('username') : '',
    basicAuthPasswordConfigured: is('basicAuth') && secret('password'),
    customHeaderName: is('customHeader') ? str('headerName') : '',
    customHeaderValueConfigured: is('customHeader') && secret('headerValue'),
    awsAccessKeyId: is('awsSigv4') ? str('accessKeyId') : '',
    awsSecretAccessKeyConfigured: is('awsSigv4') && secret('secretAccessKey'),
    awsSessionTokenConfigured: is('awsSigv4') && secret('sessionToken'),
    oauth2Mode: mode,
    oauth2ClientId: oauth ? str('clientId') : '',
    oauth2ClientIdMode: authCode ? str('clientIdMode') || 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_UNSPECIFIED' : '',
    oauth2ClientSecretExpiresAt: oauth ? (state.clientSecretExpiresAt ?? '0') : '0',
    oauth2CredentialsConfigured: oauth && str('clientId') !== '' && secret('clientSecret'),
    oauth2AuthorizeUrl: oauth ? str('authorizeUrl') : '',
    oauth2TokenUrl: oauth ? str('tokenUrl') : google ? str('tokenUri') : '',
    oauth2IssuerUrl: oauth ? str('issuerUrl') : '',
    oauth2Scopes: oauth || google ? list('scopes') : null,
    oauth2ScopesSupported: oauth ? list('scopesSupported') : null,
    oauth2CodeChallengeMethodsSupported: oauth ? list('codeChallengeMethodsSupported') : null,
    oauth2Pkce: authCode ? str('pkce') : '',
    // Extra parameters apply to one mode each (service-api.md §2.2); other modes ignore them, so the view does not report them.
    oauth2ExtraAuthorizeParams: authCode ? map('extraAuthorizeParams') : {},
    oauth2ExtraTokenParams: oauth && mode === OAuth2Mode.CLIENT_CREDENTIALS ? map('extraTokenParams') : {},
    oauth2TokenEndpointAuthMethod: authCode ? (state.tokenEndpointAuthMethod ?? '') : '',
    oauth2JwtAudience: oauth ? str('jwtAudience') : '',
    oauth2JwtIssuer: oauth ? str('jwtIssuer') : google ? str('clientEmail') : '',
    oauth2JwtSubject: oauth ? str('jwtSubject') : '',
    oauth2JwtPrivateKeyConfigured: (oauth && secret('jwtPrivateKey')) || (google && secret('credentialsJson')),
    oauth2ServiceAuthorized: oauth && state.serviceAuthorized === true,
    oauth2ServiceAuthorizedAsEmail: oauth ? (state.serviceAuthorizedAsEmail ?? '') : '',
    oauth2ServiceAuthorizedAsName: oauth ? (state.serviceAuthorizedAsName ?? '') : '',
    oauth2ServiceAuthorizedBy: oauth ? (state.serviceAuthorizedBy ?? '') : '',
    oauth2ServiceAuthorizedAt: oauth ? (state.serviceAuthorizedAt ?? null) : null,
    tunneled,
    tunnelBridgeId: tunneled ? (tunnel.bridgeId ?? '') : '',
    tunnelApplianceId: tunneled ? (tunnel.applianceId ?? '') : '',
    tunnelServiceName: tunneled ? (tunnel.serviceName ?? '') : '',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastCalledAt: row.last_called_at,
  };
}

/** Writes a planned update: seals new secrets, copies kept sealed values, never opens one. */
function storeUpdate(store: Store, row: McpRow, plan: CredentialsPlan, nowMs: number): void {
  const c = plan.config;
  const old = SECRETS.value(row.secrets_json);
  const secrets: Record<string, string> = {};
  const put = (name: string, v: FieldValue) => {
    if ('value' in v) {
      if (v.value !== '') secrets[name] = store.seal(v.value, ...place(row, name));
    } else if (old[name] !== undefined) {
      secrets[name] = old[name]!;
    }
  };
  if (c.auth) for (const [f, v] of Object.entries(c.auth.secrets)) put(`auth.${f}`, v);
  const secretFields = new Set((plan.catalogEntry?.configFields ?? []).filter((f) => f.secret).map((f) => f.name));
  const configValues: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.configFields)) {
    if (secretFields.has(k)) put(`configFields.${k}`, v);
    else if ('value' in v) configValues[k] = v.value;
  }
  // updatedAt moves on every update, even two within one millisecond.
  const prev = Date.parse(row.updated_at);
  const updatedAt = new Date(Number.isFinite(prev) ? Math.max(nowMs, prev + 1) : nowMs).toISOString();
  const hosted = c.kind === 'hosted';
  const authKind = c.auth?.kind ?? '';
  store.db
    .prepare(
      `UPDATE mcp_servers SET server_type = ?, catalog_id = ?, source_app_id = ?, endpoint_url = ?, transport_type = ?,
         token_sharing = ?, require_tool_approval = ?, auth_method = ?, auth_kind = ?, auth_json = ?, secrets_json = ?,
         config_fields_json = ?, oauth2_state_json = ?, updated_at = ?
       WHERE app_id = ? AND connector_id = ?`,
    )
    .run(
      hosted ? ServerType.HOSTED : ServerType.EXTERNAL,
      hosted ? c.settings.mcpServerCatalogId : '',
      hosted ? c.settings.sourceAppId : '',
      hosted ? '' : c.settings.url,
      hosted ? row.transport_type : c.settings.transportType,
      c.settings.tokenSharing,
      c.settings.requireToolApproval,
      authKind && isAuthKind(authKind) ? AUTH_METHOD_FOR_KIND[authKind] : authKind ? row.auth_method : AuthMethod.UNSPECIFIED,
      authKind,
      AUTH_VALUES_COLUMN.text(c.auth?.values ?? {}),
      SECRETS.text(secrets),
      CONFIG_VALUES.text(configValues),
      plan.authReplaced ? OAUTH2_STATE_COLUMN.text({}) : row.oauth2_state_json,
      updatedAt,
      row.app_id,
      row.connector_id,
    );
}

async function setCredentials(ctx: RequestContext) {
  const body = await ctx.json();
  const app = requireApp(ctx.store, ctx.params.app_id!);
  const connectorId = ctx.params.connector_id!;
  const view = ctx.store.write(() => {
    const row = loadServer(ctx.store, app.id, connectorId);
    const req = validateCredentialsRequest(body);
    const plan = planCredentialsUpdate(req, storedServerOf(row), (id) => catalogEntry(ctx.store, id));
    storeUpdate(ctx.store, row, plan, ctx.clock.now());
    return toView(ctx.store, loadServer(ctx.store, app.id, connectorId), ctx.server.frontendUrl);
  });
  return { body: { mcpServer: view } };
}

/**
 * GET /api/v1/apps/{app_id}/mcp_servers/{connector_id} -> `{mcpServer}`: a
 * service route that service-api.md does not list (Get in sdk-go
 * `docs/sdks/mcpserver/README.md`; `MCPServerServiceGetResponse` holds the same
 * MCPServerView as the credentials update, secrets never included). agctl reads
 * a hosted server's catalog ID with it (service-notes.md §3).
 */
function getServer(ctx: RequestContext) {
  const app = requireApp(ctx.store, ctx.params.app_id!);
  const row = loadServer(ctx.store, app.id, ctx.params.connector_id!);
  return { body: { mcpServer: toView(ctx.store, row, ctx.server.frontendUrl) } };
}

/** GET /api/v1/apps/{app_id}/mcp_servers -> `{list, nextPageToken}` (List in service-notes.md §3), by connector ID. */
function listServers(ctx: RequestContext) {
  const app = requireApp(ctx.store, ctx.params.app_id!);
  const size = parsePageSize(ctx.query.get('page_size'), MCP_PAGE_SIZE_DEFAULT, MCP_PAGE_SIZE_MAX);
  const token = ctx.query.get('page_token');
  const after = token ? decodePageToken(token, isKey, 'page_token') : '';
  const rows = ctx.store.db
    .prepare('SELECT * FROM mcp_servers WHERE app_id = ? AND connector_id > ? ORDER BY connector_id LIMIT ?')
    .all(app.id, after, size + 1) as McpRow[];
  const { page, nextPageToken } = pageOf(rows, size, (r) => r.connector_id);
  return { body: { list: page.map((r) => toView(ctx.store, r, ctx.server.frontendUrl)), nextPageToken } };
}

const isKey = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** The catalog entry as the service sends it (service-notes.md §3): `authModes[]` and `configSchema.fields[]`, no top-level `configFields`. */
const toCatalogEntry = (row: CatalogRow): McpCatalogEntry =>
  viewOf(CATALOG_ENTRY, {
    id: row.id,
    displayName: row.display_name,
    description: row.description,
    serviceName: row.service_name,
    authModes: CATALOG_AUTH_MODES.value(row.auth_modes),
    configSchema: { fields: CATALOG_FIELDS.value(row.config_fields) },
  });

/**
 * GET /api/v1/mcp_server_catalog?page_size=&page_token=&query= (ListCatalog in
 * service-notes.md §3), by display name then ID; `query` matches the display
 * name, the service name or the description, ignoring case.
 */
function listCatalog(ctx: RequestContext) {
  const size = parsePageSize(ctx.query.get('page_size'), MCP_PAGE_SIZE_DEFAULT, MCP_PAGE_SIZE_MAX);
  const token = ctx.query.get('page_token');
  const [afterName, afterId] = token ? decodePageToken(token, isCatalogKey, 'page_token') : ['', ''];
  const query = (ctx.query.get('query') ?? '').trim().toLowerCase();
  const like = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = ctx.store.db
    .prepare(
      `SELECT * FROM mcp_catalog
       WHERE (lower(display_name) LIKE @like ESCAPE '\\' OR lower(service_name) LIKE @like ESCAPE '\\' OR lower(description) LIKE @like ESCAPE '\\')
         AND (display_name > @afterName OR (display_name = @afterName AND id > @afterId))
       ORDER BY display_name, id LIMIT @limit`,
    )
    .all({ like, afterName, afterId, limit: size + 1 }) as CatalogRow[];
  const { page, nextPageToken } = pageOf(rows, size, (r) => [r.display_name, r.id]);
  return { body: { list: page.map(toCatalogEntry), nextPageToken } };
}

const isCatalogKey = (v: unknown): v is [string, string] =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';

/** GET /api/v1/mcp_server_catalog/{catalog_id} -> `{catalogEntry}` (GetCatalog in service-notes.md §3). */
function getCatalog(ctx: RequestContext) {
  const row = ctx.store.db.prepare('SELECT * FROM mcp_catalog WHERE id = ?').get(ctx.params.catalog_id!) as CatalogRow | undefined;
  if (!row) throw notFound(`MCP catalog entry ${ctx.params.catalog_id} not found`);
  return { body: { catalogEntry: toCatalogEntry(row) } };
}

export const mcpModule: ServerModule = {
  name: 'mcp',
  migrate(store) {
    store.db.exec(`
      CREATE TABLE IF NOT EXISTS mcp_catalog (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        service_name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        config_fields TEXT NOT NULL DEFAULT '[]',
        auth_modes TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS mcp_servers (
        app_id TEXT NOT NULL REFERENCES apps(id),
        connector_id TEXT NOT NULL,
        display_name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        server_type TEXT NOT NULL,
        catalog_id TEXT NOT NULL DEFAULT '',
        source_app_id TEXT NOT NULL DEFAULT '',
        tool_prefix TEXT NOT NULL DEFAULT '',
        data_sensitivity TEXT NOT NULL DEFAULT 'MCP_SERVER_DATA_SENSITIVITY_UNSPECIFIED',
        endpoint_url TEXT NOT NULL DEFAULT '',
        endpoint_url_locked INTEGER NOT NULL DEFAULT 0,
        transport_type TEXT NOT NULL DEFAULT 'MCP_SERVER_TRANSPORT_TYPE_UNSPECIFIED',
        token_sharing TEXT NOT NULL DEFAULT 'MCP_SERVER_TOKEN_SHARING_UNSPECIFIED',
        require_tool_approval TEXT NOT NULL DEFAULT 'OPTIONAL_BOOL_UNSPECIFIED',
        auth_method TEXT NOT NULL DEFAULT 'MCP_SERVER_AUTH_METHOD_UNSPECIFIED',
        auth_kind TEXT NOT NULL DEFAULT '',
        auth_json TEXT NOT NULL DEFAULT '{}',
        secrets_json TEXT NOT NULL DEFAULT '{}',
        config_fields_json TEXT NOT NULL DEFAULT '{}',
        oauth2_state_json TEXT NOT NULL DEFAULT '{}',
        tunnel_json TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_called_at TEXT,
        PRIMARY KEY (app_id, connector_id)
      );
    `);
  },
  seed: seedMcp,
  routes(router) {
    router.get('/api/v1/apps/:app_id/mcp_servers', listServers);
    router.get('/api/v1/apps/:app_id/mcp_servers/:connector_id', getServer);
    router.get('/api/v1/mcp_server_catalog', listCatalog);
    router.get('/api/v1/mcp_server_catalog/:catalog_id', getCatalog);
    router.post('/api/v1/apps/:app_id/mcp_servers/:connector_id/credentials', setCredentials, { maxBody: 256 * 1024 });
  },
};
