// A readable summary of an MCPServerView. Enum values this version knows are
// shown in their short form (BEARER_TOKEN); any other value is shown as it is.
import {
  AUTH_METHODS,
  DATA_SENSITIVITIES,
  OAUTH2_CLIENT_ID_MODES,
  OAUTH2_MODES,
  OPTIONAL_BOOLS,
  SERVER_TYPES,
  TOKEN_SHARING,
  TRANSPORT_TYPES,
  shortEnum,
  type McpServerView,
} from '../../../api/mcp-schema.js';
import { AUTH_KIND_LIST, authKindOfView, authMethod } from '../../../api/mcp-auth.js';
import { catalogFields } from '../../../api/mcp-catalog.js';
import { ApiError } from '../../../api/errors.js';
import { getCatalogEntry } from '../../../client/mcp.js';
import type { CommandContext } from '../../context.js';
import { styled, type Text } from '../../output.js';

/** Short form of a known enum value; an unknown value is returned unchanged. */
export function enumLabel(value: string | undefined | null, known: readonly string[]): string {
  if (value === undefined || value === null || value === '') return '';
  return known.includes(value) ? shortEnum(value) : value;
}

/** The per-server tool approval override in words (unknown values as they are). */
export function toolApproval(v: string | undefined | null): string {
  if (v === OPTIONAL_BOOLS[1]) return 'required';
  if (v === OPTIONAL_BOOLS[2]) return 'not required';
  if (v === OPTIONAL_BOOLS[0] || !v) return 'tenant default';
  return v;
}

