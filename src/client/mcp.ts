// MCP server endpoints (service-api.md §4.1, service-notes.md §3).
import type { McpServerView, UpdateCredentialsRequest, UpdateCredentialsResponse } from '../api/mcp-schema.js';
import { catalogEntryProblem, type GetCatalogEntryResponse, type McpCatalogEntry } from '../api/mcp-catalog.js';
import { MCP_LISTED_VIEW, MCP_SERVER_ANSWER } from '../api/mcp-view.js';
import { answerProblem, itemProblem } from '../api/shape.js';
import type { ApiClient } from './api.js';
import { isJsonObject, jsonKind } from '../lib/json.js';
import { checkPage, listAll, type ListAllOptions, type Page, type PageRequest } from './paginate.js';
import { checkAnswerId } from './answer-id.js';
import { pathSegment } from './paths.js';

const mcpServersPath = (appId: string) => `/api/v1/apps/${pathSegment(appId, 'app ID')}/mcp_servers`;

const mcpServerPath = (appId: string, connectorId: string) => `${mcpServersPath(appId)}/${pathSegment(connectorId, 'connector ID')}`;

export const mcpCredentialsPath = (appId: string, connectorId: string) => `${mcpServerPath(appId, connectorId)}/credentials`;

/** `mcpServer` must be a view (an object), or null where `nullable`. */
function checkServerAnswer(nullable: boolean) {
  return (b: Record<string, unknown>): string | undefined => {
    const v = b.mcpServer;
    if (v === null && nullable) return undefined;
    if (!isJsonObject(v)) return `"mcpServer" is ${v === undefined ? 'missing' : jsonKind(v)}, expected an MCP server view`;
    return answerProblem(MCP_SERVER_ANSWER, b);
  };
}

/** What is wrong with a view of a list page, if anything. */
const listedViewProblem = (v: unknown): string | undefined => itemProblem(MCP_LISTED_VIEW, v, 'an MCP server view');

/** POST .../credentials: replaces the auth config and/or config fields; answers the resulting view, or null (the contract allows it). */
export async function setMcpCredentials(
  api: ApiClient,
  appId: string,
  connectorId: string,
  body: UpdateCredentialsRequest,
): Promise<UpdateCredentialsResponse> {
  // The update sets fields to given values, so repeating it is safe.
  const res = await api.call<UpdateCredentialsResponse>('POST', mcpCredentialsPath(appId, connectorId), {
    body,
    idempotent: true,
    check: checkServerAnswer(true),
  });
  // The view shown as the result must be of the server changed.
  if (res.mcpServer) checkServerIds(res.mcpServer, appId, connectorId);
  return res;
}

/**
 * GET .../mcp_servers/{connector_id} -> `{mcpServer}`: the service's Get, a
 * route service-api.md does not list (sdk-go `docs/sdks/mcpserver/README.md`,
 * service-notes.md §3).
 */
export async function getMcpServer(api: ApiClient, appId: string, connectorId: string): Promise<{ mcpServer: McpServerView | null }> {
  const res = await api.call<{ mcpServer: McpServerView | null }>('GET', mcpServerPath(appId, connectorId), {
    check: checkServerAnswer(true),
  });
  if (res.mcpServer) checkServerIds(res.mcpServer, appId, connectorId);
  return res;
}

/**
 * A view must be of the server asked for: its `connectorId` and `appId`, when
 * it names them (the contract lets a view leave them out; the IDs typed then
 * stand in for them, docs/api-decisions.md).
 */
function checkServerIds(view: McpServerView, appId: string, connectorId: string): void {
  checkAnswerId('MCP server', connectorId, view.connectorId, { missingOk: true });
  checkAnswerId('app', appId, view.appId, { missingOk: true });
}

type ListOptions<T> = Pick<ListAllOptions<T>, 'limit' | 'pageSize'>;

/** GET .../mcp_servers?page_size=&page_token= (service-notes.md §3, List): every MCP server of an app, or the first `limit`. */
export function listAllMcpServers(api: ApiClient, appId: string, opts: ListOptions<McpServerView> = {}): Promise<McpServerView[]> {
  const page = (req: PageRequest) =>
    api.call<Page<McpServerView>>('GET', mcpServersPath(appId), {
      query: { page_size: req.pageSize, page_token: req.pageToken },
      check: checkPage(listedViewProblem, 'an array of MCP server views'),
    });
  return listAll(page, { ...opts, what: 'MCP servers', idOf: (v) => v.connectorId });
}

/** GET /api/v1/mcp_server_catalog?page_size=&page_token=&query= (service-notes.md §3, ListCatalog). */
export function listAllCatalogEntries(
  api: ApiClient,
  opts: ListOptions<McpCatalogEntry> & { query?: string } = {},
): Promise<McpCatalogEntry[]> {
  const { query, ...rest } = opts;
  const page = (req: PageRequest) =>
    api.call<Page<McpCatalogEntry>>('GET', '/api/v1/mcp_server_catalog', {
      query: { page_size: req.pageSize, page_token: req.pageToken, query: query || undefined },
      check: checkPage(catalogEntryProblem, 'an array of catalog entries'),
    });
  return listAll(page, { ...rest, what: 'catalog entries' });
}

/** GET /api/v1/mcp_server_catalog/{catalog_id} -> `{catalogEntry}` (service-notes.md §3, GetCatalog); a null entry is a bad answer. */
export async function getCatalogEntry(api: ApiClient, catalogId: string): Promise<McpCatalogEntry> {
  const res = await api.call<GetCatalogEntryResponse>('GET', `/api/v1/mcp_server_catalog/${pathSegment(catalogId, 'catalog ID')}`, {
    check: (b) => {
      const problem = catalogEntryProblem(b.catalogEntry);
      return problem && `"catalogEntry" ${problem}`;
    },
  });
  checkAnswerId('catalog entry', catalogId, (res.catalogEntry as McpCatalogEntry).id);
  return res.catalogEntry as McpCatalogEntry;
}
