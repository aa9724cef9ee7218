// MCP server credentials: the normalized config a request results in or the
// store holds, the format checks of single values, and the rules on a
// resulting config (required fields and combinations). Pure: no I/O.
import { createPrivateKey } from 'node:crypto';
import { isJsonObject } from '../lib/json.js';
import { HTTP_TOKEN } from '../lib/net.js';
import { invalidArgument } from './errors.js';
import {
  OAUTH2_MODES,
  OAuth2ClientIdMode,
  OAuth2Mode,
  OPTIONAL_BOOLS,
  ServerType,
  TOKEN_SHARING,
  TRANSPORT_TYPES,
  TokenSharing,
  shortEnum,
  type ConfigKind,
  type ConfigRoot,
} from './mcp-schema.js';
import type { CatalogField, McpCatalogEntry } from './mcp-catalog.js';
import {
  AUTH_KIND_LIST,
  AUTH_METHOD_TABLE,
  authMethod,
  isAuthKind,
  needed,
  perUserMethods,
  perUserSupported,
  type AuthKind,
} from './mcp-auth.js';

/** The auth method the view reports for each request auth object (the auth method table's `method`). */
export const AUTH_METHOD_FOR_KIND = Object.fromEntries(AUTH_KIND_LIST.map((k) => [k, AUTH_METHOD_TABLE[k].method])) as unknown as Record<
  AuthKind,
  string
>;

export const rootOf = (kind: ConfigKind): ConfigRoot => (kind === 'external' ? 'externalConfig' : 'hostedConfig');
/** The config kind a view's `serverType` names; undefined for UNSPECIFIED, a value this version does not know, or none. */
export const kindOfServerType = (t: unknown): ConfigKind | undefined =>
  t === ServerType.EXTERNAL ? 'external' : t === ServerType.HOSTED ? 'hosted' : undefined;
export { isAuthKind, perUserSupported };

// ---------------------------------------------------------------------------
// Normalized configs.

/** A secret or config-field value: new from the request, or kept as stored (never opened). */
export type FieldValue = { value: string } | { kept: true };
export const KEPT: FieldValue = Object.freeze({ kept: true as const });

interface Settings {
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

/** An auth object: its name (`Kind`), its non-secret fields (absent = default) and its secret fields that are set. */
interface AuthOf<Kind extends string, Secret> {
  kind: Kind;
  values: Record<string, unknown>;
  secrets: Record<string, Secret>;
}

/**
 * An auth object of a config: stored rows may hold a kind this version does
 * not know; Google service accounts also carry the derived clientEmail and
 * tokenUri in `values`.
 */
export type EffectiveAuth = AuthOf<string, FieldValue>;

/** A server's credential config: what is stored, or what an update results in. */
export interface EffectiveConfig {
  kind: ConfigKind;
  settings: Settings;
  /** Hosted config fields; secret ones are `KEPT` when they come from the store. */
  configFields: Record<string, FieldValue>;
  auth: EffectiveAuth | null;
}

/** An auth object of a request; its secrets are the non-empty secret values sent. */
export type ParsedAuth = AuthOf<AuthKind, string>;

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

/** What a credentials update reads of a catalog entry's config field (declared in mcp-catalog.ts). */
type CatalogConfigField = Pick<CatalogField, 'name' | 'secret'>;
/** What a credentials update reads of a catalog entry (declared in mcp-catalog.ts). */
export type CatalogEntryInfo = Pick<McpCatalogEntry, 'id'> & { serviceName: string; configFields: CatalogConfigField[] };

export interface CredentialsPlan {
  config: EffectiveConfig;
  /** True when the auth config was created or rotated rather than partially updated (runtime OAuth2 state is dropped). */
  authReplaced: boolean;
  catalogEntry?: CatalogEntryInfo;
}

// ---------------------------------------------------------------------------
// Helpers.

export const has = (o: object, k: string) => Object.hasOwn(o, k);
export const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);

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
interface GoogleServiceAccountInfo {
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
  if (!isJsonObject(doc)) throw invalidArgument(`${path}: must be the JSON object of a Google service account key file`);
  for (const k of ['private_key', 'client_email', 'token_uri']) {
    if (typeof doc[k] !== 'string' || doc[k] === '') throw invalidArgument(`${path}: the service account key has no ${k}`);
  }
  if (!isPemRsaPrivateKey(doc.private_key as string)) throw invalidArgument(`${path}: private_key is not a PEM-encoded RSA private key`);
  checkHttpsUrl(`${path}: token_uri`, doc.token_uri as string);
  return { clientEmail: doc.client_email as string, tokenUri: doc.token_uri as string };
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

export function authFromRequest(a: ParsedAuth): EffectiveAuth {
  const secrets: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(a.secrets)) secrets[k] = { value: v };
  return { kind: a.kind, values: structuredClone(a.values), secrets };
}

