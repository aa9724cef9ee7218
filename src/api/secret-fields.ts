// The names of the secret fields of the API's request bodies (the MCP auth
// objects', from the auth method table in src/api/mcp-auth.ts). The wire
// schemas (src/api/mcp-schema.ts) mark these fields from this list; redaction (src/client/redact.ts), which every command loads,
// reads it directly, so --debug hides them whichever command sent them
// (`agctl api` included) without loading the schema library.

import { AUTH_KIND_LIST, AUTH_METHOD_TABLE, type AuthKind } from './mcp-auth.js';

export type { AuthKind };
/** The secret fields of each MCP credentials auth object (sealed at rest, redacted in logs and dry runs), from the auth method table. */
export const AUTH_SECRET_FIELDS: Readonly<Record<AuthKind, readonly string[]>> = Object.fromEntries(
  AUTH_KIND_LIST.map((k) => [k, Object.keys(AUTH_METHOD_TABLE[k].secrets)]),
) as unknown as Record<AuthKind, readonly string[]>;

/** Hosted config fields: a map any of whose values may be secret (per catalog entry). */
export const CONFIG_FIELDS_MAP = 'configFields';

/** Field names whose value is a secret, in any object. */
export const schemaSecretFields: ReadonlySet<string> = new Set(Object.values(AUTH_SECRET_FIELDS).flat());
/** Field names of maps whose every string value is treated as secret. */
export const schemaSecretMaps: ReadonlySet<string> = new Set([CONFIG_FIELDS_MAP]);
