// MCP server credentials (service-api.md §2.1, §2.2, §4.1): the wire types,
// the enum lists, the request validation and the updateMask. The embedded
// server and the CLI run this same code, so a mistake is reported with the
// same message on both sides. Pure: no I/O.
//
// Validation has two stages:
//  1. validateCredentialsRequest(body): everything the request alone decides
//     (shape, types, unknown fields and enum values, one config, one auth
//     object, URL/KSUID/PEM/JSON formats, list limits, the updateMask paths) and,
//     when there is no updateMask, the rules on the resulting config (the
//     request then replaces the stored config, so it is the result).
//  2. planCredentialsUpdate(request, stored, catalog): applies the updateMask to
//     the stored config, checks the result again, the kind of the server, the
//     catalog entry and its config fields, and the locked endpoint URL.
import { createPrivateKey } from 'node:crypto';
import { isKsuid } from '../lib/ids.js';
import { HTTP_TOKEN } from '../lib/net.js';
import { failedPrecondition, invalidArgument } from './errors.js';

// ---------------------------------------------------------------------------
// Enums. Views may carry values not listed here (service-api.md §9); requests
// must use listed values.

export const SERVER_TYPES = ['MCP_SERVER_TYPE_UNSPECIFIED', 'MCP_SERVER_TYPE_HOSTED', 'MCP_SERVER_TYPE_EXTERNAL'] as const;
export const AUTH_METHODS = [
  'MCP_SERVER_AUTH_METHOD_UNSPECIFIED',
  'MCP_SERVER_AUTH_METHOD_NONE',
  'MCP_SERVER_AUTH_METHOD_BEARER_TOKEN',
  'MCP_SERVER_AUTH_METHOD_OAUTH2',
  'MCP_SERVER_AUTH_METHOD_CUSTOM_HEADER',
  'MCP_SERVER_AUTH_METHOD_AWS_SIGV4',
  'MCP_SERVER_AUTH_METHOD_BASIC_AUTH',
] as const;
export const TOKEN_SHARING = ['MCP_SERVER_TOKEN_SHARING_UNSPECIFIED', 'MCP_SERVER_TOKEN_SHARING_SHARED', 'MCP_SERVER_TOKEN_SHARING_PER_USER'] as const;
export const OPTIONAL_BOOLS = ['OPTIONAL_BOOL_UNSPECIFIED', 'OPTIONAL_BOOL_TRUE', 'OPTIONAL_BOOL_FALSE'] as const;
export const DATA_SENSITIVITIES = [
  'MCP_SERVER_DATA_SENSITIVITY_UNSPECIFIED',
  'MCP_SERVER_DATA_SENSITIVITY_PUBLIC',
  'MCP_SERVER_DATA_SENSITIVITY_INTERNAL',
  'MCP_SERVER_DATA_SENSITIVITY_CONFIDENTIAL',
  'MCP_SERVER_DATA_SENSITIVITY_RESTRICTED',
] as const;
export const TRANSPORT_TYPES = ['MCP_SERVER_TRANSPORT_TYPE_UNSPECIFIED', 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP', 'MCP_SERVER_TRANSPORT_TYPE_SSE'] as const;
export const OAUTH2_MODES = [
  'MCP_SERVER_AUTH_OAUTH2_MODE_UNSPECIFIED',
  'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE',
  'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH',
  'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS',
  'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER',
  'MCP_SERVER_AUTH_OAUTH2_MODE_GOOGLE_SERVICE_ACCOUNT',
  'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE',
] as const;
export const OAUTH2_CLIENT_ID_MODES = [
  'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_UNSPECIFIED',
  'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_DCR',
  'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_CIMD',
] as const;
/** Accepted values of `oauth2.pkce` (empty means `discover`). */
export const PKCE_VALUES = ['', 'discover', 's256', 'disabled'] as const;

/** A known enum value, or any other string a newer service may send. */
export type Open<T extends readonly string[]> = T[number] | (string & {});

export const ServerType = { UNSPECIFIED: SERVER_TYPES[0], HOSTED: SERVER_TYPES[1], EXTERNAL: SERVER_TYPES[2] } as const;
export const AuthMethod = {
  UNSPECIFIED: AUTH_METHODS[0],
  NONE: AUTH_METHODS[1],
  BEARER_TOKEN: AUTH_METHODS[2],
  OAUTH2: AUTH_METHODS[3],
  CUSTOM_HEADER: AUTH_METHODS[4],
  AWS_SIGV4: AUTH_METHODS[5],
  BASIC_AUTH: AUTH_METHODS[6],
} as const;
export const TokenSharing = { UNSPECIFIED: TOKEN_SHARING[0], SHARED: TOKEN_SHARING[1], PER_USER: TOKEN_SHARING[2] } as const;
export const OAuth2Mode = {
  UNSPECIFIED: OAUTH2_MODES[0],
  SERVICE: OAUTH2_MODES[1],
  PASSTHROUGH: OAUTH2_MODES[2],
  CLIENT_CREDENTIALS: OAUTH2_MODES[3],
  JWT_BEARER: OAUTH2_MODES[4],
  GOOGLE_SERVICE_ACCOUNT: OAUTH2_MODES[5],
  AUTHORIZATION_CODE: OAUTH2_MODES[6],
} as const;
export const OAuth2ClientIdMode = { UNSPECIFIED: OAUTH2_CLIENT_ID_MODES[0], DCR: OAUTH2_CLIENT_ID_MODES[1], CIMD: OAUTH2_CLIENT_ID_MODES[2] } as const;

/** `MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE` -> `SERVICE`: the short form used in messages and by the CLI. */
export function shortEnum(value: string): string {
  const m = /^(?:MCP_SERVER_(?:TYPE|AUTH_METHOD|TOKEN_SHARING|DATA_SENSITIVITY|TRANSPORT_TYPE|AUTH_OAUTH2_MODE|AUTH_OAUTH2_CLIENT_ID_MODE)|OPTIONAL_BOOL)_(.+)$/.exec(value);
  return m ? m[1]! : value;
}

/**
 * True for a full-form value of the enum `values` that this version does not
 * list (`MCP_SERVER_TRANSPORT_TYPE_WEBSOCKET`): a value a newer service may
 * accept (service-api.md §9). The enum's prefix is its UNSPECIFIED value's.
 */
export function isUnlistedEnumValue(values: readonly string[], value: string): boolean {
  const prefix = values[0]?.endsWith('_UNSPECIFIED') ? values[0].slice(0, -'UNSPECIFIED'.length) : undefined;
  return prefix !== undefined && !values.includes(value) && value.startsWith(prefix) && /^[A-Z][A-Z0-9_]*[A-Z0-9]$/.test(value.slice(prefix.length));
}

/**
 * Called for each enum value of a request that this version does not list.
 * Without it (the server) such a value is InvalidArgument; with it (the CLI)
 * a full-form value is accepted and reported, for the service to judge.
 */
export type UnlistedEnumHandler = (path: string, value: string) => void;

// ---------------------------------------------------------------------------
// Wire types.

/** MCPServerView (service-api.md §2.1). Enum members may hold values this version does not know. */
export interface McpServerView {
  appId: string;
  connectorId: string;
  displayName: string;
  description: string;
  serverType: Open<typeof SERVER_TYPES>;
  mcpServerCatalogId: string;
  sourceAppId: string;
  authMethod: Open<typeof AUTH_METHODS>;
  tokenSharing: Open<typeof TOKEN_SHARING>;
  requireToolApproval: Open<typeof OPTIONAL_BOOLS>;
  dataSensitivity: Open<typeof DATA_SENSITIVITIES>;
  toolPrefix: string;
  defaultToolPrefix: string;
  endpointUrl: string;
  endpointUrlLocked: boolean;
  transportType: Open<typeof TRANSPORT_TYPES>;
  configFieldValues: Record<string, string>;
  credentialsSetupUrl: string;
  bearerTokenConfigured: boolean;
  basicAuthUsername: string;
  basicAuthPasswordConfigured: boolean;
  customHeaderName: string;
  customHeaderValueConfigured: boolean;
  awsAccessKeyId: string;
  awsSecretAccessKeyConfigured: boolean;
  awsSessionTokenConfigured: boolean;
  oauth2Mode: Open<typeof OAUTH2_MODES>;
  oauth2ClientId: string;
  /** Empty for servers that are not in authorization-code mode. */
  oauth2ClientIdMode: Open<typeof OAUTH2_CLIENT_ID_MODES> | '';
  oauth2ClientSecretExpiresAt: string;
  oauth2CredentialsConfigured: boolean;
  oauth2AuthorizeUrl: string;
  oauth2TokenUrl: string;
  oauth2IssuerUrl: string;
  oauth2Scopes: string[] | null;
  oauth2ScopesSupported: string[] | null;
  oauth2CodeChallengeMethodsSupported: string[] | null;
  oauth2Pkce: string;
  oauth2ExtraAuthorizeParams: Record<string, string>;
  oauth2ExtraTokenParams: Record<string, string>;
  oauth2TokenEndpointAuthMethod: string;
  oauth2JwtAudience: string;
  oauth2JwtIssuer: string;
  oauth2JwtSubject: string;
  oauth2JwtPrivateKeyConfigured: boolean;
  oauth2ServiceAuthorized: boolean;
  oauth2ServiceAuthorizedAsEmail: string;
  oauth2ServiceAuthorizedAsName: string;
  oauth2ServiceAuthorizedBy: string;
  oauth2ServiceAuthorizedAt: string | null;
  tunneled: boolean;
  tunnelBridgeId: string;
  tunnelApplianceId: string;
  tunnelServiceName: string;
  createdAt: string | null;
  updatedAt: string | null;
  lastCalledAt: string | null;
}

export interface OAuth2Config {
  mode?: string | null;
  clientId?: string | null;
  clientSecret?: string | null;
  clientIdMode?: string | null;
  authorizeUrl?: string | null;
  tokenUrl?: string | null;
  issuerUrl?: string | null;
  scopes?: string[] | null;
  scopesSupported?: string[] | null;
  codeChallengeMethodsSupported?: string[] | null;
  pkce?: string | null;
  extraAuthorizeParams?: Record<string, string> | null;
  extraTokenParams?: Record<string, string> | null;
  jwtPrivateKey?: string | null;
  jwtIssuer?: string | null;
  jwtSubject?: string | null;
  jwtAudience?: string | null;
  /** Read-only: ignored on write. */
  tokenEndpointAuthMethod?: string | null;
}
export interface BearerTokenAuth { token?: string | null }
export interface CustomHeaderAuth { headerName?: string | null; headerValue?: string | null }
export interface BasicAuth { username?: string | null; password?: string | null }
export interface AwsSigv4Auth { accessKeyId?: string | null; secretAccessKey?: string | null; sessionToken?: string | null }
export interface GoogleServiceAccountAuth { credentialsJson?: string | null; scopes?: string[] | null }

export interface ExternalConfig {
  url?: string | null;
  transportType?: string | null;
  tokenSharing?: string | null;
  requireToolApproval?: string | null;
  none?: Record<string, never> | null;
  bearerToken?: BearerTokenAuth | null;
  oauth2?: OAuth2Config | null;
  customHeader?: CustomHeaderAuth | null;
  basicAuth?: BasicAuth | null;
}
export interface HostedConfig {
  mcpServerCatalogId?: string | null;
  sourceAppId?: string | null;
  configFields?: Record<string, string> | null;
  tokenSharing?: string | null;
  requireToolApproval?: string | null;
  none?: Record<string, never> | null;
  bearerToken?: BearerTokenAuth | null;
  oauth2?: OAuth2Config | null;
  customHeader?: CustomHeaderAuth | null;
  googleServiceAccount?: GoogleServiceAccountAuth | null;
  awsSigv4?: AwsSigv4Auth | null;
  basicAuth?: BasicAuth | null;
}
/** Body of POST /api/v1/apps/{app_id}/mcp_servers/{connector_id}/credentials. */
export interface UpdateCredentialsRequest {
  externalConfig?: ExternalConfig | null;
  hostedConfig?: HostedConfig | null;
  /** Comma-separated camelCase field paths under the config that is set; see parseUpdateMask. */
  updateMask?: string | null;
}
export interface UpdateCredentialsResponse {
  mcpServer: McpServerView | null;
}

// ---------------------------------------------------------------------------
// The request schema, which drives type checks, unknown-field rejection,
// updateMask paths, merging and redaction.

export type ConfigKind = 'external' | 'hosted';
export type ConfigRoot = 'externalConfig' | 'hostedConfig';
export type AuthKind = 'none' | 'bearerToken' | 'oauth2' | 'customHeader' | 'basicAuth' | 'awsSigv4' | 'googleServiceAccount';

type FieldSpec =
  | { t: 'string' }
  | { t: 'secret' }
  | { t: 'strings'; max?: number }
  | { t: 'map' }
  | { t: 'enum'; values: readonly string[] }
  | { t: 'readonly' };

const STR: FieldSpec = { t: 'string' };
const SECRET: FieldSpec = { t: 'secret' };
const STRINGS: FieldSpec = { t: 'strings' };
const MAP: FieldSpec = { t: 'map' };
const oneOf = (values: readonly string[]): FieldSpec => ({ t: 'enum', values });

/** List limits (service-api.md §8). */
export const MAX_SCOPES_SUPPORTED = 256;
export const MAX_CODE_CHALLENGE_METHODS = 8;

export const AUTH_FIELDS: Record<AuthKind, Record<string, FieldSpec>> = {
  none: {},
  bearerToken: { token: SECRET },
  customHeader: { headerName: STR, headerValue: SECRET },
  basicAuth: { username: STR, password: SECRET },
  awsSigv4: { accessKeyId: STR, secretAccessKey: SECRET, sessionToken: SECRET },
  googleServiceAccount: { credentialsJson: SECRET, scopes: STRINGS },
  oauth2: {
    mode: oneOf(OAUTH2_MODES),
    clientId: STR,
    clientSecret: SECRET,
    clientIdMode: oneOf(OAUTH2_CLIENT_ID_MODES),
    authorizeUrl: STR,
    tokenUrl: STR,
    issuerUrl: STR,
    scopes: STRINGS,
    scopesSupported: { t: 'strings', max: MAX_SCOPES_SUPPORTED },
    codeChallengeMethodsSupported: { t: 'strings', max: MAX_CODE_CHALLENGE_METHODS },
    pkce: STR,
    extraAuthorizeParams: MAP,
    extraTokenParams: MAP,
    jwtPrivateKey: SECRET,
    jwtIssuer: STR,
    jwtSubject: STR,
    jwtAudience: STR,
    tokenEndpointAuthMethod: { t: 'readonly' },
  },
};

export const AUTH_KINDS: Record<ConfigKind, readonly AuthKind[]> = {
  external: ['none', 'bearerToken', 'oauth2', 'customHeader', 'basicAuth'],
  hosted: ['none', 'bearerToken', 'oauth2', 'customHeader', 'googleServiceAccount', 'awsSigv4', 'basicAuth'],
};

const SETTINGS: Record<ConfigKind, Record<string, FieldSpec>> = {
  external: {
    url: STR,
    transportType: oneOf(TRANSPORT_TYPES),
    tokenSharing: oneOf(TOKEN_SHARING),
    requireToolApproval: oneOf(OPTIONAL_BOOLS),
  },
  hosted: {
    mcpServerCatalogId: STR,
    sourceAppId: STR,
    tokenSharing: oneOf(TOKEN_SHARING),
    requireToolApproval: oneOf(OPTIONAL_BOOLS),
  },
};

/** The auth method the view reports for each request auth object. */
export const AUTH_METHOD_FOR_KIND: Record<AuthKind, string> = {
  none: AuthMethod.NONE,
  bearerToken: AuthMethod.BEARER_TOKEN,
  oauth2: AuthMethod.OAUTH2,
  customHeader: AuthMethod.CUSTOM_HEADER,
  basicAuth: AuthMethod.BASIC_AUTH,
  awsSigv4: AuthMethod.AWS_SIGV4,
  googleServiceAccount: AuthMethod.OAUTH2,
};

/** Names of the secret fields of each auth object (sealed at rest, redacted in logs). */
export const SECRET_FIELDS: Record<AuthKind, readonly string[]> = Object.fromEntries(
  Object.entries(AUTH_FIELDS).map(([k, f]) => [k, Object.keys(f).filter((n) => f[n]!.t === 'secret')]),
) as unknown as Record<AuthKind, readonly string[]>;

export const rootOf = (kind: ConfigKind): ConfigRoot => (kind === 'external' ? 'externalConfig' : 'hostedConfig');
export const isAuthKind = (s: string): s is AuthKind => Object.prototype.hasOwnProperty.call(AUTH_FIELDS, s);
/** Auth kinds supporting PER_USER token sharing (oauth2 only in authorization-code or legacy passthrough mode). */
const PER_USER_KINDS: readonly AuthKind[] = ['bearerToken', 'customHeader', 'basicAuth'];

// ---------------------------------------------------------------------------
// Normalized configs.

/** A secret or config-field value: new from the request, or kept as stored (never opened). */
export type FieldValue = { value: string } | { kept: true };
export const KEPT: FieldValue = Object.freeze({ kept: true as const });

export interface Settings {
  url: string;
  transportType: string;
  tokenSharing: string;
  requireToolApproval: string;
  mcpServerCatalogId: string;
  sourceAppId: string;
}
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  url: '',
  transportType: TRANSPORT_TYPES[0],
  tokenSharing: TOKEN_SHARING[0],
  requireToolApproval: OPTIONAL_BOOLS[0],
  mcpServerCatalogId: '',
  sourceAppId: '',
});

