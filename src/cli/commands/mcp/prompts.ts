// `agctl mcp set-credentials --interactive`: walks the admin through the
// choices, starting from the server's current values (and the catalog entry's
// defaults), asking only for what the chosen kind, method and mode use and
// what no flag has given. An answer equal to the current value is left out of
// the request. Secrets are asked with hidden prompts (multi-line keys as a
// file path).
import {
  AUTH_KINDS,
  AuthMethod,
  OAUTH2_CLIENT_ID_MODES,
  OAuth2ClientIdMode,
  OAuth2Mode,
  TokenSharing,
  type ConfigKind,
  type McpServerView,
} from '../../../api/mcp-schema.js';
import { authKindOfView, authMethod, needed, type AuthKind } from '../../../api/mcp-auth.js';
import { checkHttpsUrl, isBareIssuerUrl, kindOfServerType, perUserSupported } from '../../../api/mcp-config.js';
import { catalogAuthMethods, catalogFields, type CatalogField } from '../../../api/mcp-catalog.js';
import { ApiError } from '../../../api/errors.js';
import { getCatalogEntry, listAllCatalogEntries } from '../../../client/mcp.js';
import { CONTROL_CHAR, INVISIBLE_CHAR } from '../../../lib/controls.js';
import { isKsuid } from '../../../lib/ids.js';
import { escapeControls } from '../../escape.js';
import type { CommandContext } from '../../context.js';
import { obtainSecret, secretInput, splitList, type Draft } from './draft.js';
import { looksSecret } from './set-credentials/secret-name.js';

const AUTH_CHOICE_NAMES = (k: AuthKind) => authMethod(k).label;

const httpsUrl = (v: string): true | string => {
  try {
    checkHttpsUrl('URL', v.trim());
    return true;
  } catch (err) {
    return err instanceof ApiError ? err.message.replace(/^URL: /, '') : 'invalid URL';
  }
};
const optionalHttpsUrl = (v: string) => (v.trim() === '' ? true : httpsUrl(v));
const issuerUrl = (v: string): true | string => {
  const ok = httpsUrl(v);
  if (ok !== true) return ok;
  return isBareIssuerUrl(v.trim()) ? true : 'an issuer URL has no path, query or fragment';
};
const required = (what: string) => (v: string) => (v.trim() ? true : `${what} is required`);

