// `agctl mcp set-credentials --interactive`: walks the admin through the
// choices, asking only for what the chosen kind, method and mode use and what
// no flag has given. Secrets are asked with hidden prompts (multi-line keys as
// a file path).
import {
  AUTH_KINDS,
  OAUTH2_CLIENT_ID_MODES,
  OAuth2ClientIdMode,
  OAuth2Mode,
  TokenSharing,
  type AuthKind,
  type ConfigKind,
} from '../../../api/mcp-schema.js';
import { HEADER_NAME_RE, checkHttpsUrl, isBareIssuerUrl } from '../../../api/mcp-config.js';
import { ApiError } from '../../../api/errors.js';
import { isKsuid } from '../../../lib/ids.js';
import type { CommandContext } from '../../context.js';
import { obtainSecret, secretInput, splitList, type Draft } from './draft.js';
import { looksSecret } from './set-credentials/secret-name.js';

const AUTH_CHOICE_NAMES: Record<AuthKind, string> = {
  none: 'No authentication',
  bearerToken: 'Bearer token',
  oauth2: 'OAuth2',
  customHeader: 'Custom header',
  basicAuth: 'Basic auth (username and password)',
  awsSigv4: 'AWS SigV4',
  googleServiceAccount: 'Google service account',
};

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

/** Fills every missing part of the draft by asking. The caller checks that prompting is possible. */
export async function walkThrough(d: Draft, ctx: CommandContext): Promise<void> {
  const p = ctx.prompt;
  const ask = async (message: string, validate?: (v: string) => true | string, def?: string) => (await p.input(message, { validate, default: def })).trim();
  const askOptional = async (message: string, validate?: (v: string) => true | string) => {
    const v = await ask(`${message} (optional)`, validate);
    return v === '' ? undefined : v;
  };

  d.kind ??= await p.select<ConfigKind>('What kind of MCP server is it?', [
    { value: 'external', name: 'External', description: 'reached over HTTP at its own URL' },
    { value: 'hosted', name: 'Hosted', description: 'served through the gateway from an MCP catalog entry' },
  ]);

  if (d.kind === 'external') {
    d.settings.url ??= await ask('Endpoint URL (https)', httpsUrl);
    d.settings.transportType ??= await p.select('Transport', [
      { value: 'MCP_SERVER_TRANSPORT_TYPE_STREAMABLE_HTTP', name: 'Streamable HTTP' },
      { value: 'MCP_SERVER_TRANSPORT_TYPE_SSE', name: 'SSE' },
      { value: 'MCP_SERVER_TRANSPORT_TYPE_UNSPECIFIED', name: 'Let the service decide' },
    ]);
  } else {
    d.settings.mcpServerCatalogId ??= await ask('MCP catalog entry ID (27-character KSUID)', (v) => (isKsuid(v.trim()) ? true : 'a catalog entry ID is a 27-character KSUID'));
    if (d.settings.sourceAppId === undefined) d.settings.sourceAppId = await askOptional('Source app ID');
    while (await p.confirm(`Add ${d.configFields && Object.keys(d.configFields).length ? 'another' : 'a'} config field?`, { default: false })) {
      const name = await ask('Config field name (as in the catalog entry)', (v) => (/^[^.\s]+$/.test(v.trim()) ? true : 'a name without spaces or dots'));
      const secret = await p.confirm(`Is ${name} a secret?`, { default: looksSecret(name) });
      const value = secret ? await p.password(`Value of ${name}`) : await ask(`Value of ${name}`);
      d.configFields = { ...(d.configFields ?? {}), [name]: value };
    }
  }

  d.auth ??= await p.select<AuthKind>(
    'Authentication method',
    AUTH_KINDS[d.kind].map((k) => ({ value: k, name: AUTH_CHOICE_NAMES[k] })),
  );
  const v = d.values;
  if (d.auth === 'oauth2') {
    v.mode ??= await p.select('OAuth2 mode', [
      { value: OAuth2Mode.AUTHORIZATION_CODE, name: 'Authorization code', description: 'users (or an admin) sign in at the identity provider' },
      { value: OAuth2Mode.CLIENT_CREDENTIALS, name: 'Client credentials', description: 'a client ID and secret, no user' },
      { value: OAuth2Mode.JWT_BEARER, name: 'JWT bearer', description: 'a signed JWT assertion (RSA key)' },
      { value: OAuth2Mode.SERVICE, name: 'Service (legacy)', description: 'an admin authorizes once; reported as SHARED' },
      { value: OAuth2Mode.PASSTHROUGH, name: 'Passthrough (legacy)', description: 'each user authenticates; reported as PER_USER' },
    ]);
  }

  // Token sharing: asked only where PER_USER is possible.
  const mode = v.mode as string | undefined;
  const perUserPossible = d.auth === 'bearerToken' || d.auth === 'customHeader' || d.auth === 'basicAuth' || (d.auth === 'oauth2' && mode === OAuth2Mode.AUTHORIZATION_CODE);
  if (d.settings.tokenSharing === undefined && perUserPossible) {
    d.settings.tokenSharing = await p.select('Token sharing', [
      { value: TokenSharing.SHARED, name: 'Shared', description: 'the admin sets the credential once for everyone' },
      { value: TokenSharing.PER_USER, name: 'Per user', description: 'each user authenticates independently' },
    ]);
  }
  const shared = d.settings.tokenSharing !== TokenSharing.PER_USER;
  const secret = (kind: AuthKind, field: string, isRequired: boolean) => obtainSecret(d, secretInput(kind, field)!, ctx, { required: isRequired });

  switch (d.auth) {
    case 'bearerToken':
      if (shared) await secret('bearerToken', 'token', true);
      break;
    case 'customHeader':
      v.headerName ??= await ask('Header name', (x) => (HEADER_NAME_RE.test(x.trim()) ? true : 'a valid HTTP header name, e.g. X-Api-Key'));
      if (shared) await secret('customHeader', 'headerValue', true);
      break;
    case 'basicAuth':
      if (v.username === undefined) v.username = shared ? await ask('Username', required('the username')) : await askOptional('Username');
      if (shared) await secret('basicAuth', 'password', true);
      break;
    case 'awsSigv4':
      v.accessKeyId ??= await ask('AWS access key ID', required('the access key ID'));
      await secret('awsSigv4', 'secretAccessKey', true);
      if (d.secrets.sessionToken === undefined && (await p.confirm('Are these temporary credentials (with a session token)?', { default: false }))) {
        await secret('awsSigv4', 'sessionToken', true);
      }
      break;
    case 'googleServiceAccount':
      await secret('googleServiceAccount', 'credentialsJson', true);
      if (v.scopes === undefined) {
        const scopes = await askOptional('Scopes (comma-separated)');
        if (scopes) v.scopes = splitList(scopes);
      }
      break;
    case 'oauth2':
      await oauth2Fields(d, ctx, ask, askOptional, secret);
      break;
    default:
      break;
  }

  d.settings.requireToolApproval ??= await p.select('Require approval before tools run?', [
    { value: 'OPTIONAL_BOOL_UNSPECIFIED', name: 'Use the tenant default' },
    { value: 'OPTIONAL_BOOL_TRUE', name: 'Yes' },
    { value: 'OPTIONAL_BOOL_FALSE', name: 'No' },
  ]);
}