const secretSet = (a: EffectiveAuth, name: string) => a.secrets[name] !== undefined;
const strValue = (a: EffectiveAuth, name: string) => (typeof a.values[name] === 'string' ? (a.values[name] as string) : '');
export const oauth2ModeOf = (a: EffectiveAuth) => strValue(a, 'mode') || OAuth2Mode.UNSPECIFIED;

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

export const urlRequired = (root: ConfigRoot) => invalidArgument(`${root}.url: required; must be an absolute https URL`);

/** The rules on a resulting config (required fields and combinations). */
export function checkEffective(eff: EffectiveConfig, root: ConfigRoot): void {
  if (eff.kind === 'external' && !eff.settings.url) throw urlRequired(root);
  checkAuthRules(eff.auth, root, eff.settings.tokenSharing);
}

/**
 * The rules on an auth config and the token sharing it is used with;
 * `sharing` undefined (not known) skips the rules that depend on it.
 */
export function checkAuthRules(auth: EffectiveAuth | null, root: ConfigRoot, sharing: string | undefined): void {
  const p = (f: string) => `${root}.${f}`;
  const perUser = sharing === TokenSharing.PER_USER;
  // UNSPECIFIED means SHARED at runtime; a value this version does not list (CLI only) is left to the service.
  const shared = sharing === TokenSharing.SHARED || sharing === TokenSharing.UNSPECIFIED;
  const mode = auth?.kind === 'oauth2' ? oauth2ModeOf(auth) : '';
  if (perUser) {
    if (!auth || !perUserSupported(auth.kind, mode)) {
      throw invalidArgument(
        `${p('tokenSharing')}: PER_USER is supported only with ${perUserMethods()}, not with ${describeAuth(auth)}` +
          (auth?.kind === 'awsSigv4' ? ' (AWS SigV4 supports SHARED only)' : ''),
      );
    }
  }
  if (mode === OAuth2Mode.PASSTHROUGH && sharing === TokenSharing.SHARED) {
    throw invalidArgument(`${p('tokenSharing')}: SHARED conflicts with oauth2 mode PASSTHROUGH, which is per-user`);
  }
  if (!auth) return;
  const a = (f: string) => `${root}.${auth.kind}.${f}`;
  if (!isAuthKind(auth.kind)) return;
  // What the method's declaration requires: its non-secret fields, then its secrets.
  const spec = authMethod(auth.kind);
  for (const [f, v] of Object.entries(spec.values)) {
    if (needed(v.required, shared, mode) && !strValue(auth, f))
      throw invalidArgument(`${a(f)}: ${v.required === 'shared' ? 'must not be empty for SHARED token sharing' : 'required'}`);
  }
  for (const [f, v] of Object.entries(spec.secrets)) {
    if (needed(v.required, shared, mode) && !secretSet(auth, f))
      throw invalidArgument(`${a(f)}: ${v.required === 'shared' ? 'required for SHARED token sharing' : 'required'}`);
  }
  if (auth.kind === 'oauth2') checkOAuth2(auth, a);
}

function checkOAuth2(auth: EffectiveAuth, a: (f: string) => string): void {
  const mode = oauth2ModeOf(auth);
  const short = shortEnum(mode);
  if (mode === OAuth2Mode.UNSPECIFIED) throw invalidArgument(`${a('mode')}: required (${OAUTH2_MODES.slice(1).map(shortEnum).join(', ')})`);
  if (mode === OAuth2Mode.GOOGLE_SERVICE_ACCOUNT) {
    throw invalidArgument(`${a('mode')}: GOOGLE_SERVICE_ACCOUNT is configured with hostedConfig.googleServiceAccount, not oauth2`);
  }
  if (!strValue(auth, 'tokenUrl')) {
    throw invalidArgument(
      `${a('tokenUrl')}: required for mode ${short} when OAuth2 credentials are created or rotated (none is stored for this mode)`,
    );
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
      throw invalidArgument(
        `${a('clientId')}: required for a manual authorization-code client (clientIdMode UNSPECIFIED); use DCR or CIMD to have it acquired`,
      );
    }
  }
  if (mode === OAuth2Mode.JWT_BEARER && !secretSet(auth, 'jwtPrivateKey')) {
    throw invalidArgument(`${a('jwtPrivateKey')}: required for mode JWT_BEARER`);
  }
}
