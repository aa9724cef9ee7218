// MCP server endpoints (service-api.md §4.1).
import type { McpServerView, UpdateCredentialsRequest, UpdateCredentialsResponse } from '../api/mcp.js';
import type { ApiClient } from './api.js';
import { pathSegment } from './paths.js';

export const mcpServerPath = (appId: string, connectorId: string) =>
  `/api/v1/apps/${pathSegment(appId, 'app ID')}/mcp_servers/${pathSegment(connectorId, 'connector ID')}`;

export const mcpCredentialsPath = (appId: string, connectorId: string) => `${mcpServerPath(appId, connectorId)}/credentials`;

/** POST .../credentials: replaces the auth config and/or config fields; answers the resulting view. */
export function setMcpCredentials(api: ApiClient, appId: string, connectorId: string, body: UpdateCredentialsRequest): Promise<UpdateCredentialsResponse> {
  // The update sets fields to given values, so repeating it is safe.
  return api.call<UpdateCredentialsResponse>('POST', mcpCredentialsPath(appId, connectorId), { body, idempotent: true });
}

/**
 * GET .../mcp_servers/{connector_id}. The service API in scope defines no read
 * of a single server; the embedded server offers this one, mirroring the
 * service's get, so the view can be shown without changing it.
 */
export function getMcpServer(api: ApiClient, appId: string, connectorId: string): Promise<{ mcpServer: McpServerView | null }> {
  return api.call<{ mcpServer: McpServerView | null }>('GET', mcpServerPath(appId, connectorId));
}
