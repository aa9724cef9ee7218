// Settings resolution: flag > env > profile > default (DESIGN.md §4).
import { UsageError } from '../api/errors.js';
import { DEFAULT_PROFILE, ProfileStore, isValidProfileName, type Profile } from './profiles.js';
import { Vault } from './vault.js';
import { configDir } from './paths.js';
import { hideUserinfo } from '../client/redact.js';

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
}

export type OutputFormat = 'table' | 'json';

export interface Settings {
  profile: string;
  /** Where the profile name came from. */
  profileSource: 'flag' | 'env' | 'config' | 'default';
  baseUrl?: string;
  baseUrlSource?: 'flag' | 'env' | 'profile' | 'client-id';
  clientId?: string;
  clientIdSource?: 'flag' | 'env' | 'profile';
  /** The secret from AGCTL_CLIENT_SECRET or the profile's stored credential (never printed). */
  clientSecret?: string;
  clientSecretSource?: 'env' | 'stored';
  accessToken?: string;
  output: OutputFormat;
  timeoutMs: number;
  debug: boolean;
}

/** `name@host/suffix` client IDs name their tenant: the base URL is https://host. */
export function baseUrlFromClientId(clientId: string): string | undefined {
  const m = /^[^@/\s]+@([A-Za-z0-9.-]+(?::\d+)?)\/\S+$/.exec(clientId);
  return m ? `https://${m[1]}` : undefined;
}

/** Validates and normalises a base URL (no trailing slash). */
export function normalizeBaseUrl(raw: string, from: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${from}: "${hideUserinfo(raw)}" is not a valid URL`, 'use the form https://tenant.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`${from}: the base URL must use https (or http for a local server)`);
  if (url.username || url.password) throw new UsageError(`${from}: the base URL must not carry credentials`);
  if (url.search || url.hash) throw new UsageError(`${from}: the base URL must not have a query or fragment`);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

export function parseOutput(raw: string | undefined, from: string): OutputFormat | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'table' || raw === 'json') return raw;
  throw new UsageError(`${from}: unknown output format "${raw}"`, 'use table or json');
}

export function parseTimeout(raw: string | number | undefined, env: NodeJS.ProcessEnv): number {
  const v = raw ?? env.AGCTL_TIMEOUT;
  if (v === undefined || v === '') return 30_000;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) {
    throw new UsageError(`${raw !== undefined ? '--timeout' : 'AGCTL_TIMEOUT'}: "${v}" is not a number of seconds more than 0 and at most 3600`);
  }
  return Math.max(1, Math.round(n * 1000));
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
  if (!isValidProfileName(profile)) throw new UsageError(`invalid profile name "${profile}"`, 'a profile name is 1 to 64 letters, digits, ".", "_" and "-", starting with a letter or digit');
  const p: Profile = config.profiles.get(profile) ?? {};

  const s: Settings = {
    profile,
    profileSource,
    output: parseOutput(flags.output, '--output') ?? parseOutput(env.AGCTL_OUTPUT, 'AGCTL_OUTPUT') ?? parseOutput(p.output, `output of profile "${profile}"`) ?? 'table',
    timeoutMs: parseTimeout(flags.timeout, env),
    debug: Boolean(flags.debug),
  };

  if (flags.clientId) [s.clientId, s.clientIdSource] = [flags.clientId, 'flag'];
  else if (env.AGCTL_CLIENT_ID) [s.clientId, s.clientIdSource] = [env.AGCTL_CLIENT_ID, 'env'];
  else if (p.clientId) [s.clientId, s.clientIdSource] = [p.clientId, 'profile'];

  if (flags.baseUrl) [s.baseUrl, s.baseUrlSource] = [normalizeBaseUrl(flags.baseUrl, '--base-url'), 'flag'];
  else if (env.AGCTL_BASE_URL) [s.baseUrl, s.baseUrlSource] = [normalizeBaseUrl(env.AGCTL_BASE_URL, 'AGCTL_BASE_URL'), 'env'];
  else if (p.baseUrl && (!s.clientId || s.clientIdSource === 'profile' || s.clientId === p.clientId)) [s.baseUrl, s.baseUrlSource] = [p.baseUrl, 'profile'];
  else if (s.clientId) {
    const derived = baseUrlFromClientId(s.clientId);
    if (derived) [s.baseUrl, s.baseUrlSource] = [derived, 'client-id'];
  }
  // A client ID from a flag or env that names no tenant still talks to the profile's service.
  if (!s.baseUrl && p.baseUrl) [s.baseUrl, s.baseUrlSource] = [p.baseUrl, 'profile'];

  if (env.AGCTL_ACCESS_TOKEN) s.accessToken = env.AGCTL_ACCESS_TOKEN;
  if (env.AGCTL_CLIENT_SECRET) [s.clientSecret, s.clientSecretSource] = [env.AGCTL_CLIENT_SECRET, 'env'];
  return s;
}

/**
 * Loads the stored secret of the profile when it belongs to the resolved client
 * ID. Throws (exit 3) when it is stored but cannot be unsealed: the wrong
 * AGCTL_CONFIG_KEY, a damaged or missing key file, a damaged credential file.
 */
export function attachStoredSecret(s: Settings, config: ConfigContext): Settings {
  if (s.clientSecret || !s.clientId) return s;
  const cred = config.vault.loadCredential(s.profile, s.clientId);
  if (cred) [s.clientSecret, s.clientSecretSource] = [cred.clientSecret, 'stored'];
  return s;
}
