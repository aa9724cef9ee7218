// MCP server endpoints (service-api.md §4.1, service-notes.md §3).
import type { McpServerView, UpdateCredentialsRequest, UpdateCredentialsResponse } from '../api/mcp-schema.js';
// Loaded for its marks: the secret fields it registers are redacted in --debug logs.
import '../api/mcp-schema.js';
import { isJsonObject, jsonKind, type ApiClient } from './api.js';
import { pathSegment } from './paths.js';

export const mcpServerPath = (appId: string, connectorId: string) =>
  `/api/v1/apps/${pathSegment(appId, 'app ID')}/mcp_servers/${pathSegment(connectorId, 'connector ID')}`;

export const mcpCredentialsPath = (appId: string, connectorId: string) => `${mcpServerPath(appId, connectorId)}/credentials`;

/** View fields the summary reads as lists or maps. Other fields are shown as they are. */
const LIST_FIELDS = ['oauth2Scopes', 'oauth2ScopesSupported', 'oauth2CodeChallengeMethodsSupported'];
const MAP_FIELDS = ['configFieldValues', 'oauth2ExtraAuthorizeParams', 'oauth2ExtraTokenParams'];

/** `mcpServer` must be a view (an object), or null where `nullable`. */
function checkServerAnswer(nullable: boolean) {
  return (b: Record<string, unknown>): string | undefined => {
    const v = b.mcpServer;
    if (v === null && nullable) return undefined;
    if (!isJsonObject(v)) return `"mcpServer" is ${v === undefined ? 'missing' : jsonKind(v)}, expected an MCP server view`;
    for (const k of LIST_FIELDS) if (v[k] !== undefined && v[k] !== null && !Array.isArray(v[k])) return `"mcpServer.${k}" is ${jsonKind(v[k])}, expected an array`;
    for (const k of MAP_FIELDS) if (v[k] !== undefined && v[k] !== null && !isJsonObject(v[k])) return `"mcpServer.${k}" is ${jsonKind(v[k])}, expected an object`;
    return undefined;
  };
}

/** POST .../credentials: replaces the auth config and/or config fields; answers the resulting view. */
export function setMcpCredentials(api: ApiClient, appId: string, connectorId: string, body: UpdateCredentialsRequest): Promise<UpdateCredentialsResponse> {
  // The update sets fields to given values, so repeating it is safe.
  return api.call<UpdateCredentialsResponse>('POST', mcpCredentialsPath(appId, connectorId), { body, idempotent: true, check: checkServerAnswer(false) });
}

/**
 * GET .../mcp_servers/{connector_id} -> `{mcpServer}`: the service's Get, a
 * route service-api.md does not list (sdk-go `docs/sdks/mcpserver/README.md`,
 * service-notes.md §3).
 */
export function getMcpServer(api: ApiClient, appId: string, connectorId: string): Promise<{ mcpServer: McpServerView | null }> {
  return api.call<{ mcpServer: McpServerView | null }>('GET', mcpServerPath(appId, connectorId), { check: checkServerAnswer(true) });
}
