// The names of secret fields, as the wire schemas mark them (src/api/mcp-schema.ts:
// `secret(...)`, `secretValues(...)`). Kept free of the schema library so that
// redaction (src/client/redact.ts), which every command loads, does not load it:
// a schema module registers its marked fields here when it is loaded, and every
// command that sends or shows such a field loads its schema module first.

/** Field names whose value is a secret, in any object. */
export const schemaSecretFields = new Set<string>();
/** Field names of maps whose every string value is treated as secret. */
export const schemaSecretMaps = new Set<string>();

export function registerSecretFields(fields: Iterable<string>, maps: Iterable<string> = []): void {
  for (const f of fields) schemaSecretFields.add(f);
  for (const m of maps) schemaSecretMaps.add(m);
}
