// Settings resolution: flag > env > profile > default (DESIGN.md §4).
import { CliError, Exit, UsageError } from '../lib/exit.js';
import { DEFAULT_PROFILE, ProfileStore, UnknownProfileError, isValidProfileName, type Profile } from './profiles.js';
import { Vault, credentialProblem, type CredentialPlace } from './vault.js';
import { configDir } from './paths.js';
import { hasScheme, hideUserinfo } from '../lib/url.js';
import { OUTPUT_FORMATS, isOutputFormat, type OutputFormat } from '../lib/output-format.js';

export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
  clientId?: string;
  output?: string;
  input?: boolean;
  color?: boolean;
  debug?: boolean;
  timeout?: string | number;
  embedded?: boolean;
  insecureHttp?: boolean;
}

export type { OutputFormat };

export interface Settings {
  profile: string;
  /** Where the profile name came from. */
  profileSource: 'flag' | 'env' | 'config' | 'default';
  baseUrl?: string;
  baseUrlSource?: 'flag' | 'env' | 'profile' | 'client-id';
  /** The base URL was given without a scheme (`acme.example.com`): https:// was assumed. */
  baseUrlSchemeAssumed?: boolean;
  clientId?: string;
  clientIdSource?: 'flag' | 'env' | 'profile';
  /** The secret from AGCTL_CLIENT_SECRET or the profile's stored credential (never printed). */
  clientSecret?: string;
  clientSecretSource?: 'env' | 'stored';
  accessToken?: string;
  /**
   * What allows a plain client secret over plain http to a host other than
   * this machine, in a message's words (`--insecure-http`, `AGCTL_INSECURE_HTTP`,
   * `profile "lab"`); undefined: it is refused.
   */
  insecureHttp?: string;
  output: OutputFormat;
  timeoutMs: number;
  /** The largest answer the client reads (AGCTL_MAX_RESPONSE_BYTES; undefined: the client's default). */
  maxResponseBytes?: number;
  debug: boolean;
}

/**
 * `name@host/suffix` client IDs name their tenant: the base URL is https://host
 * (service-notes.md §1), normalised (lowercase host, no default port). The host
 * may carry a port, and may be an IPv6 literal in brackets.
 */
export function baseUrlFromClientId(clientId: string): string | undefined {
  const m = /^[^@/\s]+@((?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d+)?)\/\S+$/.exec(clientId);
  if (!m) return undefined;
  const url = `https://${m[1]}`;
  return URL.canParse(url) ? new URL(url).origin : undefined;
}

/** Whether a base URL as typed names no scheme (`acme.example.com`, `localhost:8080`). */
export function lacksScheme(raw: string): boolean {
  return !hasScheme(raw.trim());
}

/**
 * Validates and normalises a base URL: the service's origin (scheme, host and
 * port). A URL without a scheme is taken as https (`acme.example.com` ->
 * `https://acme.example.com`); plain http must be written out. A path is
 * refused (a trailing `/` alone is dropped): the service's routes hang off its
 * origin (`/auth/v1/token`, `/api/v1/...`), so `https://host/api/v1` would ask
 * for `/api/v1/auth/v1/token`.
 */
export function normalizeBaseUrl(raw: string, from: string): string {
  const full = raw.trim() && lacksScheme(raw) ? `https://${raw.trim()}` : raw;
  if (!URL.canParse(full))
    throw new UsageError(`${from}: "${hideUserinfo(raw)}" is not a valid URL`, 'use the form https://tenant.example.com');
  const url = new URL(full);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`${from}: the base URL must use https (or http for a local server)`);
  if (url.username || url.password) throw new UsageError(`${from}: the base URL must not carry credentials`);
  if (url.search || url.hash) throw new UsageError(`${from}: the base URL must not have a query or fragment`);
  refusePath(full.trim(), from, (origin) =>
    from === '--base-url' || from === 'AGCTL_BASE_URL'
      ? `drop the path: ${from === '--base-url' ? '--base-url ' : 'AGCTL_BASE_URL='}${origin}`
      : `drop the path: ${origin}`,
  );
  return url.origin;
}

/**
 * Throws a usage error when `url` has a path: a base URL is the service's
 * origin alone. `fix` says what to do, given the origin.
 */
export function refusePath(url: string, from: string, fix: (origin: string) => string): void {
  if (!URL.canParse(url)) return;
  const u = new URL(url);
  const path = u.pathname.replace(/\/+$/, '');
  if (path)
    throw new UsageError(
      `${from}: the base URL ${hideUserinfo(url)} has a path (${path}): it must be the service's origin alone, ${u.origin}`,
      fix(u.origin),
    );
}

export function parseOutput(raw: string | undefined, from: string): OutputFormat | undefined {
  if (raw === undefined || raw === '') return undefined;
  const format = raw.toLowerCase();
  if (isOutputFormat(format)) return format;
  throw new UsageError(`${from}: unknown output format "${raw}"`, `use ${OUTPUT_FORMATS.join(', ')}`);
}