async function oauth2Fields(
  d: Draft,
  ctx: CommandContext,
  ask: (m: string, validate?: (v: string) => true | string, def?: string) => Promise<string>,
  askOptional: (m: string, validate?: (v: string) => true | string) => Promise<string | undefined>,
  secret: (kind: AuthKind, field: string, required: boolean) => Promise<void>,
): Promise<void> {
  const p = ctx.prompt;
  const v = d.values;
  const setOptional = async (key: string, message: string, validate?: (x: string) => true | string) => {
    if (v[key] !== undefined) return;
    const x = await askOptional(message, validate);
    if (x !== undefined) v[key] = x;
  };
  const scopes = async () => {
    if (v.scopes !== undefined) return;
    const x = await askOptional('Scopes (comma or space separated)');
    if (x) v.scopes = splitList(x);
  };
  switch (v.mode) {
    case OAuth2Mode.AUTHORIZATION_CODE: {
      v.clientIdMode ??= await p.select('How is the client ID acquired?', [
        { value: OAuth2ClientIdMode.UNSPECIFIED, name: 'Manually', description: 'you enter the client ID (and secret) registered at the identity provider' },
        { value: OAuth2ClientIdMode.DCR, name: 'Dynamic client registration (DCR)' },
        { value: OAuth2ClientIdMode.CIMD, name: 'Client ID metadata document (CIMD)' },
      ]);
      if (v.clientIdMode === OAUTH2_CLIENT_ID_MODES[0]) {
        v.clientId ??= await ask('Client ID', (x) => (x.trim() ? true : 'a manual client needs a client ID'));
        await secret('oauth2', 'clientSecret', false);
      }
      await setOptional('authorizeUrl', 'Authorization endpoint URL', optionalHttpsUrl);
      v.tokenUrl ??= await ask('Token endpoint URL', httpsUrl);
      await scopes();
      v.pkce ??= await p.select('PKCE', [
        { value: 'discover', name: 'Discover from the server metadata' },
        { value: 's256', name: 'S256' },
        { value: 'disabled', name: 'Disabled' },
      ]);
      break;
    }
    case OAuth2Mode.CLIENT_CREDENTIALS:
      v.tokenUrl ??= await ask('Token endpoint URL', httpsUrl);
      v.clientId ??= await ask('Client ID', required('the client ID'));
      await secret('oauth2', 'clientSecret', true);
      await scopes();
      break;
    case OAuth2Mode.JWT_BEARER:
      v.tokenUrl ??= await ask('Token endpoint URL', httpsUrl);
      await secret('oauth2', 'jwtPrivateKey', true);
      await setOptional('jwtIssuer', 'JWT issuer (service account e-mail)');
      await setOptional('jwtSubject', 'JWT subject (for delegation)');
      await setOptional('jwtAudience', 'JWT audience (default: the token URL)');
      await scopes();
      break;
    case OAuth2Mode.SERVICE:
    case OAuth2Mode.PASSTHROUGH:
      v.issuerUrl ??= await ask('Issuer URL (no path)', issuerUrl);
      await setOptional('authorizeUrl', 'Authorization endpoint URL', optionalHttpsUrl);
      v.tokenUrl ??= await ask('Token endpoint URL', httpsUrl);
      await setOptional('clientId', 'Client ID');
      await secret('oauth2', 'clientSecret', false);
      await scopes();
      break;
    default:
      break;
  }
}
