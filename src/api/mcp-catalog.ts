// The MCP server catalog (service-notes.md §3: ListCatalog and GetCatalog):
// the entries a hosted MCP server is created from. The fields the CLI reads;
// a server may send more (c1i lists `channel`, `scope`, `maturity`), which
// `-o json` shows as they are.
import type { CatalogConfigField } from './mcp-config.js';

export interface McpCatalogEntry {
  /** A 27-character KSUID: the `mcpServerCatalogId` of hosted servers. */
  id: string;
  displayName: string;
  description: string;
  /** The service the entry serves: the default tool prefix of its servers. */
  serviceName: string;
  /** Config fields a hosted server of this entry takes (`configFields`); secret ones are sealed and never shown. */
  configFields: CatalogConfigField[];
  [key: string]: unknown;
}

/** GET /api/v1/mcp_server_catalog/{catalog_id} */
export interface GetCatalogEntryResponse {
  catalogEntry: McpCatalogEntry;
}

export const MCP_PAGE_SIZE_DEFAULT = 50;
export const MCP_PAGE_SIZE_MAX = 100;