export function parseTimeout(raw: string | number | undefined, env: NodeJS.ProcessEnv): number {
  const v = raw ?? env.AGCTL_TIMEOUT;
  if (v === undefined || v === '') return 30_000;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) {
    throw new UsageError(
      `${raw !== undefined ? '--timeout' : 'AGCTL_TIMEOUT'}: "${v}" is not a number of seconds more than 0 and at most 3600`,
    );
  }
  return Math.max(1, Math.round(n * 1000));
}

/** The bounds of AGCTL_MAX_RESPONSE_BYTES: 1 KiB, and 256 MiB (a larger text is more than JavaScript holds as one string). */
const MAX_RESPONSE_BYTES_RANGE = [1024, 256 * 1024 * 1024] as const;

/** AGCTL_MAX_RESPONSE_BYTES: a whole number of bytes, undefined when unset. */
function parseMaxResponseBytes(env: NodeJS.ProcessEnv): number | undefined {
  const v = env.AGCTL_MAX_RESPONSE_BYTES?.trim();
  if (v === undefined || v === '') return undefined;
  const [min, max] = MAX_RESPONSE_BYTES_RANGE;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!(n >= min && n <= max))
    throw new UsageError(
      `AGCTL_MAX_RESPONSE_BYTES: "${v}" is not a whole number of bytes from ${min} to ${max}`,
      'e.g. 67108864 for 64 MiB',
    );
  return n;
}

export class ConfigContext {
  readonly dir: string;
  readonly profiles: ProfileStore;
  readonly vault: Vault;
  constructor(env: NodeJS.ProcessEnv) {
    this.dir = configDir(env);
    this.profiles = new ProfileStore(this.dir, env);
    this.vault = new Vault(this.dir, env);
  }

  /** Runs `fn` holding the config directory's lock: profiles and stored credentials change together (ProfileStore.locked). */
  locked<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.profiles.locked(fn);
  }

  /** Throws a usage error naming the config directory when it cannot be written: for `login`, before it asks for anything. */
  requireWritable(): void {
    this.profiles.requireWritable();
  }
}

export function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv, config: ConfigContext): Settings {
  let profile = DEFAULT_PROFILE;
  let profileSource: Settings['profileSource'] = 'default';
  if (flags.profile !== undefined) {
    profile = flags.profile;
    profileSource = 'flag';
  } else if (env.AGCTL_PROFILE) {
    profile = env.AGCTL_PROFILE;
    profileSource = 'env';
  } else {
    const current = config.profiles.currentName();
    if (current) {
      profile = current;
      profileSource = 'config';
    }
  }
  if (!isValidProfileName(profile))
    throw new UsageError(
      `invalid profile name "${profile}"`,
      'a profile name is 1 to 64 letters, digits, ".", "_" and "-", starting with a letter or digit',
    );
  const p: Profile = config.profiles.get(profile) ?? {};

  const s: Settings = {
    profile,
    profileSource,
    output:
      parseOutput(flags.output, '--output') ??
      parseOutput(env.AGCTL_OUTPUT, 'AGCTL_OUTPUT') ??
      parseOutput(p.output, `output of profile "${profile}"`) ??
      'table',
    timeoutMs: parseTimeout(flags.timeout, env),
    maxResponseBytes: parseMaxResponseBytes(env),
    debug: Boolean(flags.debug),
  };

  if (flags.clientId) [s.clientId, s.clientIdSource] = [flags.clientId, 'flag'];
  else if (env.AGCTL_CLIENT_ID) [s.clientId, s.clientIdSource] = [env.AGCTL_CLIENT_ID, 'env'];
  else if (p.clientId) [s.clientId, s.clientIdSource] = [p.clientId, 'profile'];

  if (flags.baseUrl)
    [s.baseUrl, s.baseUrlSource, s.baseUrlSchemeAssumed] = [
      normalizeBaseUrl(flags.baseUrl, '--base-url'),
      'flag',
      lacksScheme(flags.baseUrl),
    ];
  else if (env.AGCTL_BASE_URL)
    [s.baseUrl, s.baseUrlSource, s.baseUrlSchemeAssumed] = [
      normalizeBaseUrl(env.AGCTL_BASE_URL, 'AGCTL_BASE_URL'),
      'env',
      lacksScheme(env.AGCTL_BASE_URL),
    ];
  else if (p.baseUrl && (!s.clientId || s.clientIdSource === 'profile' || s.clientId === p.clientId))
    [s.baseUrl, s.baseUrlSource] = [p.baseUrl, 'profile'];
  else if (s.clientId) {
    const derived = baseUrlFromClientId(s.clientId);
    if (derived) [s.baseUrl, s.baseUrlSource] = [derived, 'client-id'];
  }
  // A client ID from a flag or env that names no tenant still talks to the profile's service.
  if (!s.baseUrl && p.baseUrl) [s.baseUrl, s.baseUrlSource] = [p.baseUrl, 'profile'];

  if (env.AGCTL_ACCESS_TOKEN) s.accessToken = env.AGCTL_ACCESS_TOKEN;
  // A secret loses the whitespace around it (src/lib/secret-text.ts); whitespace inside is refused where it is used.
  if (env.AGCTL_CLIENT_SECRET?.trim()) [s.clientSecret, s.clientSecretSource] = [env.AGCTL_CLIENT_SECRET.trim(), 'env'];
  s.insecureHttp = insecureHttpFrom(flags, env, profile, p, s.baseUrl);
  return s;
}