export interface EffectiveAuth {
  /** A request auth object name; stored rows may hold a kind this version does not know. */
  kind: string;
  /** Non-secret fields (absent = default). Google service accounts also carry the derived clientEmail and tokenUri. */
  values: Record<string, unknown>;
  /** Secret fields that are set. */
  secrets: Record<string, FieldValue>;
}

/** A server's credential config: what is stored, or what an update results in. */
export interface EffectiveConfig {
  kind: ConfigKind;
  settings: Settings;
  /** Hosted config fields; secret ones are `KEPT` when they come from the store. */
  configFields: Record<string, FieldValue>;
  auth: EffectiveAuth | null;
}

export interface ParsedAuth {
  kind: AuthKind;
  values: Record<string, unknown>;
  /** Non-empty secret values of the request. */
  secrets: Record<string, string>;
}

export interface ParsedCredentialsRequest {
  kind: ConfigKind;
  root: ConfigRoot;
  /** Settings present (non-null) in the request. */
  settings: Partial<Settings>;
  configFields: Record<string, string> | null;
  auth: ParsedAuth | null;
  /** Relative paths (without the root), or null without a mask. */
  mask: string[] | null;
}

/** What the server knows about the stored server, for the stateful checks. */
export interface StoredServer {
  appId: string;
  connectorId: string;
  /** Stored server type; may be a value this version does not know. */
  serverType: string;
  endpointUrlLocked: boolean;
  config: EffectiveConfig;
}

