import { CliError, Exit } from '../../../../lib/exit.js';
import { EXPIRY_SKEW_S, tokenUrlFor } from '../../../../client/auth.js';
import { isKeySecret } from '../../../../lib/client-secret.js';
import { CredentialBindingError, attachStoredSecret } from '../../../../config/resolve.js';
import type { CommandContext } from '../../../context.js';
import type { StatusInput } from './command.js';

function humanDuration(seconds: number): string {
  if (seconds < 90) return `${seconds}s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

export async function run(_input: StatusInput, ctx: CommandContext): Promise<number> {
  if (ctx.flags.embedded) {
    const e = await ctx.embedded();
    const status = { profile: null, embedded: true, baseUrl: e.baseUrl, clientId: e.clientId, credentials: 'embedded', token: null };
    if (ctx.out.json) ctx.out.printJson(status);
    else ctx.out.fields([['Mode', 'embedded server (in this process)'], ['Base URL', e.baseUrl], ['Client ID', e.clientId]]);
    return 0;
  }
  let s = ctx.settings;
  // A stored secret that cannot be unsealed, or that belongs to another base
  // URL, is shown as such (not as "none"), with what to do.
  let unsealError: CliError | undefined;
  try {
    s = attachStoredSecret(s, ctx.config);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    unsealError = err;
  }
  const otherTenant = unsealError instanceof CredentialBindingError ? unsealError : undefined;
  const now = Math.floor(ctx.clock.now() / 1000);
  let credentials: string;
  if (s.accessToken) credentials = 'access token from AGCTL_ACCESS_TOKEN';
  else if (otherTenant) credentials = otherTenant.boundTo ? `stored (sealed) for ${otherTenant.boundTo}, not used with ${s.baseUrl}` : 'stored (sealed), but for no base URL: not used';
  else if (unsealError) credentials = `stored (sealed), but ${unsealError.message.replace(/^the stored client secret of profile "[^"]*" /, '')}`;
  else if (s.clientSecret) credentials = `${isKeySecret(s.clientSecret) ? 'key' : 'plain'} client secret ${s.clientSecretSource === 'env' ? 'from AGCTL_CLIENT_SECRET' : 'stored (sealed)'}`;
  else credentials = 'none';

  let token: { state: 'valid' | 'expiring' | 'expired' | 'none' | 'unknown'; expiresAt?: string; expiresIn?: number; source?: string } = { state: 'none' };
  // AGCTL_ACCESS_TOKEN replaces the token flow: a cached token of the profile is not the one used.
  if (s.accessToken) token = { state: 'unknown', source: 'AGCTL_ACCESS_TOKEN' };
  // Nor is a token cached for another base URL than the profile's: the stored secret does not go there.
  else if (s.baseUrl && s.clientId && !otherTenant) {
    const t = ctx.vault.loadToken(tokenUrlFor(s.baseUrl), s.clientId);
    if (t) {
      const left = t.expiresAt - now;
      token = { state: left <= 0 ? 'expired' : left <= EXPIRY_SKEW_S ? 'expiring' : 'valid', expiresAt: new Date(t.expiresAt * 1000).toISOString(), expiresIn: Math.max(0, left) };
    }
  }
  const loggedIn = Boolean(s.accessToken || (s.clientId && s.clientSecret && s.baseUrl));
  if (ctx.out.json) {
    ctx.out.printJson({
      profile: s.profile,
      loggedIn,
      baseUrl: s.baseUrl ?? null,
      baseUrlSource: s.baseUrlSource ?? null,
      clientId: s.clientId ?? null,
      clientIdSource: s.clientIdSource ?? null,
      credentials,
      ...(unsealError ? { credentialsError: unsealError.message, hint: unsealError.hint } : {}),
      token,
      configDir: ctx.config.dir,
    });
  } else {
    const tokenLine =
      token.state === 'unknown'
        ? 'from AGCTL_ACCESS_TOKEN (expiry not known)'
        : token.state === 'none'
        ? 'none cached'
        : token.state === 'expired'
          ? `expired at ${token.expiresAt}`
          : `${token.state === 'expiring' ? 'expiring' : 'valid'} until ${token.expiresAt} (in ${humanDuration(token.expiresIn!)})`;
    ctx.out.fields([
      ['Profile', `${s.profile}${s.profileSource === 'default' ? '' : ` (from ${s.profileSource})`}`],
      ['Base URL', s.baseUrl ? `${s.baseUrl}${s.baseUrlSource === 'profile' ? '' : ` (from ${s.baseUrlSource})`}` : undefined],
      ['Client ID', s.clientId ? `${s.clientId}${s.clientIdSource === 'profile' ? '' : ` (from ${s.clientIdSource})`}` : undefined],
      ['Credentials', credentials],
      ['Token', tokenLine],
      ['Config', ctx.config.dir],
    ]);
    if (unsealError && !loggedIn) ctx.out.info(`hint: ${unsealError.hint}`);
    else if (!loggedIn) ctx.out.info('hint: run `agctl login`');
  }
  return loggedIn ? 0 : Exit.Unauthenticated;
}
