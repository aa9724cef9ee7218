// MCP server credentials, the wire contract (service-api.md §2.1, §2.2, §4.1):
// enum values, the request and view shapes as zod schemas, and the types
// inferred from them. Secret fields are marked here (`secret(...)`), from the
// names in src/api/secret-fields.ts: sealing on the server derives from the
// marks, redaction in logs from those names.
import { z } from 'zod';
import { AUTH_KIND_LIST, AUTH_METHOD_TABLE, AuthMethod, OAuth2ClientIdMode, OAuth2Mode, type AuthViewMember } from './mcp-auth.js';
import { AUTH_SECRET_FIELDS, CONFIG_FIELDS_MAP, type AuthKind } from './secret-fields.js';

export { AuthMethod, OAuth2ClientIdMode, OAuth2Mode };

// ---------------------------------------------------------------------------
// Enums, each value declared once under its short name. Views may carry values
// not listed here (service-api.md §9); requests must use listed values. The
// UNSPECIFIED value comes first: it names the enum's prefix.

export const ServerType = {
  UNSPECIFIED: 'MCP_SERVER_TYPE_UNSPECIFIED',
  HOSTED: 'MCP_SERVER_TYPE_HOSTED',
  EXTERNAL: 'MCP_SERVER_TYPE_EXTERNAL',
} as const;
export const TokenSharing = {
  UNSPECIFIED: 'MCP_SERVER_TOKEN_SHARING_UNSPECIFIED',
  SHARED: 'MCP_SERVER_TOKEN_SHARING_SHARED',
  PER_USER: 'MCP_SERVER_TOKEN_SHARING_PER_USER',
} as const;
const OptionalBool = { UNSPECIFIED: 'OPTIONAL_BOOL_UNSPECIFIED', TRUE: 'OPTIONAL_BOOL_TRUE', FALSE: 'OPTIONAL_BOOL_FALSE' } as const;
const DataSensitivity = {
  UNSPECIFIED: 'MCP_SERVER_DATA_SENSITIVITY_UNSPECIFIED',
  PUBLIC: 'MCP_SERVER_DATA_SENSITIVITY_PUBLIC',
  INTERNAL: 'MCP_SERVER_DATA_SENSITIVITY_INTERNAL',
  CONFIDENTIAL: 'MCP_SERVER_DATA_SENSITIVITY_CONFIDENTIAL',
  RESTRICTED: 'MCP_SERVER_DATA_SENSITIVITY_RESTRICTED',
} as const;
const TransportType = {
  UNSPECIFIED: 'MCP_SERVER_TRANSPORT_TYPE_UNSPECIFIED',
  STREAMABLE_HTTP: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP',
  SSE: 'MCP_SERVER_TRANSPORT_TYPE_SSE',
} as const;
/** Accepted values of `oauth2.pkce` (empty means `discover`). */
export const PKCE_VALUES = ['', 'discover', 's256', 'disabled'] as const;

type EnumObject = Readonly<Record<string, string>>;
const valuesOf = <E extends EnumObject>(e: E) => Object.values(e) as E[keyof E][];

/** The values of each enum, UNSPECIFIED first. */
export const SERVER_TYPES = valuesOf(ServerType);
export const AUTH_METHODS = valuesOf(AuthMethod);
export const TOKEN_SHARING = valuesOf(TokenSharing);
export const OPTIONAL_BOOLS = valuesOf(OptionalBool);
export const DATA_SENSITIVITIES = valuesOf(DataSensitivity);
export const TRANSPORT_TYPES = valuesOf(TransportType);
export const OAUTH2_MODES = valuesOf(OAuth2Mode);
export const OAUTH2_CLIENT_ID_MODES = valuesOf(OAuth2ClientIdMode);

/** A known enum value, or any other string a newer service may send. */
type Open<T extends readonly string[]> = T[number] | (string & {});

/** `MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE` -> `SERVICE`: the short form used in messages and by the CLI. */
export function shortEnum(value: string): string {
  const m =
    /^(?:MCP_SERVER_(?:TYPE|AUTH_METHOD|TOKEN_SHARING|DATA_SENSITIVITY|TRANSPORT_TYPE|AUTH_OAUTH2_MODE|AUTH_OAUTH2_CLIENT_ID_MODE)|OPTIONAL_BOOL)_(.+)$/.exec(
      value,
    );
  return m ? m[1]! : value;
}

/**
 * True for a full-form value of the enum `values` that this version does not
 * list (`MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET`): a value a newer service may
 * accept (service-api.md §9). The enum's prefix is its UNSPECIFIED value's.
 */
export function isUnlistedEnumValue(values: readonly string[], value: string): boolean {
  const prefix = values[0]?.endsWith('_UNSPECIFIED') ? values[0].slice(0, -'UNSPECIFIED'.length) : undefined;
  return (
    prefix !== undefined &&
    !values.includes(value) &&
    value.startsWith(prefix) &&
    /^[A-Z][A-Z0-9_]*[A-Z0-9]$/.test(value.slice(prefix.length))
  );
}