export interface CatalogConfigField {
  name: string;
  displayName?: string;
  secret: boolean;
}
export interface CatalogEntryInfo {
  id: string;
  serviceName: string;
  configFields: CatalogConfigField[];
}

export interface CredentialsPlan {
  config: EffectiveConfig;
  /** True when the auth config was created or rotated rather than partially updated (runtime OAuth2 state is dropped). */
  authReplaced: boolean;
  catalogEntry?: CatalogEntryInfo;
}

// ---------------------------------------------------------------------------
// Helpers.

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);

/** An absolute https URL with a host and no user info. */
export function checkHttpsUrl(path: string, value: string): void {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw invalidArgument(`${path}: must be an absolute https URL`);
  }
  if (u.protocol !== 'https:' || !u.hostname) throw invalidArgument(`${path}: must be an absolute https URL`);
  // Never echo the URL: user info would be a credential.
  if (u.username || u.password) throw invalidArgument(`${path}: must not carry user info (credentials belong in the auth config)`);
}

/** Compares two endpoint URLs after URL normalization (scheme/host case, default port). */
export function sameEndpointUrl(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** An HTTP header field name (RFC 9110 token). */
export const HEADER_NAME_RE = HTTP_TOKEN;

/** True for an issuer URL without a path, query or fragment (SERVICE / PASSTHROUGH modes). */
export function isBareIssuerUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash;
  } catch {
    return false;
  }
}

