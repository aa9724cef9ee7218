// The MCP server catalog (service-notes.md §3: ListCatalog and GetCatalog):
// the entries a hosted MCP server is created from. The entry's config fields
// are `configSchema.fields[]` and its auth modes `authModes[]` (the first is
// the catalog's default); there is no top-level `configFields` member. Every
// member may be missing or null (vendor OpenAPI), so the CLI reads an entry
// only through the functions below; `-o json` prints it as received.
import { isJsonObject } from '../lib/json.js';

/** A config field as the service sends it (sdk-go `mcpservercatalogconfigfield.md`). */
export interface CatalogConfigFieldWire {
  /** The key in a hosted config's `configFields`. */
  name?: string | null;
  displayName?: string | null;
  description?: string | null;
  placeholder?: string | null;
  /** Ignored when `secret`. */
  default?: string | null;
  required?: boolean | null;
  /** Sealed on the server, never returned (the view's `configFieldValues` omits it). */
  secret?: boolean | null;
  [key: string]: unknown;
}

/** An auth mode of a catalog entry (sdk-go `mcpservercatalogauthmode.md`); the first of `authModes` is the default. */
export interface CatalogAuthMode {
  authMethod?: string | null;
  [key: string]: unknown;
}

export interface McpCatalogEntry {
  /** A 27-character KSUID: the `mcpServerCatalogId` of hosted servers. */
  id: string;
  displayName?: string | null;
  description?: string | null;
  /** The service the entry serves: the default tool prefix of its servers. */
  serviceName?: string | null;
  authModes?: CatalogAuthMode[] | null;
  configSchema?: { fields?: CatalogConfigFieldWire[] | null; [key: string]: unknown } | null;
  [key: string]: unknown;
}

/** A config field with every member filled in (absent text is '', absent flags false). */
export interface CatalogField {
  name: string;
  displayName: string;
  description: string;
  placeholder: string;
  default: string;
  required: boolean;
  secret: boolean;
}

/** GET /api/v1/mcp_server_catalog/{catalog_id} */
export interface GetCatalogEntryResponse {
  catalogEntry: McpCatalogEntry | null;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The entry's config fields, or undefined when the entry carries no schema
 * (`configSchema` missing or null): then nothing is known of which fields
 * exist or are secret. A schema whose `fields` is missing or null has none.
 * Fields without a name are skipped.
 */
export function catalogFields(e: McpCatalogEntry): CatalogField[] | undefined {
  const schema = e.configSchema;
  if (!isJsonObject(schema)) return undefined;
  const out: CatalogField[] = [];
  for (const f of Array.isArray(schema.fields) ? (schema.fields as unknown[]) : []) {
    if (!isJsonObject(f) || !text(f.name)) continue;
    out.push({
      name: text(f.name),
      displayName: text(f.displayName),
      description: text(f.description),
      placeholder: text(f.placeholder),
      default: f.secret === true ? '' : text(f.default),
      required: f.required === true,
      secret: f.secret === true,
    });
  }
  return out;
}

/** The entry's auth methods in its order (the first is the default); unknown values are kept as they are. */
export function catalogAuthMethods(e: McpCatalogEntry): string[] {
  if (!Array.isArray(e.authModes)) return [];
  return (e.authModes as unknown[]).map((m) => (isJsonObject(m) ? text(m.authMethod) : '')).filter(Boolean);
}

export const MCP_PAGE_SIZE_DEFAULT = 50;
export const MCP_PAGE_SIZE_MAX = 100;