// ---------------------------------------------------------------------------
// Field schemas and their marks.

/** Marks a field as secret: sealed at rest, redacted in logs and dry runs, never echoed in views. */
const secret = <T extends z.ZodType>(s: T): T => s.meta({ secret: true });
/** Marks a map whose every value may be secret (config fields are secret per catalog entry). */
const secretValues = <T extends z.ZodType>(s: T): T => s.meta({ secretValues: true });
/** Marks a field the service fills in: ignored on write, refused in an updateMask. */
const readOnly = <T extends z.ZodType>(s: T): T => s.meta({ readOnly: true });

export const isSecretField = (s: z.ZodType): boolean => s.meta()?.secret === true;
export const isReadOnlyField = (s: z.ZodType): boolean => s.meta()?.readOnly === true;

/**
 * A map of strings whose keys are data: `__proto__` is refused by name (a
 * plain object cannot hold it as a key, so it would be silently dropped).
 */
const stringMap = z.preprocess(
  (v, ctx) => {
    if (v !== null && typeof v === 'object' && Object.hasOwn(v, '__proto__')) {
      ctx.issues.push({ code: 'custom', message: 'not accepted as a key (it names the object prototype)', path: ['__proto__'], input: v });
    }
    return v;
  },
  z.record(z.string().min(1), z.string()),
);

/** List limits (service-api.md §8). */
const MAX_SCOPES_SUPPORTED = 256;
const MAX_CODE_CHALLENGE_METHODS = 8;

export type ConfigKind = 'external' | 'hosted';
export type ConfigRoot = 'externalConfig' | 'hostedConfig';

/** The fields of each request auth object; the secret ones marked from AUTH_SECRET_FIELDS (src/api/secret-fields.ts). */
export const AUTH_FIELDS = markSecrets({
  none: {},
  bearerToken: { token: z.string() },
  customHeader: { headerName: z.string(), headerValue: z.string() },
  basicAuth: { username: z.string(), password: z.string() },
  awsSigv4: { accessKeyId: z.string(), secretAccessKey: z.string(), sessionToken: z.string() },
  googleServiceAccount: { credentialsJson: z.string(), scopes: z.array(z.string()) },
  oauth2: {
    mode: z.enum(OAuth2Mode),
    clientId: z.string(),
    clientSecret: z.string(),
    clientIdMode: z.enum(OAuth2ClientIdMode),
    authorizeUrl: z.string(),
    tokenUrl: z.string(),
    issuerUrl: z.string(),
    scopes: z.array(z.string()),
    scopesSupported: z.array(z.string()).max(MAX_SCOPES_SUPPORTED),
    codeChallengeMethodsSupported: z.array(z.string()).max(MAX_CODE_CHALLENGE_METHODS),
    pkce: z.string(),
    extraAuthorizeParams: stringMap,
    extraTokenParams: stringMap,
    jwtPrivateKey: z.string(),
    jwtIssuer: z.string(),
    jwtSubject: z.string(),
    jwtAudience: z.string(),
    tokenEndpointAuthMethod: readOnly(z.string()),
  },
} satisfies Record<AuthKind, Record<string, z.ZodType>>);

/** Marks the fields AUTH_SECRET_FIELDS names as secret; a name no auth object has is a bug caught at load. */
function markSecrets<F extends Record<AuthKind, Record<string, z.ZodType>>>(fields: F): F {
  for (const [kind, names] of Object.entries(AUTH_SECRET_FIELDS) as [AuthKind, readonly string[]][]) {
    const shape: Record<string, z.ZodType> = fields[kind];
    for (const name of names) {
      const field = shape[name];
      if (!field) throw new Error(`secret field ${kind}.${name} is not a field of ${kind}`);
      shape[name] = secret(field);
    }
  }
  return fields;
}

/** The auth objects each config kind accepts (the auth method table's `configs`). */
export const AUTH_KINDS: Record<ConfigKind, readonly AuthKind[]> = {
  external: AUTH_KIND_LIST.filter((k) => (AUTH_METHOD_TABLE[k].configs as readonly ConfigKind[]).includes('external')),
  hosted: AUTH_KIND_LIST.filter((k) => (AUTH_METHOD_TABLE[k].configs as readonly ConfigKind[]).includes('hosted')),
};

/** The settings (non-auth scalar fields) of each config kind. */
export const SETTINGS = {
  external: {
    url: z.string(),
    transportType: z.enum(TransportType),
    tokenSharing: z.enum(TokenSharing),
    requireToolApproval: z.enum(OptionalBool),
  },
  hosted: {
    mcpServerCatalogId: z.string(),
    sourceAppId: z.string(),
    tokenSharing: z.enum(TokenSharing),
    requireToolApproval: z.enum(OptionalBool),
  },
} satisfies Record<ConfigKind, Record<string, z.ZodType>>;

/** Hosted config fields: values per the catalog entry's schema, any of which may be secret. */
export const CONFIG_FIELDS = secretValues(stringMap);

