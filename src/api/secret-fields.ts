// The names of the secret fields of the API's request bodies: the one home of
// each name. The wire schemas (src/api/mcp-schema.ts) mark these fields from
// this list; redaction (src/client/redact.ts), which every command loads,
// reads it directly, so --debug hides them whichever command sent them
// (`agctl api` included) without loading the schema library.

/** The auth objects of an MCP config (`bearerToken`, `oauth2`, ...): the keys of AUTH_SECRET_FIELDS and of the schemas' AUTH_FIELDS. */
export type AuthKind = 'none' | 'bearerToken' | 'oauth2' | 'customHeader' | 'basicAuth' | 'awsSigv4' | 'googleServiceAccount';
/** The secret fields of each MCP credentials auth object (sealed at rest, redacted in logs and dry runs). */
export const AUTH_SECRET_FIELDS: Readonly<Record<AuthKind, readonly string[]>> = {
  none: [],
  bearerToken: ['token'],
  customHeader: ['headerValue'],
  basicAuth: ['password'],
  awsSigv4: ['secretAccessKey', 'sessionToken'],
  googleServiceAccount: ['credentialsJson'],
  oauth2: ['clientSecret', 'jwtPrivateKey'],
};

/** Hosted config fields: a map any of whose values may be secret (per catalog entry). */
export const CONFIG_FIELDS_MAP = 'configFields';

/** Field names whose value is a secret, in any object. */
export const schemaSecretFields: ReadonlySet<string> = new Set(Object.values(AUTH_SECRET_FIELDS).flat());
/** Field names of maps whose every string value is treated as secret. */
export const schemaSecretMaps: ReadonlySet<string> = new Set([CONFIG_FIELDS_MAP]);
