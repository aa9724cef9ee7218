// How the MCP routes store what the view reports but the credentials update
// does not set (runtime OAuth2 state, tunnel), where each secret is sealed,
// and the JSON columns of the catalog and server tables (src/server/store/json.ts).
// Shared by the MCP routes and the demo fixtures.
import type { AUTH_METHOD_TABLE, AuthKind } from '../../api/mcp-auth.js';
import { CATALOG_AUTH_MODE, CATALOG_CONFIG_FIELD } from '../../api/mcp-catalog.js';
import { normalize, shape, type Infer } from '../../api/shape.js';
import { isJsonObject } from '../../lib/json.js';
import { jsonColumn, jsonColumnOf, jsonListColumn, STRING_MAP } from '../store/json.js';

/** Runtime OAuth2 state (set by authorization and dynamic client registration, not by credential updates). */
const OAUTH2_STATE = shape({
  tokenEndpointAuthMethod: { kind: 'string', optional: true },
  clientSecretExpiresAt: { kind: 'string', optional: true },
  serviceAuthorized: { kind: 'boolean', optional: true },
  serviceAuthorizedAsEmail: { kind: 'string', optional: true },
  serviceAuthorizedAsName: { kind: 'string', optional: true },
  serviceAuthorizedBy: { kind: 'string', optional: true },
  serviceAuthorizedAt: { kind: 'string', optional: true },
});
export type OAuth2State = Infer<typeof OAUTH2_STATE>;

/** The tunnel a server is reached through; none without `bridgeId`. */
const TUNNEL = shape({
  bridgeId: { kind: 'string', optional: true },
  applianceId: { kind: 'string', optional: true },
  serviceName: { kind: 'string', optional: true },
});
export type TunnelInfo = Infer<typeof TUNNEL>;

/** The non-secret field names of every auth method (AUTH_METHOD_TABLE). */
type AuthValueName = { [K in AuthKind]: keyof (typeof AUTH_METHOD_TABLE)[K]['values'] }[AuthKind];

/**
 * The non-secret fields of an auth object (the request's, checked by the
 * credentials update), each as its flag parses it; a Google service account
 * also keeps the clientEmail and tokenUri read from its key. Every method's
 * field must be declared here (the typecheck fails otherwise).
 */
const AUTH_VALUES = shape({
  mode: { kind: 'string', optional: true },
  clientId: { kind: 'string', optional: true },
  clientIdMode: { kind: 'string', optional: true },
  authorizeUrl: { kind: 'string', optional: true },
  tokenUrl: { kind: 'string', optional: true },
  issuerUrl: { kind: 'string', optional: true },
  scopes: { kind: 'strings', optional: true },
  scopesSupported: { kind: 'strings', optional: true },
  codeChallengeMethodsSupported: { kind: 'strings', optional: true },
  pkce: { kind: 'string', optional: true },
  extraAuthorizeParams: { kind: 'object', optional: true },
  extraTokenParams: { kind: 'object', optional: true },
  jwtIssuer: { kind: 'string', optional: true },
  jwtSubject: { kind: 'string', optional: true },
  jwtAudience: { kind: 'string', optional: true },
  headerName: { kind: 'string', optional: true },
  accessKeyId: { kind: 'string', optional: true },
  username: { kind: 'string', optional: true },
  clientEmail: { kind: 'string', optional: true },
  tokenUri: { kind: 'string', optional: true },
} as const satisfies { [K in AuthValueName | 'clientEmail' | 'tokenUri']: unknown });
type AuthValues = Infer<typeof AUTH_VALUES> & Record<string, unknown>;

// --- JSON columns (tables in mcp.ts) ---------------------------------------

/** mcp_catalog.config_fields: the entry's `configSchema.fields[]`. */
export const CATALOG_FIELDS = jsonListColumn(CATALOG_CONFIG_FIELD);
/** mcp_catalog.auth_modes: the entry's `authModes[]` (the first is the default). */
export const CATALOG_AUTH_MODES = jsonListColumn(CATALOG_AUTH_MODE);
/**
 * mcp_servers.auth_json: the auth object's non-secret fields. Members of a
 * method this version does not know (stored by a newer service) cannot be
 * declared, so the members AUTH_VALUES does not declare are kept as they are.
 */
export const AUTH_VALUES_COLUMN = jsonColumnOf((raw): AuthValues => {
  const obj = isJsonObject(raw) ? raw : {};
  const other = Object.entries(obj).filter(([k]) => !Object.hasOwn(AUTH_VALUES, k));
  return { ...Object.fromEntries(other), ...normalize(AUTH_VALUES, obj) };
});
/** mcp_servers.secrets_json: sealed secrets by name (`auth.<field>`, `configFields.<name>`). */
export const SECRETS = STRING_MAP;
/** mcp_servers.config_fields_json: the values of the config fields that are not secret. */
export const CONFIG_VALUES = STRING_MAP;
/** mcp_servers.oauth2_state_json */
export const OAUTH2_STATE_COLUMN = jsonColumn(OAUTH2_STATE);
/** mcp_servers.tunnel_json */
export const TUNNEL_COLUMN = jsonColumn(TUNNEL);

const SEAL_TABLE = 'mcp_servers';
/** The additional data a secret of this server is sealed with: table, app ID, connector ID and field name. */
export const place = (row: { app_id: string; connector_id: string }, field: string) => [SEAL_TABLE, row.app_id, row.connector_id, field];