type Nullish<S extends Record<string, z.ZodType>> = { [K in keyof S]: z.ZodOptional<z.ZodNullable<S[K]>> };
/** A request object: every member optional and nullable (null means absent), unknown members refused. */
function requestObject<S extends Record<string, z.ZodType>>(shape: S) {
  const out: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(shape)) out[k] = v.nullish();
  return z.strictObject(out as Nullish<S>);
}

const authObjects = <K extends AuthKind>(kinds: readonly K[]) =>
  Object.fromEntries(kinds.map((k) => [k, requestObject(AUTH_FIELDS[k])])) as {
    [P in K]: ReturnType<typeof requestObject<(typeof AUTH_FIELDS)[P]>>;
  };

const ExternalConfigSchema = requestObject({
  ...SETTINGS.external,
  ...authObjects(AUTH_KINDS.external),
});
const HostedConfigSchema = requestObject({
  ...SETTINGS.hosted,
  [CONFIG_FIELDS_MAP]: CONFIG_FIELDS,
  ...authObjects(AUTH_KINDS.hosted),
});
/** Body of POST /api/v1/apps/{app_id}/mcp_servers/{connector_id}/credentials. */
const UpdateCredentialsRequestSchema = requestObject({
  externalConfig: ExternalConfigSchema,
  hostedConfig: HostedConfigSchema,
  /** Comma-separated camelCase field paths under the config that is set; see parseUpdateMask. */
  updateMask: z.string(),
});

export type UpdateCredentialsRequest = z.infer<typeof UpdateCredentialsRequestSchema>;

// ---------------------------------------------------------------------------
// The view (MCPServerView, service-api.md §2.1). Enum members may hold values
// this version does not know.

const openEnum = <E extends EnumObject>(_e: E) => z.string() as unknown as z.ZodType<Open<E[keyof E][]>>;
const nullableStrings = z.array(z.string()).nullable();
const timestamp = z.string().nullable();

const McpServerViewSchema = z.object({
  appId: z.string(),
  connectorId: z.string(),
  displayName: z.string(),
  description: z.string(),
  serverType: openEnum(ServerType),
  mcpServerCatalogId: z.string(),
  sourceAppId: z.string(),
  authMethod: openEnum(AuthMethod),
  tokenSharing: openEnum(TokenSharing),
  requireToolApproval: openEnum(OptionalBool),
  dataSensitivity: openEnum(DataSensitivity),
  toolPrefix: z.string(),
  defaultToolPrefix: z.string(),
  endpointUrl: z.string(),
  endpointUrlLocked: z.boolean(),
  transportType: openEnum(TransportType),
  configFieldValues: z.record(z.string(), z.string()),
  credentialsSetupUrl: z.string(),
  bearerTokenConfigured: z.boolean(),
  basicAuthUsername: z.string(),
  basicAuthPasswordConfigured: z.boolean(),
  customHeaderName: z.string(),
  customHeaderValueConfigured: z.boolean(),
  awsAccessKeyId: z.string(),
  awsSecretAccessKeyConfigured: z.boolean(),
  awsSessionTokenConfigured: z.boolean(),
  oauth2Mode: openEnum(OAuth2Mode),
  oauth2ClientId: z.string(),
  /** Empty for servers that are not in authorization-code mode. */
  oauth2ClientIdMode: openEnum(OAuth2ClientIdMode),
  oauth2ClientSecretExpiresAt: z.string(),
  oauth2CredentialsConfigured: z.boolean(),
  oauth2AuthorizeUrl: z.string(),
  oauth2TokenUrl: z.string(),
  oauth2IssuerUrl: z.string(),
  oauth2Scopes: nullableStrings,
  oauth2ScopesSupported: nullableStrings,
  oauth2CodeChallengeMethodsSupported: nullableStrings,
  oauth2Pkce: z.string(),
  oauth2ExtraAuthorizeParams: z.record(z.string(), z.string()),
  oauth2ExtraTokenParams: z.record(z.string(), z.string()),
  oauth2TokenEndpointAuthMethod: z.string(),
  oauth2JwtAudience: z.string(),
  oauth2JwtIssuer: z.string(),
  oauth2JwtSubject: z.string(),
  oauth2JwtPrivateKeyConfigured: z.boolean(),
  oauth2ServiceAuthorized: z.boolean(),
  oauth2ServiceAuthorizedAsEmail: z.string(),
  oauth2ServiceAuthorizedAsName: z.string(),
  oauth2ServiceAuthorizedBy: z.string(),
  oauth2ServiceAuthorizedAt: timestamp,
  tunneled: z.boolean(),
  tunnelBridgeId: z.string(),
  tunnelApplianceId: z.string(),
  tunnelServiceName: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
  lastCalledAt: timestamp,
});
export type McpServerView = z.infer<typeof McpServerViewSchema>;

// Every view member the auth method table names is a member of the view: a name missing here fails the typecheck, naming it.
[] as Exclude<AuthViewMember, keyof McpServerView>[] satisfies never[];
export interface UpdateCredentialsResponse {
  mcpServer: McpServerView | null;
}
