// MCP server credentials: the updateMask and the update plan, hand-written
// (service-notes.md §3). Pure: no I/O.
import type { z } from 'zod';
import { failedPrecondition, invalidArgument } from './errors.js';
import {
  authFromRequest,
  checkEffective,
  DEFAULT_SETTINGS,
  effectiveFromRequest,
  has,
  isAuthKind,
  kindOfServerType,
  oauth2ModeOf,
  rootOf,
  sameEndpointUrl,
  type CatalogEntryInfo,
  type CredentialsPlan,
  type EffectiveAuth,
  type EffectiveConfig,
  type ParsedCredentialsRequest,
  type StoredServer,
} from './mcp-config.js';
import { AUTH_FIELDS, AUTH_KINDS, isReadOnlyField, isSecretField, OAuth2Mode, SETTINGS, type ConfigKind } from './mcp-schema.js';
import type { AuthKind } from './secret-fields.js';

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
      if (rest === '__proto__') throw bad('not accepted as a config field name (it names the object prototype)');
    } else if (isAuthKind(head!) && AUTH_KINDS[kind].includes(head)) {
      if (rest) {
        const fields: Record<string, z.ZodType> = AUTH_FIELDS[head];
        const spec = has(fields, rest) ? fields[rest] : undefined;
        if (!spec) throw bad('unknown path');
        if (isReadOnlyField(spec)) throw bad('read-only field');
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
// Stage 2: against the stored server.

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
function applyUpdateMask(req: ParsedCredentialsRequest, stored: EffectiveConfig): { config: EffectiveConfig; authReplaced: boolean } {
  const mask = req.mask ?? [];
  const eff = cloneConfig(stored);
  const settings = eff.settings as unknown as Record<string, string>;
  for (const path of mask) {
    if (has(SETTINGS[req.kind], path))
      settings[path] = (req.settings as Record<string, string>)[path] ?? (DEFAULT_SETTINGS as unknown as Record<string, string>)[path]!;
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
  if (kinds.length > 1)
    throw invalidArgument(`updateMask: names more than one authentication method (${kinds.join(', ')}); at most one may be set`);
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
      if (base && kind === 'oauth2' && fields.includes('mode') && (req.auth.values.mode ?? OAuth2Mode.UNSPECIFIED) !== oauth2ModeOf(base))
        base = null;
      if (!base) {
        base = { kind, values: {}, secrets: {} };
        authReplaced = true;
      }
      for (const f of fields) {
        if (isSecretField((AUTH_FIELDS[kind] as Record<string, z.ZodType>)[f]!)) {
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
    throw invalidArgument(
      `${req.root}: ${stored.connectorId} is ${storedKind === 'external' ? 'an external' : 'a hosted'} server; send ${want}`,
    );
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
        throw invalidArgument(
          `${req.root}.configFields.${k}: not a config field of catalog entry ${id} (known: ${known.join(', ') || 'none'})`,
        );
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