/**
 * What allows a plain client secret over plain http to a host other than this
 * machine, if anything: --insecure-http, AGCTL_INSECURE_HTTP (set to anything
 * but empty, 0 or false), or a profile logged in with one of them, for the
 * base URL it was logged in to.
 */
export function insecureHttpFrom(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  name: string,
  p: Profile | undefined,
  baseUrl: string | undefined,
): string | undefined {
  if (flags.insecureHttp) return '--insecure-http';
  const v = env.AGCTL_INSECURE_HTTP;
  if (v !== undefined && v !== '' && v !== '0' && v !== 'false') return 'AGCTL_INSECURE_HTTP';
  if (p?.insecureHttp && p.baseUrl && baseUrl && sameTenant(p.baseUrl, baseUrl)) return `profile "${name}"`;
  return undefined;
}

/**
 * Throws an UnknownProfileError (exit 2) when the profile was named (by
 * --profile, AGCTL_PROFILE or the config's current profile) but is not saved.
 * The implicit "default" profile of a fresh config is not checked. `agctl
 * login`, which creates profiles, does not call this.
 */
export function requireKnownProfile(s: Settings, profiles: ProfileStore): void {
  if (s.profileSource === 'default' || profiles.has(s.profile)) return;
  const from =
    s.profileSource === 'flag' ? '--profile' : s.profileSource === 'env' ? 'AGCTL_PROFILE' : `the current profile in ${profiles.path}`;
  throw new UnknownProfileError(s.profile, from, profiles.names());
}

/**
 * Whether two base URLs name the same tenant: the same scheme, host and port
 * once normalised (the URL parser lowercases the host, drops a default port
 * and spells IPv6 addresses one way; the path and a trailing slash do not count).
 */
export function sameTenant(a: string, b: string): boolean {
  return URL.canParse(a) && URL.canParse(b) && new URL(a).origin === new URL(b).origin;
}

/**
 * The base URL a profile's stored secret and cached tokens belong to: the one
 * it was logged in with (for a hand-written profile without one, the tenant its
 * client ID names).
 */
export function profileTenant(p: Profile | undefined): string | undefined {
  return p?.baseUrl ?? (p?.clientId ? baseUrlFromClientId(p.clientId) : undefined);
}

/**
 * A profile's stored secret asked for with a base URL or client ID it was not
 * saved for (DESIGN.md §5: a stored secret and its tokens are never sent to
 * another), or saved by an earlier agctl that did not record its base URL.
 * Nothing is sent. Exit 3 like any missing credentials: for these settings the
 * invocation has none, and scripts that handle "not authenticated" handle this too.
 */