/** What the walk-through starts from: the server's current view (null when the service sent none). */
interface WalkStart {
  view: McpServerView | null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const has = (o: object, k: string) => Object.hasOwn(o, k);
/**
 * A server's value offered as a prompt's default: the prompt shows it as it
 * is, so one holding a control or an invisible character is not offered (it
 * would reach the terminal; escaped, Enter would send the escaped text).
 */
const offered = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' && !CONTROL_CHAR.test(v) && !INVISIBLE_CHAR.test(v) ? v : undefined;

/**
 * Asks for a text value starting from `current`: offered as the default when
 * it can be shown; one that cannot (it holds a control character) is kept
 * when the answer is empty, and the question says so, so that Enter never
 * clears a value the admin was not shown.
 */
async function askFrom(
  p: CommandContext['prompt'],
  message: string,
  current: unknown,
  validate?: (v: string) => true | string,
): Promise<string> {
  const shown = offered(current);
  const unshown = shown === undefined && typeof current === 'string' && current !== '' ? current : undefined;
  if (unshown === undefined) return (await p.input(message, { validate, default: shown })).trim();
  const answer = (
    await p.input(`${message} [Enter keeps the current value, not shown: it holds control characters]`, {
      validate: (v) => (v.trim() === '' || !validate ? true : validate(v)),
    })
  ).trim();
  return answer === '' ? unshown : answer;
}

const authKindOfViewOf = (v: McpServerView | null): AuthKind | undefined => (v ? authKindOfView(v.authMethod, v.oauth2Mode) : undefined);

const kindOfView = (v: McpServerView | null): ConfigKind | undefined => kindOfServerType(v?.serverType);

/**
 * Fills every missing part of the draft by asking, starting from the server's
 * current values (and a catalog entry's defaults): each question offers the
 * current value, and an answer equal to it is left out of the request, so
 * what the admin does not change is not sent. The caller checks that
 * prompting is possible.
 */
export async function walkThrough(d: Draft, ctx: CommandContext, start: WalkStart): Promise<void> {
  const p = ctx.prompt;
  const cur = start.view;
  const ask = (message: string, validate?: (v: string) => true | string, def?: string) => askFrom(p, message, def, validate);
  const askOptional = async (message: string, validate?: (v: string) => true | string, def?: string) => {
    const v = await ask(`${message} (optional)`, validate, def);
    return v === '' ? undefined : v;
  };
  /** Sets a setting only when the answer differs from the current value. */
  const changed = (current: unknown, answer: string) => (answer === str(current) ? undefined : answer);

  d.kind ??=
    kindOfView(cur) ??
    (await p.select<ConfigKind>('What kind of MCP server is it?', [
      { value: 'external', name: 'External', description: 'reached over HTTP at its own URL' },
      { value: 'hosted', name: 'Hosted', description: 'served through the gateway from an MCP catalog entry' },
    ]));
  const sameKind = kindOfView(cur) === d.kind;
  const now = sameKind ? cur : null;

  let catalogDefault: AuthKind | undefined;
  if (d.kind === 'external') {
    if (d.settings.url === undefined)
      d.settings.url = changed(now?.endpointUrl, await ask('Endpoint URL (https)', httpsUrl, str(now?.endpointUrl)));
    if (d.settings.transportType === undefined) {
      const t = await p.select('Transport', ...offerCurrent(TRANSPORT_CHOICES, now?.transportType));
      d.settings.transportType = changed(now?.transportType, t);
    }
  } else {
    const storedId = str(now?.mcpServerCatalogId);
    if (d.settings.mcpServerCatalogId === undefined)
      d.settings.mcpServerCatalogId = changed(storedId, await pickCatalogEntry(ctx, storedId));
    const catalogId = d.settings.mcpServerCatalogId ?? storedId;
    if (d.settings.sourceAppId === undefined)
      d.settings.sourceAppId = changed(now?.sourceAppId, (await askOptional('Source app ID', undefined, str(now?.sourceAppId))) ?? '');
    const entry = await getCatalogEntry(await ctx.api(), catalogId);
    catalogDefault = catalogAuthMethods(entry)
      .map(authKindOfMethod)
      .find((k) => k !== undefined);
    if (d.configFields === undefined)
      await configFields(d, ctx, catalogFields(entry), catalogId !== storedId ? {} : (now?.configFieldValues ?? {}));
  }

  const currentAuth = now ? authKindOfViewOf(now) : undefined;
  let keepAuth = false;
  if (d.auth === undefined) {
    const choices: { value: AuthKind | typeof KEEP; name: string }[] = AUTH_KINDS[d.kind].map((k) => ({
      value: k,
      name: `${AUTH_CHOICE_NAMES(k)}${k === currentAuth ? ' (current)' : ''}`,
    }));
    // A method this version does not know (from a newer service): kept unless another is chosen.
    const unknown =
      !currentAuth && typeof now?.authMethod === 'string' && now.authMethod !== '' && now.authMethod !== AuthMethod.UNSPECIFIED
        ? now.authMethod
        : undefined;
    if (unknown) choices.unshift({ value: KEEP, name: `Keep the current method (${escapeControls(unknown)}, not known to this version)` });
    // Another catalog entry than the stored one: its own default method is offered first.
    const otherEntry = d.kind === 'hosted' && d.settings.mcpServerCatalogId !== undefined && catalogDefault !== undefined;
    const keepable = currentAuth && AUTH_KINDS[d.kind].includes(currentAuth) ? currentAuth : undefined;
    const def = otherEntry ? catalogDefault : unknown ? KEEP : (keepable ?? catalogDefault ?? 'none');
    const chosen = await p.select('Authentication method', choices, { default: def });
    // The current method: its stored settings and secrets stay unless the admin says otherwise.
    keepAuth =
      chosen === KEEP ||
      (chosen === currentAuth &&
        (chosen === 'none' ||
          (await p.confirm(`Keep the stored ${AUTH_CHOICE_NAMES(chosen).toLowerCase()} settings and secrets?`, { default: true }))));
    if (!keepAuth && chosen !== KEEP) d.auth = chosen;
  }
  const v = d.values;
  /** The current value of a view member for the method being set up (lists space-separated), '' for another method. */
  const view = (k: keyof McpServerView): string => {
    const x = d.auth === currentAuth ? now?.[k] : undefined;
    return Array.isArray(x) ? x.filter((e) => typeof e === 'string').join(' ') : str(x);
  };
  if (d.auth === 'oauth2') {
    v.mode ??= await p.select('OAuth2 mode', OAUTH2_MODE_CHOICES, { default: knownChoice(OAUTH2_MODE_CHOICES, view('oauth2Mode')) });
  }

  // Token sharing: asked only where PER_USER is possible (with the method as it will be).
  const method = d.auth ?? currentAuth;
  const mode = d.auth ? (v.mode as string | undefined) : str(now?.oauth2Mode);
  // A legacy PASSTHROUGH server is per-user by its mode: nothing to ask.
  const perUserPossible = method !== undefined && perUserSupported(method, mode ?? '') && mode !== OAuth2Mode.PASSTHROUGH;
  if (d.settings.tokenSharing === undefined && perUserPossible) {
    const t = await p.select('Token sharing', ...offerCurrent(TOKEN_SHARING_CHOICES, now?.tokenSharing));
    d.settings.tokenSharing = changed(now?.tokenSharing, t);
  } else if (d.settings.tokenSharing === undefined && d.auth !== undefined && now?.tokenSharing === TokenSharing.PER_USER) {
    // The new method cannot be per-user: the change to SHARED is part of the update, and its summary shows it.
    d.settings.tokenSharing = TokenSharing.SHARED;
  }
  const shared = (d.settings.tokenSharing ?? str(now?.tokenSharing)) !== TokenSharing.PER_USER;
  const secret = (kind: AuthKind, field: string, isRequired: boolean) =>
    obtainSecret(d, secretInput(kind, field)!, ctx, { required: isRequired });

  if (d.auth === 'oauth2') await oauth2Fields(d, ctx, ask, askOptional, secret, (k) => (v.mode === str(now?.oauth2Mode) ? view(k) : ''));
  else if (d.auth)
    await methodFields(d, d.auth, shared, { ask, askOptional, secret, view, confirm: (m) => p.confirm(m, { default: false }) });

  if (d.settings.requireToolApproval === undefined) {
    const a = await p.select('Require approval before tools run?', ...offerCurrent(TOOL_APPROVAL_CHOICES, now?.requireToolApproval));
    d.settings.requireToolApproval = changed(now?.requireToolApproval, a);
  }
}

/**
 * The fields of a method other than OAuth2, as its declaration says: each
 * non-secret field it asks for (the current value offered), then its secrets
 * (hidden) when they are needed; an optional secret behind a question (an AWS
 * session token) only after a yes.
 */
async function methodFields(
  d: Draft,
  kind: AuthKind,
  shared: boolean,
  io: {
    ask: (m: string, validate?: (v: string) => true | string, def?: string) => Promise<string>;
    askOptional: (m: string, validate?: (v: string) => true | string, def?: string) => Promise<string | undefined>;
    secret: (kind: AuthKind, field: string, required: boolean) => Promise<void>;
    view: (k: keyof McpServerView) => string;
    confirm: (m: string) => Promise<boolean>;
  },
): Promise<void> {
  const spec = authMethod(kind);
  const v = d.values;
  for (const [field, f] of Object.entries(spec.values)) {
    if (!f.ask || v[field] !== undefined) continue;
    const current = f.view ? io.view(f.view as keyof McpServerView) : '';
    const pattern = f.pattern;
    const validate = (x: string): true | string => (pattern && x.trim() && !pattern.re.test(x.trim()) ? pattern.hint : true);
    const answer =
      f.ask === 'required' || (f.ask === 'shared' && shared)
        ? await io.ask(f.label, (x) => (x.trim() ? validate(x) : `${f.label} is required`), current)
        : await io.askOptional(f.label, validate, current);
    if (answer !== undefined && answer !== '') v[field] = f.parse === 'list' ? splitList(answer) : answer;
    else if (f.ask !== 'optional') v[field] = answer;
  }
  for (const [field, s] of Object.entries(spec.secrets)) {
    if (needed(s.required, shared, '') || needed(s.asked, shared, '')) await io.secret(kind, field, true);
    else if (s.askedIf && d.secrets[field] === undefined && (await io.confirm(s.askedIf))) await io.secret(kind, field, true);
  }
}

/** The choice that keeps an auth method this version does not know. */
const KEEP = 'keep-current';

const TRANSPORT_CHOICES = [
  { value: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP', name: 'Streamable HTTP' },
  { value: 'MCP_SERVER_TRANSPORT_TYPE_SSE', name: 'SSE' },
  { value: 'MCP_SERVER_TRANSPORT_TYPE_UNSPECIFIED', name: 'Let the service decide' },
];
const TOKEN_SHARING_CHOICES = [
  { value: TokenSharing.SHARED, name: 'Shared', description: 'the admin sets the credential once for everyone' },
  { value: TokenSharing.PER_USER, name: 'Per user', description: 'each user authenticates independently' },
];
const TOOL_APPROVAL_CHOICES = [
  { value: 'OPTIONAL_BOOL_UNSPECIFIED', name: 'Use the tenant default' },
  { value: 'OPTIONAL_BOOL_TRUE', name: 'Yes' },
  { value: 'OPTIONAL_BOOL_FALSE', name: 'No' },
];
const OAUTH2_MODE_CHOICES = [
  { value: OAuth2Mode.AUTHORIZATION_CODE, name: 'Authorization code', description: 'users (or an admin) sign in at the identity provider' },
  { value: OAuth2Mode.CLIENT_CREDENTIALS, name: 'Client credentials', description: 'a client ID and secret, no user' },
  { value: OAuth2Mode.JWT_BEARER, name: 'JWT bearer', description: 'a signed JWT assertion (RSA key)' },
  { value: OAuth2Mode.SERVICE, name: 'Service (legacy)', description: 'an admin authorizes once; reported as SHARED' },
  { value: OAuth2Mode.PASSTHROUGH, name: 'Passthrough (legacy)', description: 'each user authenticates; reported as PER_USER' },
];

/** The current value as the default choice when it is one of the choices (an unknown value offers none). */
const knownChoice = (choices: { value: string }[], current: unknown): string | undefined => choices.find((c) => c.value === current)?.value;

type Choice = { value: string; name: string; description?: string };
/**
 * A setting's choices with its current value as the default; a value this
 * version does not list (from a newer service) is offered first, as it is, so
 * that Enter keeps it rather than change it.
 */
function offerCurrent(choices: Choice[], current: unknown): [Choice[], { default?: string }] {
  if (typeof current !== 'string' || current === '' || choices.some((c) => c.value === current))
    return [choices, { default: knownChoice(choices, current) }];
  return [[{ value: current, name: `${escapeControls(current)} (current, not known to this version)` }, ...choices], { default: current }];
}

/** The request auth object of a catalog auth mode's method (none for an unknown one). */
const authKindOfMethod = (m: string): AuthKind | undefined => authKindOfView(m);

/** The catalog entry, picked from the catalog's list (the current one offered first); typed in when the list is empty. */
async function pickCatalogEntry(ctx: CommandContext, current: string): Promise<string> {
  const entries = await listAllCatalogEntries(await ctx.api(), { limit: CATALOG_CHOICES_MAX });
  // Server text reaches the terminal escaped; the value chosen is the ID as received.
  const choices = entries.map((e) => ({
    value: e.id,
    name: `${escapeControls(str(e.displayName) || e.id)}${e.id === current ? ' (current)' : ''}`,
    description: escapeControls(`${e.id}${str(e.description) ? ` ${str(e.description)}` : ''}`),
  }));
  if (current && !choices.some((c) => c.value === current))
    choices.unshift({ value: current, name: `${escapeControls(current)} (current)`, description: escapeControls(current) });
  if (choices.length === 0) {
    return ctx.prompt
      .input('MCP catalog entry ID (27-character KSUID)', {
        validate: (v) => (isKsuid(v.trim()) ? true : 'a catalog entry ID is a 27-character KSUID'),
      })
      .then((v) => v.trim());
  }
  return ctx.prompt.select('MCP catalog entry', choices, { default: current || undefined });
}
/** At most this many catalog entries are offered. */
const CATALOG_CHOICES_MAX = 500;

/**
 * The config fields. With the entry's schema: asked one by one (the current
 * value, else the catalog default, offered), secret ones hidden. The service
 * replaces the fields as a whole and secret values cannot be read back, so
 * once the admin changes them every secret field is asked again; one left
 * empty is cleared, on purpose. Without a schema: named one by one, as before.
 */
async function configFields(
  d: Draft,
  ctx: CommandContext,
  fields: CatalogField[] | undefined,
  stored: Record<string, unknown>,
): Promise<void> {
  const p = ctx.prompt;
  if (fields && fields.length === 0) return;
  if (fields) {
    const names = escapeControls(fields.map((f) => f.name).join(', '));
    const fresh = Object.keys(stored).length === 0;
    if (
      !(await p.confirm(`${fresh ? 'Set' : 'Change'} the config fields (${names})? Secret ones must then be entered again`, {
        default: fresh,
      }))
    )
      return;
    const out: Record<string, string> = {};
    for (const f of fields) {
      const label = escapeControls(`${f.displayName || f.name}${f.displayName && f.displayName !== f.name ? ` (${f.name})` : ''}`);
      const value = f.secret
        ? await p.password(`${label}, secret${f.required ? '' : ' (empty to clear)'}`, {
            validate: (x) => (f.required && !x ? `${escapeControls(f.name)} is required` : true),
          })
        : await askFrom(p, `${label}${f.required ? '' : ' (optional)'}`, has(stored, f.name) ? stored[f.name] : f.default, (x) =>
            f.required && !x.trim() ? `${escapeControls(f.name)} is required` : true,
          );
      if (value !== '') out[f.name] = value;
    }
    d.configFields = out;
    // Every field was asked: those left empty are cleared on purpose.
    d.replaceConfigFields = true;
    return;
  }
  while (
    await p.confirm(`Add ${d.configFields && Object.keys(d.configFields).length ? 'another' : 'a'} config field?`, { default: false })
  ) {
    const name = (
      await p.input('Config field name (as in the catalog entry)', {
        validate: (v) => (/^[^.\s]+$/.test(v.trim()) ? true : 'a name without spaces or dots'),
      })
    ).trim();
    const secret = await p.confirm(`Is ${name} a secret?`, { default: looksSecret(name) });
    const value = secret ? await p.password(`Value of ${name}`) : (await p.input(`Value of ${name}`)).trim();
    d.configFields = { ...(d.configFields ?? {}), [name]: value };
  }
}

async function oauth2Fields(
  d: Draft,
  ctx: CommandContext,
  ask: (m: string, validate?: (v: string) => true | string, def?: string) => Promise<string>,
  askOptional: (m: string, validate?: (v: string) => true | string, def?: string) => Promise<string | undefined>,
  secret: (kind: AuthKind, field: string, required: boolean) => Promise<void>,
  current: (k: keyof McpServerView) => string,
): Promise<void> {
  const p = ctx.prompt;
  const v = d.values;
  const setOptional = async (key: string, message: string, validate?: (x: string) => true | string, def?: string) => {
    if (v[key] !== undefined) return;
    const x = await askOptional(message, validate, def);
    if (x !== undefined) v[key] = x;
  };
  const scopes = async () => {
    if (v.scopes !== undefined) return;
    const x = await askOptional('Scopes (comma or space separated)', undefined, current('oauth2Scopes'));
    if (x) v.scopes = splitList(x);
  };
  switch (v.mode) {
    case OAuth2Mode.AUTHORIZATION_CODE: {
      v.clientIdMode ??= await p.select('How is the client ID acquired?', [
        {
          value: OAuth2ClientIdMode.UNSPECIFIED,
          name: 'Manually',
          description: 'you enter the client ID (and secret) registered at the identity provider',
        },
        { value: OAuth2ClientIdMode.DCR, name: 'Dynamic client registration (DCR)' },
        { value: OAuth2ClientIdMode.CIMD, name: 'Client ID metadata document (CIMD)' },
      ]);
      if (v.clientIdMode === OAUTH2_CLIENT_ID_MODES[0]) {
        v.clientId ??= await ask('Client ID', (x) => (x.trim() ? true : 'a manual client needs a client ID'), current('oauth2ClientId'));
        await secret('oauth2', 'clientSecret', false);
      }
      await setOptional('authorizeUrl', 'Authorization endpoint URL', optionalHttpsUrl, current('oauth2AuthorizeUrl'));
      v.tokenUrl ??= await ask('Token endpoint URL', httpsUrl, current('oauth2TokenUrl'));
      await scopes();
      v.pkce ??= await p.select('PKCE', [
        { value: 'discover', name: 'Discover from the server metadata' },
        { value: 's256', name: 'S256' },
        { value: 'disabled', name: 'Disabled' },
      ]);
      break;
    }
    case OAuth2Mode.CLIENT_CREDENTIALS:
      v.tokenUrl ??= await ask('Token endpoint URL', httpsUrl, current('oauth2TokenUrl'));
      v.clientId ??= await ask('Client ID', required('the client ID'), current('oauth2ClientId'));
      await secret('oauth2', 'clientSecret', true);
      await scopes();
      break;
    case OAuth2Mode.JWT_BEARER:
      v.tokenUrl ??= await ask('Token endpoint URL', httpsUrl, current('oauth2TokenUrl'));
      await secret('oauth2', 'jwtPrivateKey', true);
      await setOptional('jwtIssuer', 'JWT issuer (service account e-mail)', undefined, current('oauth2JwtIssuer'));
      await setOptional('jwtSubject', 'JWT subject (for delegation)', undefined, current('oauth2JwtSubject'));
      await setOptional('jwtAudience', 'JWT audience (default: the token URL)', undefined, current('oauth2JwtAudience'));
      await scopes();
      break;
    case OAuth2Mode.SERVICE:
    case OAuth2Mode.PASSTHROUGH:
      v.issuerUrl ??= await ask('Issuer URL (no path)', issuerUrl, current('oauth2IssuerUrl'));
      await setOptional('authorizeUrl', 'Authorization endpoint URL', optionalHttpsUrl, current('oauth2AuthorizeUrl'));
      v.tokenUrl ??= await ask('Token endpoint URL', httpsUrl, current('oauth2TokenUrl'));
      await setOptional('clientId', 'Client ID', undefined, current('oauth2ClientId'));
      await secret('oauth2', 'clientSecret', false);
      await scopes();
      break;
    default:
      break;
  }
}
