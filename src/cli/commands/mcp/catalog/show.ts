// What the catalog commands show of an entry.
import { catalogAuthMethods, catalogFields, type McpCatalogEntry } from '../../../../api/mcp-catalog.js';
import { AUTH_METHODS } from '../../../../api/mcp-schema.js';
import { enumLabel } from '../summary.js';

/** A text field of an entry, '' when absent (tables and fields escape what they print). */
export const entryText = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The entry's config field names (`configSchema.fields`), secret and required
 * ones marked as the schema marks them; `long` adds their display names.
 * Undefined when the entry carries no schema.
 */
export function configFieldNames(e: McpCatalogEntry, long = false): string | undefined {
  const fields = catalogFields(e);
  if (!fields) return undefined;
  return fields
    .map((f) => {
      const label = long && f.displayName ? ` "${f.displayName}"` : '';
      const marks = [f.secret ? 'secret' : '', f.required ? 'required' : ''].filter(Boolean).join(', ');
      return `${f.name}${label}${marks ? ` (${marks})` : ''}`;
    })
    .join(', ');
}

/** The entry's auth methods, the default first and marked. */
export function authModeNames(e: McpCatalogEntry): string {
  return catalogAuthMethods(e)
    .map((m, i) => `${enumLabel(m, AUTH_METHODS)}${i === 0 ? ' (default)' : ''}`)
    .join(', ');
}