const list = (v: string[] | null | undefined) => (v?.length ? v.join(', ') : '');
const pairs = (m: Record<string, string> | null | undefined) =>
  Object.entries(m ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

/** A member that is text, else '' (the contract lets any member be missing or null). */
const str = (x: unknown): string => (typeof x === 'string' ? x : '');

/** A hosted server's secret config fields: the catalog entry's secret field names, and those the write sent. */
interface ConfigSecrets {
  names: readonly string[];
  sent?: ReadonlySet<string>;
}

/**
 * The secret config field names of a catalog entry (its schema's marks);
 * undefined when the entry cannot be read or has no schema.
 */
export async function catalogSecretFields(ctx: CommandContext, catalogId: string): Promise<string[] | undefined> {
  try {
    const fields = catalogFields(await getCatalogEntry(await ctx.api(), catalogId));
    return fields?.filter((f) => f.secret).map((f) => f.name);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ctx.debug(`catalog entry ${catalogId}: ${err.message}`);
    return undefined;
  }
}

/**
 * `asked`: the app and connector IDs the user typed, shown where the view
 * leaves its own out. `config`: a hosted server's secret config fields, which
 * the view never reports (undefined: not known).
 */
export function printServerSummary(
  ctx: CommandContext,
  v: McpServerView,
  asked: { appId: string; connectorId: string },
  config?: ConfigSecrets,
): void {
  const kind =
    v.serverType === 'MCP_SERVER_TYPE_EXTERNAL'
      ? 'external'
      : v.serverType === 'MCP_SERVER_TYPE_HOSTED'
        ? 'hosted'
        : enumLabel(v.serverType, SERVER_TYPES);
  const rows: [string, Text | undefined | null][] = [
    [
      'MCP server',
      `${str(v.appId) || asked.appId}/${str(v.connectorId) || asked.connectorId}${str(v.displayName) ? ` (${v.displayName})` : ''}`,
    ],
    ['Kind', kind],
  ];
  if (v.serverType !== 'MCP_SERVER_TYPE_HOSTED') {
    rows.push(['URL', v.endpointUrl], ['URL locked', v.endpointUrlLocked ? 'yes (the URL cannot be changed)' : 'no']);
  }
  rows.push(['Transport', enumLabel(v.transportType, TRANSPORT_TYPES)]);
  // A hosted server, or one made from a catalog entry: it has config fields.
  const fromCatalog = v.serverType === 'MCP_SERVER_TYPE_HOSTED' || Boolean(v.mcpServerCatalogId);
  if (fromCatalog) {
    rows.push(['Catalog entry', v.mcpServerCatalogId], ['Source app', v.sourceAppId], ['Config fields', pairs(v.configFieldValues)]);
  }
  rows.push(
    ['Tool prefix', v.toolPrefix || (v.defaultToolPrefix ? `${v.defaultToolPrefix} (default)` : '')],
    ['Auth method', enumLabel(v.authMethod, AUTH_METHODS)],
    ['Token sharing', enumLabel(v.tokenSharing, TOKEN_SHARING)],
    ['Tool approval', toolApproval(v.requireToolApproval)],
    ['Data sensitivity', enumLabel(v.dataSensitivity, DATA_SENSITIVITIES)],
  );

  const secrets: [string, boolean][] = [];
  const method = authKindOfView(v.authMethod, v.oauth2Mode);
  const member = (m: string): unknown => v[m as keyof McpServerView];
  if (method === 'oauth2') {
    oauth2Rows(v, rows, secrets);
  } else if (method && method !== 'none') {
    // The method's declaration: the view members that report its fields, and its secrets' flags.
    const spec = authMethod(method);
    for (const [label, m] of spec.viewRows ?? [])
      rows.push([label, m === 'oauth2Mode' ? enumLabel(str(member(m)), OAUTH2_MODES) : shown(member(m))]);
    for (const f of Object.values(spec.values)) if (f.view) rows.push([f.label.replace(/ \(.*\)$/, ''), shown(member(f.view))]);
    for (const x of Object.values(spec.secrets)) if (x.view) secrets.push([x.summary ?? x.name, member(x.view) === true]);
  } else {
    // NONE, UNSPECIFIED or a method this version does not know: whatever is configured.
    const seen = new Set<string>();
    for (const k of AUTH_KIND_LIST) {
      for (const x of Object.values(authMethod(k).secrets)) {
        if (x.view && !seen.has(x.view) && member(x.view) === true) secrets.push([x.summary ?? x.name, true]);
        if (x.view) seen.add(x.view);
      }
    }
  }
  const parts: Text[] = secrets.map(([n, b], i) => [i ? ', ' : '', `${n}: `, b ? styled('configured', 'green') : styled('not set', 'dim')]);
  // Secret config fields: the service never reports them, so say what is known.
  for (const name of config?.names ?? []) {
    parts.push([
      parts.length ? ', ' : '',
      `config field ${name}: `,
      config?.sent?.has(name) ? styled('set by this write', 'green') : styled('not reported by the service', 'dim'),
    ]);
  }
  if (!config && fromCatalog)
    parts.push([parts.length ? ', ' : '', 'config fields: ', styled('not known (no readable catalog schema)', 'dim')]);
  rows.push(['Secrets', parts.length ? parts : 'none']);
  if (v.tunneled) rows.push(['Tunnel', `bridge ${str(v.tunnelBridgeId) || '?'}, service ${str(v.tunnelServiceName) || '?'}`]);
  rows.push(['Setup URL', v.credentialsSetupUrl], ['Updated', v.updatedAt], ['Last called', v.lastCalledAt]);
  ctx.out.fields(rows);
}

/** A view member shown as text: a list joined, anything else as it is. */
const shown = (x: unknown): string => (Array.isArray(x) ? list(x.filter((e): e is string => typeof e === 'string')) : str(x));

/** OAuth2: what the summary shows depends on the mode. */
function oauth2Rows(v: McpServerView, rows: [string, Text | undefined | null][], secrets: [string, boolean][]): void {
  rows.push(['OAuth2 mode', enumLabel(v.oauth2Mode, OAUTH2_MODES)]);
  rows.push(
    ['Client ID', v.oauth2ClientId],
    ...(v.oauth2ClientIdMode
      ? [
          [
            'Client ID mode',
            v.oauth2ClientIdMode === OAUTH2_CLIENT_ID_MODES[0] ? 'manual' : enumLabel(v.oauth2ClientIdMode, OAUTH2_CLIENT_ID_MODES),
          ] as [string, string],
        ]
      : []),
    ['Issuer URL', v.oauth2IssuerUrl],
    ['Authorize URL', v.oauth2AuthorizeUrl],
    ['Token URL', v.oauth2TokenUrl],
    ['Scopes', list(v.oauth2Scopes)],
  );
  if (v.oauth2Pkce) rows.push(['PKCE', v.oauth2Pkce]);
  if (v.oauth2JwtIssuer || v.oauth2JwtPrivateKeyConfigured) {
    rows.push(['JWT issuer', v.oauth2JwtIssuer], ['JWT subject', v.oauth2JwtSubject], ['JWT audience', v.oauth2JwtAudience]);
  }
  if (v.oauth2Mode === 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER') secrets.push(['JWT private key', v.oauth2JwtPrivateKeyConfigured]);
  else secrets.push(['client ID and secret', v.oauth2CredentialsConfigured]);
  if (v.oauth2ServiceAuthorized) {
    const [name, email, by, at] = [
      v.oauth2ServiceAuthorizedAsName,
      v.oauth2ServiceAuthorizedAsEmail,
      v.oauth2ServiceAuthorizedBy,
      v.oauth2ServiceAuthorizedAt,
    ].map(str);
    rows.push(['Authorized as', `${name || email || '?'}${email ? ` <${email}>` : ''} by ${by || '?'} at ${at || '?'}`]);
  }
}