/** True for a PEM-encoded, unencrypted RSA private key. */
export function isPemRsaPrivateKey(pem: string): boolean {
  if (!/-----BEGIN (?:RSA )?PRIVATE KEY-----/.test(pem)) return false;
  try {
    return createPrivateKey({ key: pem, format: 'pem' }).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

/** Fields extracted from a Google service account key file. */
export interface GoogleServiceAccountInfo {
  clientEmail: string;
  tokenUri: string;
}

/** Checks a Google service account key file; messages never quote it. */
export function parseGoogleCredentials(path: string, json: string): GoogleServiceAccountInfo {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    throw invalidArgument(`${path}: must be the JSON of a Google service account key file (not valid JSON)`);
  }
  if (!isObject(doc)) throw invalidArgument(`${path}: must be the JSON object of a Google service account key file`);
  for (const k of ['private_key', 'client_email', 'token_uri']) {
    if (typeof doc[k] !== 'string' || doc[k] === '') throw invalidArgument(`${path}: the service account key has no ${k}`);
  }
  if (!isPemRsaPrivateKey(doc.private_key as string)) throw invalidArgument(`${path}: private_key is not a PEM-encoded RSA private key`);
  checkHttpsUrl(`${path}: token_uri`, doc.token_uri as string);
  return { clientEmail: doc.client_email as string, tokenUri: doc.token_uri as string };
}

function checkField(path: string, spec: FieldSpec, value: unknown, onUnlisted?: UnlistedEnumHandler): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.t) {
    case 'string':
    case 'secret':
      if (typeof value !== 'string') throw invalidArgument(`${path}: must be a string`);
      return value;
    case 'enum':
      if (typeof value !== 'string') throw invalidArgument(`${path}: must be a string enum value`);
      if (onUnlisted && isUnlistedEnumValue(spec.values, value)) {
        onUnlisted(path, value);
        return value;
      }
      if (!spec.values.includes(value)) {
        throw invalidArgument(`${path}: unknown value ${quote(value)}; expected one of ${spec.values.join(', ')}`);
      }
      return value;
    case 'strings': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw invalidArgument(`${path}: must be an array of strings`);
      if (spec.max !== undefined && value.length > spec.max) {
        throw invalidArgument(`${path}: at most ${spec.max} entries are allowed (got ${value.length})`);
      }
      return [...(value as string[])];
    }
    case 'map': {
      if (!isObject(value)) throw invalidArgument(`${path}: must be an object of string values`);
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(value)) {
        if (k === '') throw invalidArgument(`${path}: keys must not be empty`);
        if (typeof v !== 'string') throw invalidArgument(`${path}.${k}: must be a string`);
        out[k] = v;
      }
      return out;
    }
    case 'readonly':
      return null;
  }
}

function parseAuth(root: ConfigRoot, kind: AuthKind, raw: unknown, onUnlisted?: UnlistedEnumHandler): ParsedAuth {
  const path = `${root}.${kind}`;
  if (!isObject(raw)) throw invalidArgument(`${path}: must be an object`);
  const fields = AUTH_FIELDS[kind];
  const auth: ParsedAuth = { kind, values: {}, secrets: {} };
  for (const [name, value] of Object.entries(raw)) {
    const spec = has(fields, name) ? fields[name] : undefined;
    if (!spec) throw invalidArgument(`${path}.${name}: unknown field`);
    const v = checkField(`${path}.${name}`, spec, value, onUnlisted);
    if (v === null) continue;
    if (spec.t === 'secret') {
      if (v !== '') auth.secrets[name] = v as string;
    } else {
      auth.values[name] = v;
    }
  }
  // Formats of the values present.
  const f = (n: string) => `${path}.${n}`;
  const str = (n: string) => (typeof auth.values[n] === 'string' ? (auth.values[n] as string) : '');
  if (kind === 'customHeader' && str('headerName') && !HEADER_NAME_RE.test(str('headerName'))) {
    throw invalidArgument(`${f('headerName')}: must be a valid HTTP header name`);
  }
  if (kind === 'oauth2') {
    for (const n of ['authorizeUrl', 'tokenUrl', 'issuerUrl']) if (str(n)) checkHttpsUrl(f(n), str(n));
    if (has(auth.values, 'pkce') && !(PKCE_VALUES as readonly string[]).includes(str('pkce'))) {
      throw invalidArgument(`${f('pkce')}: must be discover (or empty), s256 or disabled`);
    }
    if (auth.secrets.jwtPrivateKey !== undefined && !isPemRsaPrivateKey(auth.secrets.jwtPrivateKey)) {
      throw invalidArgument(`${f('jwtPrivateKey')}: must be a PEM-encoded RSA private key (unencrypted)`);
    }
  }
  if (kind === 'googleServiceAccount' && auth.secrets.credentialsJson !== undefined) {
    const info = parseGoogleCredentials(f('credentialsJson'), auth.secrets.credentialsJson);
    auth.values.clientEmail = info.clientEmail;
    auth.values.tokenUri = info.tokenUri;
  }
  return auth;
}

