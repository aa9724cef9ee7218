import { CliError, Exit } from '../../../../lib/exit.js';
import { ClientCredentialsFlow, StaticToken } from '../../../../client/auth.js';
import { ApiClient, type TokenProvider } from '../../../../client/api.js';
import { ApiError } from '../../../../api/errors.js';
import { callerUserId } from '../../../../client/introspect.js';
import { isKeySecret } from '../../../../lib/client-secret.js';
import { CredentialBindingError, attachStoredSecret, type Settings } from '../../../../config/resolve.js';
import type { KeptIn } from '../../../../config/vault.js';
import type { CommandContext } from '../../../context.js';
import { renderError, withProfile } from '../../../errors.js';
import { cachedTokenState, describeToken, type TokenState } from '../token-state.js';
import type { StatusInput } from './command.js';

/** The token's state, or `refused`: the server refused it, or the credentials it would be renewed with. */
type StatusToken = TokenState | (Omit<TokenState, 'state'> & { state: 'refused' });

function refusedToken(t: StatusToken): string {
  return `${t.source ? `from ${t.source}` : 'cached'}, not accepted by the server${t.expiresAt ? ` (it would expire at ${t.expiresAt})` : ''}`;
}

/** What the server said of the credentials. */
interface ServerCheck {
  state: 'accepted' | 'refused' | 'unreachable' | 'failed' | 'not-checked';
  /** The caller's user ID from the introspect route ('' when the server does not offer it). */
  userId?: string;
  message?: string;
  hint?: string;
  exitCode?: number;
}

export async function run({ opts }: StatusInput, ctx: CommandContext): Promise<number> {
  if (ctx.flags.embedded) {
    const e = await ctx.embedded();
    const status = { profile: null, embedded: true, baseUrl: e.baseUrl, clientId: e.clientId, credentials: 'embedded', token: null };
    if (ctx.out.json) ctx.out.printJson(status);
    else
      ctx.out.fields([
        ['Mode', 'embedded server (in this process)'],
        ['Base URL', e.baseUrl],
        ['Client ID', e.clientId],
      ]);
    return 0;
  }
  let s = ctx.settings;
  // A stored secret that cannot be unsealed, or that belongs to another base
  // URL, is shown as such (not as "none"), with what to do.
  let unsealError: CliError | undefined;
  if (!s.accessToken) await ctx.vault.unlock(s.profile);
  const keptIn = ctx.vault.keptIn(s.profile);
  try {
    s = attachStoredSecret(s, ctx.config);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    unsealError = err;
  }
  const otherTenant = unsealError instanceof CredentialBindingError ? unsealError : undefined;
  let credentials: string;
  if (s.accessToken) credentials = 'access token from AGCTL_ACCESS_TOKEN';
  else if (otherTenant) {
    credentials = !otherTenant.boundTo
      ? 'stored (sealed) by an earlier agctl, which did not record its base URL: not used (log in again)'
      : otherTenant.boundClient
        ? `stored (sealed) for ${otherTenant.boundTo} as ${otherTenant.boundClient.stored}, not used as ${otherTenant.boundClient.requested}`
        : `stored (sealed) for ${otherTenant.boundTo}, not used with ${s.baseUrl}`;
  } else if (unsealError)
    credentials = `stored (sealed), but ${unsealError.message.replace(/^the stored client secret of profile "[^"]*" /, '')}`;
  else if (s.clientSecret)
    credentials = `${isKeySecret(s.clientSecret) ? 'key' : 'plain'} client secret ${s.clientSecretSource === 'env' ? 'from AGCTL_CLIENT_SECRET' : 'stored (sealed)'}`;
  else credentials = 'none';

  const hasCredentials = Boolean(s.accessToken || (s.clientId && s.clientSecret && s.baseUrl));
  // The check fetches a new token first: the token shown below is then the fresh one.
  const server: ServerCheck = hasCredentials && s.baseUrl && !opts.offline ? await checkWithServer(ctx, s) : { state: 'not-checked' };

  let token: StatusToken = { state: 'none' };
  // AGCTL_ACCESS_TOKEN replaces the token flow: a cached token of the profile is not the one used.
  if (s.accessToken) token = { state: 'unknown', source: 'AGCTL_ACCESS_TOKEN' };
  // Nor is a token cached for another base URL than the profile's: the stored secret does not go there.
  // A token counts only when fetched with the secret this invocation has (AGCTL_CLIENT_SECRET or the stored one), as for every command.
  else if (s.baseUrl && s.clientId && s.clientSecret)
    token = cachedTokenState(ctx.vault, s.profile, s.baseUrl, s.clientId, ctx.clock.now(), s.clientSecret);
  // Whatever its expiry says, a token the server refuses (or got from credentials it refuses) is not one to count on.
  const refused = server.state === 'refused';
  if (refused && token.state !== 'none') token = { ...token, state: 'refused' };
  const loggedIn = hasCredentials && !refused;

  if (ctx.out.json) {
    ctx.out.printJson({
      profile: s.profile,
      loggedIn,
      baseUrl: s.baseUrl ?? null,
      baseUrlSource: s.baseUrlSource ?? null,
      clientId: s.clientId ?? null,
      clientIdSource: s.clientIdSource ?? null,
      credentials,
      secretKeptIn: keptIn ?? null,
      ...(unsealError ? { credentialsError: unsealError.message, hint: withProfile(unsealError.hint, s) } : {}),
      token,
      server: server.hint === undefined ? server : { ...server, hint: withProfile(server.hint, s) },
      configDir: ctx.config.dir,
    });
  } else {
    ctx.out.fields([
      ['Profile', `${s.profile}${s.profileSource === 'default' ? '' : ` (from ${s.profileSource})`}`],
      ['Base URL', s.baseUrl ? `${s.baseUrl}${s.baseUrlSource === 'profile' ? '' : ` (from ${s.baseUrlSource})`}` : undefined],
      ['Client ID', s.clientId ? `${s.clientId}${s.clientIdSource === 'profile' ? '' : ` (from ${s.clientIdSource})`}` : undefined],
      ['Credentials', credentials],
      ['Secret kept in', keptIn && describeKeptIn(keptIn, ctx)],
      ['Token', token.state === 'refused' ? refusedToken(token) : describeToken(token)],
      ['Server', describeServer(server)],
      ['Config', ctx.config.dir],
    ]);
    const hint = unsealError && !hasCredentials ? unsealError.hint : !hasCredentials ? 'run `agctl login`' : server.hint;
    if (hint) ctx.out.info(`hint: ${withProfile(hint, s)}`);
  }
  if (!hasCredentials) return Exit.Unauthenticated;
  return server.exitCode ?? 0;
}

