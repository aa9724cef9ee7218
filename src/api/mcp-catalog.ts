// The MCP server catalog (service-notes.md §3: ListCatalog and GetCatalog):
// the entries a hosted MCP server is created from. The entry's config fields
// are `configSchema.fields[]` and its auth modes `authModes[]` (the first is
// the catalog's default); there is no top-level `configFields` member. Every
// member may be missing or null (vendor OpenAPI), so the CLI reads an entry
// only through the functions below; `-o json` prints it as received.
import { isJsonObject } from '../lib/json.js';
import { itemProblem, normalize, shape, type Infer } from './shape.js';

/**
 * A catalog entry, declared once as a table (src/api/shape.ts): its type and
 * the client's check of an answer come from it. Entries of `authModes` and
 * `configSchema.fields` are not checked: one that cannot be read is skipped.
 */
export const CATALOG_ENTRY = shape({
  /** A 27-character KSUID: the `mcpServerCatalogId` of hosted servers. */
  id: { kind: 'string', required: true },
  displayName: { kind: 'string', optional: true, nullable: true },
  description: { kind: 'string', optional: true, nullable: true },
  /** The service the entry serves: the default tool prefix of its servers. */
  serviceName: { kind: 'string', optional: true, nullable: true },
  /** Auth modes (sdk-go `mcpservercatalogauthmode.md`: `{authMethod}`); the first is the default. */
  authModes: { kind: 'array', optional: true, nullable: true },
  /** `fields`: config fields, each as CATALOG_CONFIG_FIELD. */
  configSchema: { kind: 'object', optional: true, nullable: true, of: { fields: { kind: 'array', optional: true, nullable: true } } },
});
export type McpCatalogEntry = Infer<typeof CATALOG_ENTRY>;

/** A config field as the service sends it (sdk-go `mcpservercatalogconfigfield.md`), every member optional. */
export const CATALOG_CONFIG_FIELD = shape({
  /** The key in a hosted config's `configFields`. */
  name: 'string',
  displayName: 'string',
  description: 'string',
  placeholder: 'string',
  /** Ignored when `secret`. */
  default: 'string',
  required: 'boolean',
  /** Sealed on the server, never returned (the view's `configFieldValues` omits it). */
  secret: 'boolean',
});
/** An auth mode as the service sends it (sdk-go `mcpservercatalogauthmode.md`). */
export const CATALOG_AUTH_MODE = shape({ authMethod: 'string' });

/** A config field with every member filled in (absent text is '', absent flags false). */
export type CatalogField = Infer<typeof CATALOG_CONFIG_FIELD>;

/** What is wrong with a catalog entry, if anything. */
export const catalogEntryProblem = (e: unknown): string | undefined => itemProblem(CATALOG_ENTRY, e, 'a catalog entry');

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
  return isJsonObject(schema) ? configFieldsOf(schema.fields) : undefined;
}

/** The config fields of a `configSchema.fields` as received (not an array: none), each filled in; fields without a name are skipped, a secret's default is dropped. */
export function configFieldsOf(fields: unknown): CatalogField[] {
  const out: CatalogField[] = [];
  for (const f of Array.isArray(fields) ? fields : []) {
    if (!isJsonObject(f)) continue;
    const field = normalize(CATALOG_CONFIG_FIELD, f);
    if (field.name) out.push(field.secret ? { ...field, default: '' } : field);
  }
  return out;
}

/** The entry's auth methods in its order (the first is the default); unknown values are kept as they are. */
export function catalogAuthMethods(e: McpCatalogEntry): string[] {
  if (!Array.isArray(e.authModes)) return [];
  return e.authModes.map((m) => (isJsonObject(m) ? text(m.authMethod) : '')).filter(Boolean);
}

export const MCP_PAGE_SIZE_DEFAULT = 50;
export const MCP_PAGE_SIZE_MAX = 100;