// ---------------------------------------------------------------------------
// updateMask. The spec leaves its semantics open; agctl defines them so:
//  - Without a mask (absent, null or empty) the config that is set replaces
//    the stored one: fields it leaves out get their defaults, and an auth
//    object it leaves out means no auth config.
//  - With a mask, only the named fields change; every other field keeps its
//    stored value, and fields of the request outside the mask are ignored.
//    A named field the request leaves out is cleared.
//  - Naming an auth object (`bearerToken`) replaces it whole (a rotation);
//    naming its fields (`bearerToken.token`) changes only those and keeps the
//    stored rest, secrets included, when the stored method (and, for oauth2,
//    the mode) is the same; otherwise it starts from an empty object. The
//    request must set the auth object the mask names, and a mask names at
//    most one auth object.
//  - `configFields` replaces the whole map, `configFields.<name>` one entry
//    (removed when the request's map lacks it). A new catalog entry starts
//    from no config fields.
//  - An unknown or read-only path is InvalidArgument, and so is a path under
//    the config's own name (`externalConfig.url`): paths are relative to the
//    config (service-notes.md §3).
//  - A hosted request always carries mcpServerCatalogId; outside the mask it
//    only identifies the entry and changes nothing.

/**
 * Parses an updateMask: comma-separated camelCase field paths relative to the
 * config that is set (`url`, not `externalConfig.url`), as the service keys them
 * (service-notes.md §3). Valid paths: the config's own fields (`url`, `transportType`, `tokenSharing`,
 * `requireToolApproval`; hosted: `mcpServerCatalogId`, `sourceAppId`,
 * `configFields` or `configFields.<name>`), an auth object (`bearerToken`,
 * `oauth2`, ...: replaces it whole) or one of its fields (`oauth2.clientSecret`).
 * Returns the relative paths, or null for an empty mask.
 */
