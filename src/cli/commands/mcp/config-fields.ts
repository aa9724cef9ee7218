// Hosted config fields are replaced as a whole by the service
// (service-notes.md §3): the mask path `configFields` drops every stored
// field the request does not carry, secrets included, and secret values
// cannot be read back. So before a request that sets config fields is sent,
// agctl re-sends the stored non-secret values the user did not change (from
// the server's view, `configFieldValues`) and stops when a secret field of
// the catalog entry's schema would be cleared, unless --replace-config-fields
// says so. The view does not say which secret fields are set, so every secret
// field of the schema counts as possibly stored.
import { catalogFields } from '../../../api/mcp-catalog.js';
import type { McpServerView, UpdateCredentialsRequest } from '../../../api/mcp-schema.js';
import { isJsonObject } from '../../../lib/json.js';
import { getCatalogEntry } from '../../../client/mcp.js';
import { UsageError } from '../../../lib/exit.js';
import type { CommandContext } from '../../context.js';
import { escapeControls } from '../../escape.js';

/** What the merge learnt: the schema's secret field names (undefined without a schema). */
interface ConfigFieldsOutcome {
  secret?: ReadonlySet<string>;
}

const has = (o: object, k: string) => Object.hasOwn(o, k);
const list = (names: string[]) => names.map((n) => escapeControls(n)).join(', ');

/**
 * Completes the config fields of a hosted request whose mask names them
 * (`configFields`, or `configFields.<name>`, which is sent as `configFields`:
 * the service documents no per-key path). `view` reads the server's view once.
 * Throws a usage error (exit 2, nothing sent) when a secret field would be
 * cleared without `replace`.
 */
export async function completeConfigFields(
  body: UpdateCredentialsRequest,
  ctx: CommandContext,
  o: { connectorId: string; replace: boolean; fromFile: boolean; view: () => Promise<McpServerView | null> },
): Promise<ConfigFieldsOutcome> {
  const cfg = body.hostedConfig;
  if (!isJsonObject(cfg) || typeof body.updateMask !== 'string') return {};
  const paths = body.updateMask
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const perKey = paths.filter((p) => p.startsWith('configFields.'));
  if (!paths.includes('configFields') && perKey.length === 0) {
    if (o.replace) throw new UsageError('--replace-config-fields: the request sets no config fields (the mask does not name configFields)');
    return {};
  }
  if (perKey.length) {
    const mask = [...new Set(paths.map((p) => (p.startsWith('configFields.') ? 'configFields' : p)))].join(',');
    ctx.out.info(
      `note: the service replaces config fields as a whole (it documents no per-field path); sending ${mask} instead of ${body.updateMask}`,
    );
    body.updateMask = mask;
  }
  const given: Record<string, unknown> = isJsonObject(cfg.configFields) ? cfg.configFields : {};
  /** Fields a per-key path names without a value: cleared on purpose. */
  const cleared = perKey.map((p) => p.slice('configFields.'.length)).filter((k) => !has(given, k));

  const catalogId = typeof cfg.mcpServerCatalogId === 'string' ? cfg.mcpServerCatalogId : '';
  const entry = await getCatalogEntry(await ctx.api(), catalogId);
  const fields = catalogFields(entry);
  const secret = fields && new Set(fields.filter((f) => f.secret).map((f) => f.name));
  if (o.replace) return { secret };

  const view = await o.view();
  /** The two ways on, for the fields `names` (their names in the flags when there is one). */
  const hint = (names: string[]) => {
    const [it, n] = names.length === 1 ? ['it', escapeControls(names[0]!)] : ['them', 'NAME'];
    const how = o.fromFile
      ? `put ${it} in hostedConfig.configFields of the request`
      : `give ${it} again with --config-file ${n}=PATH, --config-stdin ${n} or --config-secret ${n}`;
    return `${how}, or pass --replace-config-fields to clear ${it} on purpose`;
  };
  if (!view) {
    throw new UsageError(
      `the service returned no view of MCP server ${o.connectorId}, so agctl cannot keep its stored config fields (the service replaces config fields as a whole)`,
      hint([]),
    );
  }
  const storedId = typeof view.mcpServerCatalogId === 'string' ? view.mcpServerCatalogId : '';
  // Another catalog entry: the stored fields belong to the old one; nothing to keep.
  if (storedId && storedId !== catalogId) return { secret };
  if (!secret) {
    throw new UsageError(
      `catalog entry ${catalogId} sent no config schema, so agctl cannot tell which stored config fields of ${o.connectorId} are secret (the service replaces config fields as a whole and cannot return secret values)`,
      o.fromFile
        ? 'send every config field, and pass --replace-config-fields'
        : 'give every config field, and pass --replace-config-fields',
    );
  }
  const lost = [...secret].filter((k) => !has(given, k) && !cleared.includes(k));
  if (lost.length) {
    throw new UsageError(
      `the service replaces config fields as a whole: this update would clear the secret config field${lost.length > 1 ? 's' : ''} ${list(lost)} of ${o.connectorId} (secret values cannot be read back to be re-sent)`,
      hint(lost),
    );
  }
  const stored: Record<string, unknown> = isJsonObject(view.configFieldValues) ? view.configFieldValues : {};
  const kept: Record<string, string> = {};
  for (const [k, v] of Object.entries(stored)) {
    // Defined, not assigned: a field named __proto__ stays a field (validation then says it cannot be sent).
    if (typeof v === 'string' && !has(given, k) && !cleared.includes(k) && !secret.has(k))
      Object.defineProperty(kept, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  if (Object.keys(kept).length) {
    cfg.configFields = { ...(given as Record<string, string>), ...kept };
    ctx.out.info(`note: config fields are replaced as a whole; re-sending the stored ${list(Object.keys(kept))} unchanged`);
  }
  return { secret };
}
