// How the MCP routes store what the view reports but the credentials update
// does not set (runtime OAuth2 state, tunnel), and where each secret is sealed.
// Shared by the MCP routes and the demo fixtures.

/** Runtime OAuth2 state (set by authorization and dynamic client registration, not by credential updates). */
export interface OAuth2State {
  tokenEndpointAuthMethod?: string;
  clientSecretExpiresAt?: string;
  serviceAuthorized?: boolean;
  serviceAuthorizedAsEmail?: string;
  serviceAuthorizedAsName?: string;
  serviceAuthorizedBy?: string;
  serviceAuthorizedAt?: string;
}

export interface TunnelInfo {
  bridgeId?: string;
  applianceId?: string;
  serviceName?: string;
}

const SEAL_TABLE = 'mcp_servers';
/** The additional data a secret of this server is sealed with: table, app ID, connector ID and field name. */
export const place = (row: { app_id: string; connector_id: string }, field: string) => [SEAL_TABLE, row.app_id, row.connector_id, field];