export function parseUpdateMask(mask: string | null | undefined, kind: ConfigKind): string[] | null {
  if (mask === null || mask === undefined || mask.trim() === '') return null;
  const root = rootOf(kind);
  const other = rootOf(kind === 'external' ? 'hosted' : 'external');
  const out: string[] = [];
  for (const part of mask.split(',')) {
    const p = part.trim();
    if (p === '') throw invalidArgument('updateMask: empty path (paths are separated by single commas)');
    if (p === root) throw invalidArgument(`updateMask: ${p}: name fields under ${root}; send no updateMask to replace the whole config`);
    if (p.startsWith(`${other}.`) || p === other) throw invalidArgument(`updateMask: ${p}: the request sets ${root}, not ${other}`);
    // Stricter than the service, which silently ignores a path under the
    // config's own name: it matches nothing there, so the update would answer
    // 200 having changed nothing (service-notes.md §3). Here it is a 400 naming the path to use.
    if (p.startsWith(`${root}.`)) throw invalidArgument(`updateMask: ${p}: paths are relative to ${root}; use ${p.slice(root.length + 1)}`);
    const [head, ...restParts] = p.split('.');
    const rest = restParts.join('.');
    const bad = (why: string) => invalidArgument(`updateMask: ${part.trim()}: ${why}`);
    if (has(SETTINGS[kind], head!)) {
      if (rest) throw bad('unknown path');
    } else if (head === 'configFields' && kind === 'hosted') {
      if (restParts.length > 0 && rest === '') throw bad('empty config field name');
    } else if (isAuthKind(head!) && AUTH_KINDS[kind].includes(head)) {
      if (rest) {
        const spec = has(AUTH_FIELDS[head], rest) ? AUTH_FIELDS[head][rest] : undefined;
        if (!spec) throw bad('unknown path');
        if (spec.t === 'readonly') throw bad('read-only field');
      }
    } else {
      throw bad(`unknown path for ${root}`);
    }
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

const ROOT_PREFIX = /^(?:externalConfig|hostedConfig)\./;

/**
 * A mask with every path made relative to the config (`externalConfig.bearerToken`
 * -> `bearerToken`), for a client: the service keys paths relative to the config
 * and silently ignores root-prefixed ones (service-notes.md §3). Returns the
 * mask to send and the paths it rewrote.
 */
export function relativeUpdateMask(mask: string): { mask: string; rewritten: string[] } {
  const rewritten: string[] = [];
  const paths = mask.split(',').map((part) => {
    const p = part.trim();
    if (!ROOT_PREFIX.test(p)) return p;
    rewritten.push(p);
    return p.replace(ROOT_PREFIX, '');
  });
  return { mask: rewritten.length ? paths.join(',') : mask, rewritten };
}

/**
 * The mask a client derives from a config it sends: the config's own members
 * that are set (`url`, `tokenSharing`, `configFields`, the auth object by its
 * name), as the service's agent CLI does (service-notes.md §3). Empty when the
 * config sets nothing.
 */
export function deriveUpdateMask(config: Record<string, unknown>): string {
  return Object.keys(config)
    .filter((k) => config[k] !== null && config[k] !== undefined)
    .join(',');
}

// ---------------------------------------------------------------------------
// Stage 1: the request alone.

/**
 * Validates an UpdateCredentialsRequest body and returns it normalized.
 * Throws ApiError InvalidArgument naming the field path. `onUnlisted` lets
 * full-form enum values this version does not list through (see UnlistedEnumHandler).
 */
export function validateCredentialsRequest(body: unknown, onUnlisted?: UnlistedEnumHandler): ParsedCredentialsRequest {
  if (!isObject(body)) throw invalidArgument('request body: must be a JSON object');
  for (const k of Object.keys(body)) {
    if (k !== 'externalConfig' && k !== 'hostedConfig' && k !== 'updateMask') throw invalidArgument(`${k}: unknown field`);
  }
  const ext = body.externalConfig ?? null;
  const hosted = body.hostedConfig ?? null;
  if (ext !== null && hosted !== null) throw invalidArgument('externalConfig, hostedConfig: only one of externalConfig and hostedConfig may be set');
  if (ext === null && hosted === null) throw invalidArgument('externalConfig, hostedConfig: one of externalConfig or hostedConfig is required');
  const kind: ConfigKind = ext !== null ? 'external' : 'hosted';
  const root = rootOf(kind);
  const cfg = ext ?? hosted;
  if (!isObject(cfg)) throw invalidArgument(`${root}: must be an object`);
  const maskRaw = body.updateMask ?? null;
  if (maskRaw !== null && typeof maskRaw !== 'string') throw invalidArgument('updateMask: must be a string of comma-separated field paths');

  const parsed: ParsedCredentialsRequest = { kind, root, settings: {}, configFields: null, auth: null, mask: null };
  const authSet: AuthKind[] = [];
  for (const [name, value] of Object.entries(cfg)) {
    const path = `${root}.${name}`;
    const spec = has(SETTINGS[kind], name) ? SETTINGS[kind][name] : undefined;
    if (spec) {
      const v = checkField(path, spec, value, onUnlisted);
      if (v !== null) (parsed.settings as Record<string, string>)[name] = v as string;
    } else if (name === 'configFields' && kind === 'hosted') {
      const v = checkField(path, MAP, value) as Record<string, string> | null;
      if (v !== null) parsed.configFields = v;
    } else if (isAuthKind(name) && AUTH_KINDS[kind].includes(name)) {
      if (value !== null && value !== undefined) authSet.push(name);
    } else if (isAuthKind(name)) {
      throw invalidArgument(`${path}: not available for ${kind} servers (hosted servers only)`);
    } else {
      throw invalidArgument(`${path}: unknown field`);
    }
  }
  if (authSet.length > 1) {
    throw invalidArgument(`${root}: at most one authentication method may be set (got ${authSet.join(', ')})`);
  }
  if (authSet.length === 1) parsed.auth = parseAuth(root, authSet[0]!, cfg[authSet[0]!], onUnlisted);

  if (parsed.settings.url) checkHttpsUrl(`${root}.url`, parsed.settings.url);
  const catalogId = parsed.settings.mcpServerCatalogId;
  if (catalogId && !isKsuid(catalogId)) throw invalidArgument(`${root}.mcpServerCatalogId: must be a 27-character KSUID`);
  if (parsed.configFields) {
    for (const k of Object.keys(parsed.configFields)) if (k.trim() !== k || k.includes('.')) throw invalidArgument(`${root}.configFields: ${quote(k)} is not a valid config field name`);
  }

  // Every hosted request carries its catalog entry, even when the mask leaves it out (service-notes.md §3).
  if (kind === 'hosted' && !catalogId) {
    throw invalidArgument(`${root}.mcpServerCatalogId: required on every hosted request, even when the mask leaves it out (a 27-character KSUID from the MCP catalog)`);
  }

  parsed.mask = parseUpdateMask(maskRaw as string | null, kind);
  if (parsed.mask === null) checkEffective(effectiveFromRequest(parsed), root);
  else checkMaskedRequest(parsed);
  return parsed;
}

/**
 * With a mask, the rules the request alone decides (a subset of what stage 2
 * checks on the result): a masked URL must be set, and an auth object the mask
 * names whole becomes the stored one as sent; its token sharing is known only
 * when the mask names it too.
 */
function checkMaskedRequest(req: ParsedCredentialsRequest): void {
  const mask = req.mask!;
  if (req.kind === 'external' && mask.includes('url') && !req.settings.url) throw urlRequired(req.root);
  if (!req.auth || !mask.includes(req.auth.kind)) return;
  const sharing = mask.includes('tokenSharing') ? req.settings.tokenSharing ?? TokenSharing.UNSPECIFIED : undefined;
  checkAuthRules(authFromRequest(req.auth), req.root, sharing);
}

/** The config a request without a mask results in (it replaces the stored one). */
export function effectiveFromRequest(req: ParsedCredentialsRequest): EffectiveConfig {
  const configFields: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(req.configFields ?? {})) configFields[k] = { value: v };
  return {
    kind: req.kind,
    settings: { ...DEFAULT_SETTINGS, ...req.settings },
    configFields,
    auth: req.auth ? authFromRequest(req.auth) : null,
  };
}

function authFromRequest(a: ParsedAuth): EffectiveAuth {
  const secrets: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(a.secrets)) secrets[k] = { value: v };
  return { kind: a.kind, values: structuredClone(a.values), secrets };
}

const secretSet = (a: EffectiveAuth, name: string) => a.secrets[name] !== undefined;
const strValue = (a: EffectiveAuth, name: string) => (typeof a.values[name] === 'string' ? (a.values[name] as string) : '');
const oauth2ModeOf = (a: EffectiveAuth) => strValue(a, 'mode') || OAuth2Mode.UNSPECIFIED;

function describeAuth(a: EffectiveAuth | null): string {
  if (!a) return 'no authentication method';
  if (a.kind === 'oauth2') return `oauth2 mode ${shortEnum(oauth2ModeOf(a))}`;
  return a.kind;
}

/**
 * Token sharing as the view reports it: rows stored under the legacy OAuth2
 * modes SERVICE / PASSTHROUGH are reported as SHARED / PER_USER.
 */
export function reportedTokenSharing(stored: string, authKind: string, oauth2Mode: string): string {
  if (authKind === 'oauth2' && oauth2Mode === OAuth2Mode.SERVICE) return TokenSharing.SHARED;
  if (authKind === 'oauth2' && oauth2Mode === OAuth2Mode.PASSTHROUGH) return TokenSharing.PER_USER;
  return stored;
}