/**
 * Proves the credentials: a new token from the client secret (or the given
 * AGCTL_ACCESS_TOKEN), then the introspect route with it. A server without
 * that route (404, 501) still counts: it issued the token.
 */
async function checkWithServer(ctx: CommandContext, s: Settings): Promise<ServerCheck> {
  let provider: TokenProvider;
  let baseUrl: string;
  let step = 'token';
  try {
    ({ provider, baseUrl } = await ctx.tokens());
    const token = provider instanceof ClientCredentialsFlow ? (await provider.fetch()).accessToken : await provider.token();
    step = 'introspect';
    const api = new ApiClient(baseUrl, ctx.http, new StaticToken(token));
    try {
      return { state: 'accepted', userId: await callerUserId(api) };
    } catch (err) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 501)) return { state: 'accepted', userId: '' };
      throw err;
    }
  } catch (err) {
    const r = renderError(err);
    if (r.exitCode === Exit.Usage || r.exitCode === Exit.Bug) throw err;
    const status = err instanceof ApiError || err instanceof CliError ? err.status : undefined;
    if (r.exitCode === Exit.Unauthenticated) {
      const what = s.accessToken
        ? 'AGCTL_ACCESS_TOKEN was refused'
        : step === 'introspect'
          ? 'the server refused the token it just issued'
          : s.clientSecretSource === 'env'
            ? 'the client secret from AGCTL_CLIENT_SECRET was refused'
            : 'the stored client secret no longer works';
      const hint = s.accessToken
        ? 'set AGCTL_ACCESS_TOKEN to a valid token, or unset it to use the profile'
        : s.clientSecretSource === 'env'
          ? 'check AGCTL_CLIENT_ID and AGCTL_CLIENT_SECRET'
          : `log in again with a valid secret: agctl login --profile ${s.profile}`;
      return { state: 'refused', message: `${what}: ${r.line}`, hint, exitCode: r.exitCode };
    }
    if (r.exitCode === Exit.Server && status === undefined)
      return { state: 'unreachable', message: r.line, hint: r.hint, exitCode: r.exitCode };
    return { state: 'failed', message: r.line, hint: r.hint, exitCode: r.exitCode };
  }
}

/** Where the key of the profile's stored secret is: the OS keyring, or the key file next to it. */
function describeKeptIn(keptIn: KeptIn, ctx: CommandContext): string {
  return keptIn === 'keyring' ? 'keyring (its key is in the OS keyring)' : `file (sealed with ${ctx.vault.fileKey})`;
}

function describeServer(c: ServerCheck): string {
  switch (c.state) {
    case 'accepted':
      return `credentials accepted${c.userId ? ` (user ${c.userId})` : ''}`;
    case 'not-checked':
      return 'not checked';
    case 'unreachable':
      return `unreachable: ${c.message}`;
    default:
      return c.message!;
  }
}