export class CredentialBindingError extends CliError {
  constructor(
    readonly profile: string,
    /** The base URL the stored secret belongs to; undefined for one of an earlier agctl. */
    readonly boundTo: string | undefined,
    readonly requested: string | undefined,
    from: string,
    otherProfiles: string[],
    /** The client the stored secret belongs to, when it is not the requested one. */
    readonly boundClient?: { stored: string; requested: string; from: string },
  ) {
    const target = requested ?? '<url>';
    const again = `agctl login --profile ${profile}`;
    let message: string;
    let ways: string[];
    if (!boundTo) {
      message = `the stored secret of profile "${profile}" was saved by an earlier agctl, which did not record the base URL it belongs to: it is not sent anywhere; log in again to profile "${profile}"`;
      ways = [
        `log in again: ${again}${requested ? ` --base-url ${requested}` : ''}`,
        'or set AGCTL_CLIENT_SECRET (with AGCTL_CLIENT_ID) for one call',
      ];
    } else if (boundClient) {
      message = `profile "${profile}" is logged in as ${boundClient.stored}, not as ${boundClient.requested} (from ${boundClient.from}): its stored secret is not sent for another client; log in again to profile "${profile}" to use that client`;
      ways = [
        `log in again: ${again} --client-id ${boundClient.requested}`,
        `set AGCTL_CLIENT_SECRET to the secret of ${boundClient.requested} for one call`,
      ];
    } else if (from === `profile "${profile}"`) {
      // The profile's own settings (config.json) name another base URL than its sealed secret: an interrupted
      // login of an earlier agctl, or an edited file. Only a login says which one is meant.
      message = `profile "${profile}" names ${target}, but its stored secret was saved for ${boundTo}: it is not sent to ${target}; log in again to profile "${profile}"`;
      ways = [`log in again: ${again} --base-url ${target} (or --base-url ${boundTo})`];
    } else {
      message = `profile "${profile}" is logged in to ${boundTo}, not to ${target} (from ${from}): its stored secret and tokens are not sent there`;
      ways = [
        ...(otherProfiles.length ? [`use ${otherProfiles.map((n) => `--profile ${n}`).join(' or ')} (logged in to ${target})`] : []),
        `run \`agctl login --base-url ${target} --profile <name>\` to save credentials for it (log in again to profile "${profile}" to move it there)`,
        'set AGCTL_CLIENT_SECRET (with AGCTL_CLIENT_ID) to send a secret there for this one call',
        ...(from !== 'the client ID'
          ? [`to use profile "${profile}" with ${boundTo}, ${from === 'AGCTL_BASE_URL' ? 'unset AGCTL_BASE_URL' : 'drop --base-url'}`]
          : []),
      ];
    }
    super(message, Exit.Unauthenticated, { hint: ways.join('; or ') });
    this.name = 'CredentialBindingError';
  }
}

/** Where a resolved base URL came from, in the words of an error message. */
function baseUrlFrom(s: Settings): string {
  if (s.baseUrlSource === 'env') return 'AGCTL_BASE_URL';
  if (s.baseUrlSource === 'client-id') return 'the client ID';
  if (s.baseUrlSource === 'profile') return `profile "${s.profile}"`;
  return '--base-url';
}

/** Where a resolved client ID came from, in the words of an error message. */
function clientIdFrom(s: Settings): string {
  return s.clientIdSource === 'flag' ? '--client-id' : s.clientIdSource === 'env' ? 'AGCTL_CLIENT_ID' : `profile "${s.profile}"`;
}

/** The place (profile, base URL origin, client ID) of the resolved settings, undefined without a base URL or client ID. */
function placeOf(s: Settings): CredentialPlace | undefined {
  if (!s.baseUrl || !s.clientId || !URL.canParse(s.baseUrl)) return undefined;
  return { profile: s.profile, baseUrl: new URL(s.baseUrl).origin, clientId: s.clientId };
}

/**
 * Loads the profile's stored secret when it was saved for the resolved base
 * URL and client ID: the sealed record names the profile, base URL and client
 * it belongs to (and its sealing binds them), and all three must match. A
 * secret or token given for this invocation (AGCTL_CLIENT_SECRET,
 * AGCTL_ACCESS_TOKEN) wins and goes where the invocation says; the stored one
 * is then not touched. Throws (exit 3) a CredentialBindingError when the
 * profile has a stored secret for another base URL or client, or one of an
 * earlier agctl (checked before anything is unsealed), and a CliError when it
 * is stored but cannot be unsealed: the wrong AGCTL_CONFIG_KEY, a damaged or
 * missing key file, a damaged or edited credential file.
 */
export function attachStoredSecret(s: Settings, config: ConfigContext): Settings {
  if (s.clientSecret || s.accessToken || !s.clientId) return s;
  const records = config.vault.storedRecords(s.profile);
  if (!records.length) return s;
  const place = placeOf(s);
  if (place && records.some((r) => r.path === config.vault.credentialPath(place))) {
    const secret = config.vault.loadCredential(place);
    if (secret !== undefined) [s.clientSecret, s.clientSecretSource] = [secret, 'stored'];
    return s;
  }
  const bound = records.filter((r) => !r.legacy && !r.damaged && r.baseUrl);
  if (!bound.length) {
    if (records.some((r) => r.legacy)) throw new CredentialBindingError(s.profile, undefined, s.baseUrl, baseUrlFrom(s), []);
    throw credentialProblem(s.profile, `the file ${records[0]!.path} is damaged`);
  }
  const sameClient = bound.find((r) => r.clientId === s.clientId);
  if (!sameClient) {
    const r = bound[0]!;
    throw new CredentialBindingError(s.profile, r.baseUrl, s.baseUrl, baseUrlFrom(s), [], {
      stored: r.clientId!,
      requested: s.clientId,
      from: clientIdFrom(s),
    });
  }
  const all = config.profiles.read().profiles ?? {};
  const others = s.baseUrl ? Object.keys(all).filter((n) => n !== s.profile && sameTenant(profileTenant(all[n]) ?? '', s.baseUrl!)) : [];
  throw new CredentialBindingError(s.profile, sameClient.baseUrl, s.baseUrl, baseUrlFrom(s), others);
}
