// After a successful credentials update: which of the asked-for changes the
// returned view does not show. The service answers 200 for a mask path that
// matches nothing, having changed nothing (service-notes.md §3), so success
// alone does not prove the change was made.
import { AUTH_KIND_LIST, authMethod } from '../../../api/mcp-auth.js';
import { AuthMethod, type McpServerView } from '../../../api/mcp-schema.js';
import { reportedTokenSharing, sameEndpointUrl, type ParsedCredentialsRequest } from '../../../api/mcp-config.js';

type ViewKey = keyof McpServerView;

/** Request settings and the view field that shows each. */
const SETTING_VIEW: Record<string, ViewKey> = {
  url: 'endpointUrl',
  transportType: 'transportType',
  tokenSharing: 'tokenSharing',
  requireToolApproval: 'requireToolApproval',
  mcpServerCatalogId: 'mcpServerCatalogId',
  sourceAppId: 'sourceAppId',
};

/** Non-secret auth fields (`kind.field`) and the view field that shows each (the auth method table's `view`). */
const AUTH_VALUE_VIEW: Record<string, ViewKey> = {};
/** Secret auth fields (`kind.field`) and the view flag that says it is set. */
const AUTH_SECRET_VIEW: Record<string, ViewKey> = {};
for (const k of AUTH_KIND_LIST) {
  const spec = authMethod(k);
  // Lists are not judged (a list's order or a default may differ); a method told apart by its mode is judged by that.
  for (const [f, v] of Object.entries(spec.values)) if (v.view && v.parse !== 'list') AUTH_VALUE_VIEW[`${k}.${f}`] = v.view as ViewKey;
  for (const [f, v] of Object.entries(spec.secrets))
    if (v.view && spec.viewMode === undefined) AUTH_SECRET_VIEW[`${k}.${f}`] = v.view as ViewKey;
}

/**
 * The asked-for changes (fields the request sets within its mask) that the
 * view does not show, as `viewField=expected` (secrets as `flag=true`, config
 * fields by name only). Fields the view cannot show (secret config fields,
 * lists, maps) are not judged.
 */
export function unappliedChanges(req: ParsedCredentialsRequest, view: McpServerView): string[] {
  const mask = req.mask;
  const asked = (path: string) => !mask || mask.includes(path) || mask.includes(path.split('.')[0]!);
  const out: string[] = [];
  const expect = (key: ViewKey, want: string | boolean, same: (got: unknown) => boolean = (got) => got === want) => {
    if (!same(view[key])) out.push(`${key}=${String(want)}`);
  };

  for (const [name, value] of Object.entries(req.settings)) {
    const key = SETTING_VIEW[name];
    if (!key || !asked(name) || (req.kind === 'hosted' && name === 'url')) continue;
    if (name === 'url') expect(key, value, (got) => typeof got === 'string' && sameEndpointUrl(got, value));
    // Rows under the legacy OAuth2 modes report their token sharing as the mode implies.
    else if (name === 'tokenSharing')
      expect(key, reportedTokenSharing(value, view.authMethod === AuthMethod.OAUTH2 ? 'oauth2' : '', view.oauth2Mode));
    else expect(key, value);
  }
  for (const [name, value] of Object.entries(req.configFields ?? {})) {
    const shown = view.configFieldValues?.[name];
    // A secret field is never shown; a shown one must hold the value sent.
    if (asked(`configFields.${name}`) && shown !== undefined && shown !== value) out.push(`configFieldValues.${name}`);
  }

  const auth = req.auth;
  if (!auth || (mask && !mask.some((p) => p === auth.kind || p.startsWith(`${auth.kind}.`)))) return out;
  const spec = authMethod(auth.kind);
  expect('authMethod', spec.method);
  if (spec.viewMode) expect('oauth2Mode', spec.viewMode);
  for (const [field, value] of Object.entries(auth.values)) {
    const key = AUTH_VALUE_VIEW[`${auth.kind}.${field}`];
    if (key && typeof value === 'string' && asked(`${auth.kind}.${field}`)) expect(key, value);
  }
  for (const field of Object.keys(auth.secrets)) {
    const key = AUTH_SECRET_VIEW[`${auth.kind}.${field}`];
    // oauth2CredentialsConfigured needs a client ID as well: judged only when the view has one.
    if (!key || !asked(`${auth.kind}.${field}`) || (key === 'oauth2CredentialsConfigured' && !view.oauth2ClientId)) continue;
    expect(key, true);
  }
  return out;
}