const urlRequired = (root: ConfigRoot) => invalidArgument(`${root}.url: required; must be an absolute https URL`);

/** The rules on a resulting config (required fields and combinations). */
export function checkEffective(eff: EffectiveConfig, root: ConfigRoot): void {
  if (eff.kind === 'external' && !eff.settings.url) throw urlRequired(root);
  checkAuthRules(eff.auth, root, eff.settings.tokenSharing);
}

/**
 * The rules on an auth config and the token sharing it is used with;
 * `sharing` undefined (not known) skips the rules that depend on it.
 */
function checkAuthRules(auth: EffectiveAuth | null, root: ConfigRoot, sharing: string | undefined): void {
  const p = (f: string) => `${root}.${f}`;
  const perUser = sharing === TokenSharing.PER_USER;
  // UNSPECIFIED means SHARED at runtime; a value this version does not list (CLI only) is left to the service.
  const shared = sharing === TokenSharing.SHARED || sharing === TokenSharing.UNSPECIFIED;
  const mode = auth?.kind === 'oauth2' ? oauth2ModeOf(auth) : '';
  if (perUser) {
    const ok = auth !== null && ((PER_USER_KINDS as readonly string[]).includes(auth.kind) || mode === OAuth2Mode.AUTHORIZATION_CODE || mode === OAuth2Mode.PASSTHROUGH);
    if (!ok) {
      throw invalidArgument(
        `${p('tokenSharing')}: PER_USER is supported only with oauth2 authorization code, bearerToken, customHeader and basicAuth, not with ${describeAuth(auth)}` +
          (auth?.kind === 'awsSigv4' ? ' (AWS SigV4 supports SHARED only)' : ''),
      );
    }
  }
  if (mode === OAuth2Mode.PASSTHROUGH && sharing === TokenSharing.SHARED) {
    throw invalidArgument(`${p('tokenSharing')}: SHARED conflicts with oauth2 mode PASSTHROUGH, which is per-user`);
  }
  if (!auth) return;
  const a = (f: string) => `${root}.${auth.kind}.${f}`;
  switch (auth.kind) {
    case 'bearerToken':
      if (shared && !secretSet(auth, 'token')) throw invalidArgument(`${a('token')}: required for SHARED token sharing`);
      break;
    case 'customHeader':
      if (!strValue(auth, 'headerName')) throw invalidArgument(`${a('headerName')}: required`);
      if (shared && !secretSet(auth, 'headerValue')) throw invalidArgument(`${a('headerValue')}: required for SHARED token sharing`);
      break;
    case 'basicAuth':
      if (shared && !strValue(auth, 'username')) throw invalidArgument(`${a('username')}: must not be empty for SHARED token sharing`);
      break;
    case 'awsSigv4':
      if (!strValue(auth, 'accessKeyId')) throw invalidArgument(`${a('accessKeyId')}: required`);
      if (!secretSet(auth, 'secretAccessKey')) throw invalidArgument(`${a('secretAccessKey')}: required`);
      break;
    case 'googleServiceAccount':
      if (!secretSet(auth, 'credentialsJson')) throw invalidArgument(`${a('credentialsJson')}: required`);
      break;
    case 'oauth2':
      checkOAuth2(auth, a);
      break;
  }
}

function checkOAuth2(auth: EffectiveAuth, a: (f: string) => string): void {
  const mode = oauth2ModeOf(auth);
  const short = shortEnum(mode);
  if (mode === OAuth2Mode.UNSPECIFIED) throw invalidArgument(`${a('mode')}: required (${OAUTH2_MODES.slice(1).map(shortEnum).join(', ')})`);
  if (mode === OAuth2Mode.GOOGLE_SERVICE_ACCOUNT) {
    throw invalidArgument(`${a('mode')}: GOOGLE_SERVICE_ACCOUNT is configured with hostedConfig.googleServiceAccount, not oauth2`);
  }
  if (!strValue(auth, 'tokenUrl')) {
    throw invalidArgument(`${a('tokenUrl')}: required for mode ${short} when OAuth2 credentials are created or rotated (none is stored for this mode)`);
  }
  if (mode === OAuth2Mode.SERVICE || mode === OAuth2Mode.PASSTHROUGH) {
    const issuer = strValue(auth, 'issuerUrl');
    if (!issuer) throw invalidArgument(`${a('issuerUrl')}: required for mode ${short}`);
    if (!isBareIssuerUrl(issuer)) {
      throw invalidArgument(`${a('issuerUrl')}: must be an issuer URL without a path, query or fragment for mode ${short}`);
    }
  }
  if (mode === OAuth2Mode.CLIENT_CREDENTIALS) {
    if (!strValue(auth, 'clientId')) throw invalidArgument(`${a('clientId')}: required for mode CLIENT_CREDENTIALS`);
    if (!secretSet(auth, 'clientSecret')) throw invalidArgument(`${a('clientSecret')}: required for mode CLIENT_CREDENTIALS`);
  }
  if (mode === OAuth2Mode.AUTHORIZATION_CODE) {
    const idMode = strValue(auth, 'clientIdMode') || OAuth2ClientIdMode.UNSPECIFIED;
    if (idMode === OAuth2ClientIdMode.UNSPECIFIED && !strValue(auth, 'clientId')) {
      throw invalidArgument(`${a('clientId')}: required for a manual authorization-code client (clientIdMode UNSPECIFIED); use DCR or CIMD to have it acquired`);
    }
  }
  if (mode === OAuth2Mode.JWT_BEARER && !secretSet(auth, 'jwtPrivateKey')) {
    throw invalidArgument(`${a('jwtPrivateKey')}: required for mode JWT_BEARER`);
  }
}

// ---------------------------------------------------------------------------
// Stage 2: against the stored server.

const kindOfServerType = (t: string): ConfigKind | undefined =>
  t === ServerType.EXTERNAL ? 'external' : t === ServerType.HOSTED ? 'hosted' : undefined;

