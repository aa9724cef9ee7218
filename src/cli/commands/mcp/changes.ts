// What an update request would change, in words, for the walk-through's last
// question: "Tool approval: required → tenant default". Secret values are
// never shown, only that a new one is sent or that one is cleared.
import { authMethod, isAuthKind } from '../../../api/mcp-auth.js';
import { AUTH_SECRET_FIELDS } from '../../../api/secret-fields.js';
import {
  AUTH_METHODS,
  OAUTH2_MODES,
  TOKEN_SHARING,
  TRANSPORT_TYPES,
  type McpServerView,
  type UpdateCredentialsRequest,
} from '../../../api/mcp-schema.js';
import { isJsonObject } from '../../../lib/json.js';
import { enumLabel, toolApproval } from './summary.js';

const text = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) ? v.filter((x) => typeof x === 'string').join(' ') : '');
const shown = (v: string) => (v === '' ? '(empty)' : v);

/** Labels and how to word the values of the config's settings. */
const SETTINGS: [key: string, label: string, view: keyof McpServerView, word: (v: string) => string][] = [
  ['url', 'URL', 'endpointUrl', shown],
  ['transportType', 'Transport', 'transportType', (v) => enumLabel(v, TRANSPORT_TYPES) || '(unspecified)'],
  ['mcpServerCatalogId', 'Catalog entry', 'mcpServerCatalogId', shown],
  ['sourceAppId', 'Source app', 'sourceAppId', shown],
  ['tokenSharing', 'Token sharing', 'tokenSharing', (v) => enumLabel(v, TOKEN_SHARING) || '(unspecified)'],
  ['requireToolApproval', 'Tool approval', 'requireToolApproval', toolApproval],
];

/**
 * One line per change the request makes to the server its view shows: the
 * masked settings, the config fields (secret ones by the catalog schema's
 * marks; every one when no schema is known) and the auth method with the
 * fields it is given.
 */
export function describeChanges(
  body: UpdateCredentialsRequest,
  view: McpServerView | null,
  secret: ReadonlySet<string> | undefined,
  kept: readonly string[] = [],
): string[] {
  const cfg = (
    isJsonObject(body.externalConfig) ? body.externalConfig : isJsonObject(body.hostedConfig) ? body.hostedConfig : {}
  ) as Record<string, unknown>;
  const mask = new Set((typeof body.updateMask === 'string' ? body.updateMask : '').split(',').map((p) => p.trim()));
  const out: string[] = [];
  for (const [key, label, member, word] of SETTINGS) {
    if (!mask.has(key)) continue;
    const before = word(text(view?.[member]));
    const after = word(text(cfg[key]));
    if (kept.includes(key))
      out.push(`${label}: ${after} (kept: sent with the new authentication, which the service could otherwise reset)`);
    else if (before !== after) out.push(`${label}: ${before} → ${after}`);
  }

  if (mask.has('configFields')) {
    const given = isJsonObject(cfg.configFields) ? (cfg.configFields as Record<string, unknown>) : {};
    const stored = isJsonObject(view?.configFieldValues) ? (view.configFieldValues as Record<string, unknown>) : {};
    for (const [k, v] of Object.entries(given)) {
      if (!secret || secret.has(k)) out.push(`Config field ${k}: a new secret value`);
      else if (text(stored[k]) !== text(v))
        out.push(`Config field ${k}: ${stored[k] === undefined ? '(not set)' : shown(text(stored[k]))} → ${shown(text(v))}`);
    }
    for (const k of Object.keys(stored)) if (!Object.hasOwn(given, k)) out.push(`Config field ${k}: ${shown(text(stored[k]))} → (cleared)`);
    for (const k of secret ?? []) if (!Object.hasOwn(given, k)) out.push(`Config field ${k}: (secret) → (cleared, if it was set)`);
  }

  const kind = Object.keys(cfg).find((k) => isAuthKind(k) && isJsonObject(cfg[k]));
  if (kind && [...mask].some((p) => p === kind || p.startsWith(`${kind}.`))) {
    const spec = isAuthKind(kind) ? authMethod(kind) : undefined;
    const before = enumLabel(view?.authMethod, AUTH_METHODS) || '(none)';
    const after = spec ? `${enumLabel(spec.method, AUTH_METHODS)}${spec.viewMode ? ` (${spec.label})` : ''}` : kind;
    out.push(before === after ? `Authentication: ${after}, replaced` : `Authentication: ${before} → ${after}`);
    const auth = cfg[kind] as Record<string, unknown>;
    const secrets: readonly string[] = isAuthKind(kind) ? AUTH_SECRET_FIELDS[kind] : [];
    for (const [f, v] of Object.entries(auth)) {
      if (secrets.includes(f)) out.push(`  ${f}: a new secret value`);
      else if (f === 'mode') out.push(`  mode: ${enumLabel(text(v), OAUTH2_MODES)}`);
      else if (isJsonObject(v))
        out.push(
          `  ${f}: ${Object.entries(v)
            .map(([a, b]) => `${a}=${text(b)}`)
            .join(', ')}`,
        );
      else out.push(`  ${f}: ${shown(text(v))}`);
    }
  }
  return out;
}

/**
 * What a write changed, from the server's views before and after it: the
 * settings, the auth method and the non-secret config fields, one line each
 * ("Token sharing: PER_USER → UNSPECIFIED"), whatever the request named, so
 * that a side effect of the service shows too.
 */
export function viewChanges(before: McpServerView, after: McpServerView): string[] {
  const out: string[] = [];
  for (const [, label, member, word] of SETTINGS) {
    if (member === 'endpointUrl' && after.serverType === 'MCP_SERVER_TYPE_HOSTED') continue;
    const [a, b] = [word(text(before[member])), word(text(after[member]))];
    if (a !== b) out.push(`${label}: ${a} → ${b}`);
  }
  const method = (v: McpServerView) => enumLabel(v.authMethod, AUTH_METHODS) || '(none)';
  if (method(before) !== method(after)) out.push(`Authentication: ${method(before)} → ${method(after)}`);
  const fieldsOf = (v: McpServerView): Record<string, unknown> => (isJsonObject(v.configFieldValues) ? v.configFieldValues : {});
  const [was, now] = [fieldsOf(before), fieldsOf(after)];
  for (const k of new Set([...Object.keys(was), ...Object.keys(now)])) {
    const [a, b] = [Object.hasOwn(was, k) ? shown(text(was[k])) : '(not set)', Object.hasOwn(now, k) ? shown(text(now[k])) : '(not set)'];
    if (a !== b) out.push(`Config field ${k}: ${a} → ${b}`);
  }
  return out;
}
