// MCP server credentials (service-api.md §2.1, §2.2, §4.1): request
// validation. The embedded server and the CLI run this same code, so a mistake
// is reported with the same message on both sides. Pure: no I/O. The wire
// shapes are schemas (mcp-schema.ts); the updateMask and the update plan are
// hand-written (mcp-mask.ts).
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
import { isKsuid } from '../lib/ids.js';
import { isJsonObject } from '../lib/json.js';
import { invalidArgument } from './errors.js';
import {
  authFromRequest,
  checkAuthRules,
  checkEffective,
  checkHttpsUrl,
  effectiveFromRequest,
  has,
  HEADER_NAME_RE,
  isAuthKind,
  isPemRsaPrivateKey,
  parseGoogleCredentials,
  quote,
  rootOf,
  urlRequired,
  type ParsedAuth,
  type ParsedCredentialsRequest,
} from './mcp-config.js';
import { parseUpdateMask } from './mcp-mask.js';
import {
  AUTH_FIELDS,
  AUTH_KINDS,
  CONFIG_FIELDS,
  isReadOnlyField,
  isSecretField,
  isUnlistedEnumValue,
  PKCE_VALUES,
  SETTINGS,
  TokenSharing,
  type ConfigKind,
  type ConfigRoot,
} from './mcp-schema.js';
import type { AuthKind } from './secret-fields.js';
import type { z } from 'zod';

/**
 * Called for each enum value of a request that this version does not list.
 * Without it (the server) such a value is InvalidArgument; with it (the CLI)
 * a full-form value is accepted and reported, for the service to judge.
 */
type UnlistedEnumHandler = (path: string, value: string) => void;

/** What a field must be, for the message of a value of the wrong type. */
const EXPECTED: Record<string, string> = {
  string: 'must be a string',
  enum: 'must be a string enum value',
  array: 'must be an array of strings',
  pipe: 'must be an object of string values',
};

/**
 * Checks one request field against its schema; null for an absent (null)
 * value or a read-only field. The message names the field (and the key of a
 * map, or the index of a list, when the fault is there).
 */
function checkField(path: string, schema: z.ZodType, value: unknown, onUnlisted?: UnlistedEnumHandler): unknown {
  if (value === null || value === undefined || isReadOnlyField(schema)) return null;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const type = schema.def.type;
  if (issue.code === 'invalid_value' && type === 'enum' && typeof value === 'string') {
    const values = (schema as z.ZodEnum).options as string[];
    if (onUnlisted && isUnlistedEnumValue(values, value)) {
      onUnlisted(path, value);
      return value;
    }
    throw invalidArgument(`${path}: unknown value ${quote(value)}; expected one of ${values.join(', ')}`);
  }
  if (issue.code === 'too_big')
    throw invalidArgument(`${path}: at most ${String(issue.maximum)} entries are allowed (got ${(value as unknown[]).length})`);
  if (issue.code === 'invalid_key') throw invalidArgument(`${path}: keys must not be empty`);
  // A fault inside a map (a value, or a key refused by name) is named by its key.
  if (type === 'pipe' && issue.path.length > 0)
    throw invalidArgument(`${path}.${String(issue.path[0])}: ${issue.code === 'custom' ? issue.message : 'must be a string'}`);
  throw invalidArgument(`${path}: ${EXPECTED[type] ?? 'has the wrong type'}`);
}

function parseAuth(root: ConfigRoot, kind: AuthKind, raw: unknown, onUnlisted?: UnlistedEnumHandler): ParsedAuth {
  const path = `${root}.${kind}`;
  if (!isJsonObject(raw)) throw invalidArgument(`${path}: must be an object`);
  const fields: Record<string, z.ZodType> = AUTH_FIELDS[kind];
  const auth: ParsedAuth = { kind, values: {}, secrets: {} };
  for (const [name, value] of Object.entries(raw)) {
    const spec = has(fields, name) ? fields[name] : undefined;
    if (!spec) throw invalidArgument(`${path}.${name}: unknown field`);
    const v = checkField(`${path}.${name}`, spec, value, onUnlisted);
    if (v === null) continue;
    if (isSecretField(spec)) {
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
// Stage 1: the request alone.

/**
 * Validates an UpdateCredentialsRequest body and returns it normalized.
 * Throws ApiError InvalidArgument naming the field path. `onUnlisted` lets
 * full-form enum values this version does not list through (see UnlistedEnumHandler).
 */
export function validateCredentialsRequest(body: unknown, onUnlisted?: UnlistedEnumHandler): ParsedCredentialsRequest {
  if (!isJsonObject(body)) throw invalidArgument('request body: must be a JSON object');
  for (const k of Object.keys(body)) {
    if (k !== 'externalConfig' && k !== 'hostedConfig' && k !== 'updateMask') throw invalidArgument(`${k}: unknown field`);
  }
  const ext = body.externalConfig ?? null;
  const hosted = body.hostedConfig ?? null;
  if (ext !== null && hosted !== null)
    throw invalidArgument('externalConfig, hostedConfig: only one of externalConfig and hostedConfig may be set');
  if (ext === null && hosted === null)
    throw invalidArgument('externalConfig, hostedConfig: one of externalConfig or hostedConfig is required');
  const kind: ConfigKind = ext !== null ? 'external' : 'hosted';
  const root = rootOf(kind);
  const cfg = ext ?? hosted;
  if (!isJsonObject(cfg)) throw invalidArgument(`${root}: must be an object`);
  const maskRaw = body.updateMask ?? null;
  if (maskRaw !== null && typeof maskRaw !== 'string') throw invalidArgument('updateMask: must be a string of comma-separated field paths');

  const parsed: ParsedCredentialsRequest = { kind, root, settings: {}, configFields: null, auth: null, mask: null };
  const authSet: AuthKind[] = [];
  for (const [name, value] of Object.entries(cfg)) {
    const path = `${root}.${name}`;
    const settings: Record<string, z.ZodType> = SETTINGS[kind];
    const spec = has(settings, name) ? settings[name] : undefined;
    if (spec) {
      const v = checkField(path, spec, value, onUnlisted);
      if (v !== null) (parsed.settings as Record<string, string>)[name] = v as string;
    } else if (name === 'configFields' && kind === 'hosted') {
      const v = checkField(path, CONFIG_FIELDS, value) as Record<string, string> | null;
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
    for (const k of Object.keys(parsed.configFields))
      if (k.trim() !== k || k.includes('.')) throw invalidArgument(`${root}.configFields: ${quote(k)} is not a valid config field name`);
  }

  // Every hosted request carries its catalog entry, even when the mask leaves it out (service-notes.md §3).
  if (kind === 'hosted' && !catalogId) {
    throw invalidArgument(
      `${root}.mcpServerCatalogId: required on every hosted request, even when the mask leaves it out (a 27-character KSUID from the MCP catalog)`,
    );
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
  const sharing = mask.includes('tokenSharing') ? (req.settings.tokenSharing ?? TokenSharing.UNSPECIFIED) : undefined;
  checkAuthRules(authFromRequest(req.auth), req.root, sharing);
}