function emptyConfig(kind: ConfigKind): EffectiveConfig {
  return { kind, settings: { ...DEFAULT_SETTINGS }, configFields: {}, auth: null };
}

function cloneConfig(c: EffectiveConfig): EffectiveConfig {
  return {
    kind: c.kind,
    settings: { ...c.settings },
    configFields: { ...c.configFields },
    auth: c.auth ? { kind: c.auth.kind, values: structuredClone(c.auth.values), secrets: { ...c.auth.secrets } } : null,
  };
}

/** Applies an updateMask to the stored config: only the named fields change. */
export function applyUpdateMask(req: ParsedCredentialsRequest, stored: EffectiveConfig): { config: EffectiveConfig; authReplaced: boolean } {
  const mask = req.mask ?? [];
  const eff = cloneConfig(stored);
  const settings = eff.settings as unknown as Record<string, string>;
  for (const path of mask) {
    if (has(SETTINGS[req.kind], path)) settings[path] = (req.settings as Record<string, string>)[path] ?? (DEFAULT_SETTINGS as unknown as Record<string, string>)[path]!;
  }
  // Config fields: a new catalog entry starts from an empty set; `configFields` replaces the map; `configFields.x` one key.
  if (req.kind === 'hosted') {
    if (eff.settings.mcpServerCatalogId !== stored.settings.mcpServerCatalogId) eff.configFields = {};
    if (mask.includes('configFields')) eff.configFields = {};
    for (const path of mask) {
      if (path === 'configFields') {
        for (const [k, v] of Object.entries(req.configFields ?? {})) eff.configFields[k] = { value: v };
      } else if (path.startsWith('configFields.')) {
        const key = path.slice('configFields.'.length);
        const v = req.configFields && has(req.configFields, key) ? req.configFields[key] : undefined;
        if (v === undefined) delete eff.configFields[key];
        else eff.configFields[key] = { value: v };
      }
    }
  }
  // Auth: at most one auth object may be named; it must be set in the request.
  const authPaths = mask.filter((p) => isAuthKind(p.split('.')[0]!));
  const kinds = [...new Set(authPaths.map((p) => p.split('.')[0]! as AuthKind))];
  if (kinds.length > 1) throw invalidArgument(`updateMask: names more than one authentication method (${kinds.join(', ')}); at most one may be set`);
  let authReplaced = false;
  if (kinds.length === 1) {
    const kind = kinds[0]!;
    if (!req.auth || req.auth.kind !== kind) throw invalidArgument(`updateMask: ${kind} is in the mask but ${req.root}.${kind} is not set`);
    if (authPaths.includes(kind)) {
      eff.auth = authFromRequest(req.auth);
      authReplaced = true;
    } else {
      const fields = authPaths.map((p) => p.slice(kind.length + 1));
      let base: EffectiveAuth | null = stored.auth && stored.auth.kind === kind ? eff.auth : null;
      if (base && kind === 'oauth2' && fields.includes('mode') && (req.auth.values.mode ?? OAuth2Mode.UNSPECIFIED) !== oauth2ModeOf(base)) base = null;
      if (!base) {
        base = { kind, values: {}, secrets: {} };
        authReplaced = true;
      }
      for (const f of fields) {
        if (AUTH_FIELDS[kind][f]!.t === 'secret') {
          const v = req.auth.secrets[f];
          if (v === undefined) delete base.secrets[f];
          else base.secrets[f] = { value: v };
        } else if (has(req.auth.values, f)) {
          base.values[f] = structuredClone(req.auth.values[f]);
        } else {
          delete base.values[f];
        }
      }
      if (kind === 'googleServiceAccount' && fields.includes('credentialsJson')) {
        delete base.values.clientEmail;
        delete base.values.tokenUri;
        if (req.auth.values.clientEmail !== undefined) {
          base.values.clientEmail = req.auth.values.clientEmail;
          base.values.tokenUri = req.auth.values.tokenUri;
        }
      }
      eff.auth = base;
    }
  }
  return { config: eff, authReplaced };
}

/**
 * The stateful stage: checks the request against the stored server and
 * returns the config to store. `catalog` looks a catalog entry up by ID.
 * Throws InvalidArgument, or FailedPrecondition for a locked endpoint URL.
 */
export function planCredentialsUpdate(
  req: ParsedCredentialsRequest,
  stored: StoredServer,
  catalog: (id: string) => CatalogEntryInfo | undefined,
): CredentialsPlan {
  const storedKind = kindOfServerType(stored.serverType);
  if (storedKind && storedKind !== req.kind) {
    const want = rootOf(storedKind);
    throw invalidArgument(`${req.root}: ${stored.connectorId} is ${storedKind === 'external' ? 'an external' : 'a hosted'} server; send ${want}`);
  }
  const base = storedKind === req.kind && stored.config.kind === req.kind ? stored.config : emptyConfig(req.kind);
  const { config, authReplaced } = req.mask ? applyUpdateMask(req, base) : { config: effectiveFromRequest(req), authReplaced: true };
  checkEffective(config, req.root);

  let catalogEntry: CatalogEntryInfo | undefined;
  if (config.kind === 'hosted') {
    const id = config.settings.mcpServerCatalogId;
    catalogEntry = catalog(id);
    if (!catalogEntry) throw invalidArgument(`${req.root}.mcpServerCatalogId: no MCP catalog entry has ID ${id}`);
    const known = catalogEntry.configFields.map((f) => f.name);
    for (const k of Object.keys(config.configFields)) {
      if (!known.includes(k)) {
        throw invalidArgument(`${req.root}.configFields.${k}: not a config field of catalog entry ${id} (known: ${known.join(', ') || 'none'})`);
      }
    }
  }
  if (config.kind === 'external' && stored.endpointUrlLocked && base.kind === 'external') {
    if (!sameEndpointUrl(config.settings.url, base.settings.url)) {
      throw failedPrecondition(
        `${req.root}.url: the endpoint URL of ${stored.connectorId} is locked after its first successful sync and cannot be changed`,
      );
    }
    // The same URL written differently (scheme or host case, default port): the stored form stays, byte for byte.
    return { config: { ...config, settings: { ...config.settings, url: base.settings.url } }, authReplaced, catalogEntry };
  }
  return { config, authReplaced, catalogEntry };
}
