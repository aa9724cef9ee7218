import { CliError, EXIT_INTERRUPTED, Exit, UsageError } from '../../../../lib/exit.js';
import { ClientCredentialsFlow, MemoryTokenCache, sentInClear } from '../../../../client/auth.js';
import { isKeySecret } from '../../../../lib/client-secret.js';
import {
  baseUrlFromClientId,
  insecureHttpFrom,
  lacksScheme,
  normalizeBaseUrl,
  profileTenant,
  refusePath,
  sameTenant,
} from '../../../../config/resolve.js';
import type { Profile } from '../../../../config/profiles.js';
import { noPromptHint } from '../../../io.js';
import type { CommandContext } from '../../../context.js';
import { missingSecret, readSecret, type SecretSource } from '../../../secrets.js';
import type { LoginInput } from './command.js';

export async function run({ opts }: LoginInput, ctx: CommandContext): Promise<number> {
  if (ctx.flags.embedded) throw new UsageError("--embedded needs no login: it uses the embedded server's own client");
  // A directory it cannot save to (a read-only mount) is said before anything is asked for or sent.
  ctx.config.requireWritable();
  // Login creates the profile it names: no check that it exists.
  const s = ctx.settingsWithoutProfileCheck;
  let clientId = s.clientIdSource === 'flag' || s.clientIdSource === 'env' ? s.clientId : undefined;
  let baseUrl = s.baseUrlSource === 'flag' || s.baseUrlSource === 'env' ? s.baseUrl : undefined;
  /** Where the base URL came from, in the words hints use. */
  let urlFrom = s.baseUrlSource === 'env' ? 'AGCTL_BASE_URL' : '--base-url';
  if (baseUrl && s.baseUrlSchemeAssumed) ctx.out.info(`Base URL: ${baseUrl} (https:// assumed; write http:// out for a plain-http server)`);
  const profile = ctx.config.profiles.get(s.profile);
  // Without a prompt, logging in again (a new secret) keeps the profile's client.
  const fromProfile = !clientId && !ctx.canPrompt && profile?.clientId;
  if (fromProfile) clientId = profile.clientId;

  if (!clientId) {
    if (!ctx.canPrompt) throw new UsageError('missing client ID: pass --client-id or set AGCTL_CLIENT_ID');
    clientId = (
      await ctx.prompt.input('Client ID', { default: profile?.clientId, validate: (v) => (v.trim() ? true : 'a client ID is required') })
    ).trim();
  }
  if (!baseUrl) {
    const derived = baseUrlFromClientId(clientId);
    // At the prompt, the profile's own base URL comes first: logging in again is the usual case.
    const suggestion = fromProfile || ctx.canPrompt ? (profile?.baseUrl ?? derived) : (derived ?? profile?.baseUrl);
    if (ctx.canPrompt) {
      const answer = await ctx.prompt.input('Base URL', {
        default: suggestion,
        validate: (v) => {
          try {
            normalizeBaseUrl(v.trim(), 'base URL');
            return true;
          } catch (err) {
            return (err as Error).message;
          }
        },
      });
      baseUrl = normalizeBaseUrl(answer.trim(), 'base URL');
      if (lacksScheme(answer)) ctx.out.info(`Base URL: ${baseUrl} (https:// assumed)`);
      urlFrom = 'the base URL you entered';
    } else if (suggestion) {
      // A profile's, saved by an older agctl or by hand, may have a path: a base URL is an origin.
      refusePath(suggestion, `profile "${s.profile}"`, (origin) => `pass --base-url ${origin}`);
      baseUrl = suggestion;
      urlFrom =
        suggestion === derived
          ? 'the tenant the client ID names (or pass --base-url)'
          : `the base URL of profile "${s.profile}" (or pass --base-url)`;
    } else {
      throw new UsageError(
        'missing base URL: pass --base-url or set AGCTL_BASE_URL',
        'client IDs of the form name@host/suffix name their tenant',
      );
    }
  }

  // Logging a profile in to another tenant or as another client replaces what it was: said, and agreed to, first.
  if (!(await replaceAgreed(ctx, s.profile, profile, baseUrl, clientId, Boolean(opts.force)))) {
    ctx.out.info(`Nothing changed: profile "${s.profile}" is kept as it was`);
    return EXIT_INTERRUPTED;
  }

  const source: SecretSource = {
    name: 'client secret',
    flag: '--client-secret',
    stdin: Boolean(opts.clientSecretStdin),
    file: opts.clientSecretFile,
    env: 'AGCTL_CLIENT_SECRET',
    prompt: 'Client secret',
  };
  const clientSecret = await readSecret(ctx, source);
  if (!clientSecret) throw missingSecret(source);
  // A plain secret over plain http to another machine is refused (exit 2) unless allowed; then the profile keeps the choice.
  const insecureHttp = insecureHttpFrom(ctx.flags, ctx.env, s.profile, profile, baseUrl);
  const flow = new ClientCredentialsFlow(ctx.http, baseUrl, { clientId, clientSecret }, new MemoryTokenCache(), ctx.clock, {
    insecureHttp: insecureHttp !== undefined,
  });
  ctx.warnInClear(baseUrl, isKeySecret(clientSecret) ? 'assertion' : 'secret', insecureHttp);

  // Prove the credentials before saving anything; the token is cached once the profile's key is.
  let token: Awaited<ReturnType<typeof flow.fetch>>;
  try {
    token = await flow.fetch();
  } catch (err) {
    throw loginHint(err, urlFrom);
  }

  // The profile and its secret are saved together, holding the config lock (another agctl writing meanwhile
  // waits its turn), in an order that leaves a complete profile at every step: the new secret is stored beside
  // the old one (under its own place), then the profile is switched to it (config.json, one atomic rename),
  // then the old secret goes. Killed at any point, the next command finds the old profile with its secret, or
  // the new one with its own: never the profile of one tenant with the secret of another.
  const place = { profile: s.profile, baseUrl, clientId };
  const kept = await ctx.config.locked(async () => {
    const saved = await ctx.vault.saveCredential(place, clientSecret, { insecureStorage: opts.insecureStorage });
    await ctx.config.profiles.save(
      s.profile,
      { baseUrl, clientId, insecureHttp: insecureHttp && sentInClear(baseUrl) ? true : undefined },
      opts.switch,
    );
    return { ...saved, ...(await ctx.vault.retireCredentials(place)) };
  });
  if (kept.noKeyring !== undefined) {
    ctx.out.warn(
      `no OS keyring (${kept.noKeyring}): the secret is sealed with the key file ${ctx.vault.keyFile} instead, which anyone who copies ${ctx.config.dir} has too`,
    );
  }
  if (kept.keyringProblem !== undefined) {
    ctx.out.warn(
      `the key of the earlier login of profile "${s.profile}" could not be removed from the OS keyring (${kept.keyringProblem}): remove the entry "${ctx.vault.keyringAccount(s.profile)}" of service "agctl" by hand`,
    );
  }
  ctx.tokenCache(s.profile, { storedSecret: place }).save(flow.tokenUrl, clientId, token, clientSecret);
  const current = ctx.config.profiles.currentName() ?? s.profile;

  const expiresAt = new Date(token.expiresAt * 1000).toISOString();
  if (ctx.out.json) {
    ctx.out.printJson({
      profile: s.profile,
      baseUrl,
      clientId,
      secretForm: isKeySecret(clientSecret) ? 'key' : 'plain',
      secretKeptIn: kept.keptIn,
      tokenExpiresAt: expiresAt,
      currentProfile: current,
    });
  } else {
    ctx.out.success(`Logged in to ${baseUrl} as ${clientId} (profile "${s.profile}")`);
    ctx.out.info(
      `  token valid until ${expiresAt}; credentials saved in ${ctx.config.dir}, sealed with ${kept.keptIn === 'keyring' ? 'a key in the OS keyring' : ctx.vault.fileKey}`,
    );
    ctx.out.info(currentProfileLine(s.profile, current, ctx.env.AGCTL_PROFILE));
  }
  return 0;
}

