// What the catalog commands show of an entry.
import type { McpCatalogEntry } from '../../../../api/mcp-catalog.js';

/** A text field of an entry, '' when absent (tables and fields escape what they print). */
export const entryText = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The entry's config field names, secret ones marked; `long` adds their display names. */
export function configFieldNames(e: McpCatalogEntry, long = false): string {
  const fields = Array.isArray(e.configFields) ? e.configFields : [];
  return fields
    .map((f) => {
      const name = entryText(f?.name);
      const label = long && f?.displayName ? ` "${entryText(f.displayName)}"` : '';
      return `${name}${label}${f?.secret ? ' (secret)' : ''}`;
    })
    .join(', ');
}