/**
 * Whether logging `name` in to `baseUrl` as `clientId` may go on: yes for a
 * new profile, or one logged in to the same tenant as the same client (a new
 * secret); otherwise it replaces what the profile was, which a terminal asks
 * about and `--force` agrees to elsewhere (without it: exit 2 naming it).
 */
async function replaceAgreed(
  ctx: CommandContext,
  name: string,
  p: Profile | undefined,
  baseUrl: string,
  clientId: string,
  force: boolean,
): Promise<boolean> {
  const oldUrl = profileTenant(p);
  const otherUrl = oldUrl !== undefined && !sameTenant(oldUrl, baseUrl);
  const otherClient = p?.clientId !== undefined && p.clientId !== clientId;
  if (force || (!otherUrl && !otherClient)) return true;
  const was = `${oldUrl ?? 'no base URL'}${p?.clientId ? ` as ${p.clientId}` : ''}`;
  const changes = [
    otherUrl ? `base URL ${oldUrl} -> ${baseUrl}` : undefined,
    otherClient ? `client ID ${p!.clientId} -> ${clientId}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  if (!ctx.canPrompt) {
    throw new UsageError(
      `profile "${name}" is saved for ${was}: this login would replace it (${changes}); pass --force to replace it`,
      `or log in to another profile with --profile NAME (${noPromptHint(ctx.io, ctx.env, ctx.flags.input)})`,
    );
  }
  return ctx.prompt.confirm(`Profile "${name}" is saved for ${was}. Replace it (${changes})?`, { default: false });
}

/** Which profile commands use after the login, and how to use the other one. */
function currentProfileLine(loggedIn: string, current: string, envProfile: string | undefined): string {
  const line =
    current === loggedIn
      ? `  current profile: "${current}"`
      : `  current profile: "${current}" (kept); use this one with --profile ${loggedIn} or \`agctl auth switch ${loggedIn}\``;
  return envProfile && envProfile !== current ? `${line}; AGCTL_PROFILE=${envProfile} overrides it in this shell` : line;
}

/**
 * Hints that fit a login in progress: refused credentials point at the ID and
 * secret (not at `agctl login`, which is running), network failures at where
 * the base URL came from (a prompt, a profile, the client ID).
 */
function loginHint(err: unknown, urlFrom: string): unknown {
  if (!(err instanceof CliError) || !err.hint) return err;
  let hint: string | undefined;
  if (err.exitCode === Exit.Unauthenticated) hint = 'check the client ID and secret';
  else if (err.exitCode === Exit.Server) hint = err.hint.replace(/--base-url/g, urlFrom);
  return hint === undefined ? err : new CliError(err.message, err.exitCode, { hint, status: err.status, code: err.code });
}
