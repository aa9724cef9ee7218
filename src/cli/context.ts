// The dependencies a command runs with. Commands receive `ctx` and never reach
// for process.*, so tests can build a context directly.
import { CliError, Exit, UsageError } from '../lib/exit.js';
import { systemClock, type Clock } from '../lib/clock.js';
import {
  ConfigContext,
  attachStoredSecret,
  refusePath,
  requireKnownProfile,
  resolveSettings,
  type GlobalFlags,
  type Settings,
} from '../config/resolve.js';
import { dataDir } from '../config/paths.js';
import { HttpClient } from '../client/http.js';
import { ApiClient, type TokenProvider } from '../client/api.js';
import { ClientCredentialsFlow, MemoryTokenCache, StaticToken, inClearWarning, type TokenCache } from '../client/auth.js';
import { isKeySecret } from '../lib/client-secret.js';
import { proxyFor } from '../lib/proxy.js';
import { cleanSecret } from '../lib/secret-text.js';
import { VaultTokenCache } from './token-cache.js';
import { promptsAllowed, type IO } from './io.js';
import { colorEnabled } from './paint.js';
import { Output } from './output.js';
import { escapeControls } from './escape.js';
import { CLEAR_LINE } from './live-line.js';
import { InquirerPrompter, type Prompter } from './prompt.js';
import { systemBrowser, type Browser } from './browser.js';
import type { CredentialPlace, Vault } from '../config/vault.js';
import type { ConfigDirError } from '../config/secure-file.js';
import { userAgent } from '../version.js';
import type { EmbeddedHandle } from './embedded.js';

export class CommandContext {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  readonly flags: GlobalFlags;
  readonly clock: Clock;
  readonly config: ConfigContext;
  readonly out: Output;
  readonly prompt: Prompter;
  /** Opens URLs (step-up pages) in the user's browser. */
  readonly browser: Browser;
  readonly #closers: (() => Promise<void> | void)[] = [];
  #settings?: Settings;
  #profileKnown = false;
  #http?: HttpClient;
  #api?: Promise<ApiClient>;
  #embedded?: Promise<EmbeddedHandle>;
  #warnedInClear = false;

  constructor(opts: { io: IO; env: NodeJS.ProcessEnv; flags: GlobalFlags; clock?: Clock; prompter?: Prompter; browser?: Browser }) {
    this.io = opts.io;
    this.env = opts.env;
    this.flags = opts.flags;
    this.clock = opts.clock ?? systemClock;
    this.config = new ConfigContext(opts.env);
    // Output format errors must surface as usage errors before anything else runs.
    this.out = new Output(opts.io, this.settingsWithoutProfileCheck.output, colorEnabled(opts.io, opts.env, opts.flags.color), () =>
      this.clock.now(),
    );
    this.prompt =
      opts.prompter ??
      new InquirerPrompter(
        promptsAllowed(opts.io, opts.env, opts.flags.input),
        opts.io,
        colorEnabled(opts.io, opts.env, opts.flags.color, 'stderr'),
      );
    this.browser = opts.browser ?? systemBrowser(opts.env);
  }

  /**
   * Resolved settings (flag > env > profile > default); secrets are not loaded
   * here. A profile named by --profile, AGCTL_PROFILE or the config that is
   * not saved is a usage error naming the saved ones.
   */
  get settings(): Settings {
    const s = this.settingsWithoutProfileCheck;
    if (!this.#profileKnown) {
      requireKnownProfile(s, this.config.profiles);
      this.#profileKnown = true;
    }
    return s;
  }

  /** The settings without the check that the profile exists: for `login`, which creates it. */
  get settingsWithoutProfileCheck(): Settings {
    return (this.#settings ??= resolveSettings(this.flags, this.env, this.config));
  }

  get canPrompt(): boolean {
    return this.prompt.enabled;
  }

  get vault(): Vault {
    return this.config.vault;
  }

  /** A `[debug]` line on stderr with --debug; its control characters (a server's bytes in a logged header or body) show as escapes. */
  debug(line: string): void {
    if (this.settingsWithoutProfileCheck.debug) this.io.stderr.write(`[debug] ${escapeControls(line)}\n`);
  }

  /** The shared HTTP client (keep-alive pool, retries, --debug logging). */
  get http(): HttpClient {
    if (!this.#http) {
      const s = this.settingsWithoutProfileCheck;
      this.#http = new HttpClient({
        timeoutMs: s.timeoutMs,
        maxResponseBytes: s.maxResponseBytes,
        debug: s.debug ? (l) => this.debug(l) : undefined,
        userAgent: userAgent(),
        urlSource: baseUrlSourceName(s),
        proxy: (u) => proxyFor(u, this.env),
        sleep: (ms) => this.clock.sleep(ms),
        // On a terminal a slow failure shows its retries as they start (on a row of its own, clear of a
        // spinner's line, which is redrawn below); logs and pipes get the final error only.
        onRetry: this.io.isStderrTTY
          ? (line) => {
              this.io.stderr.write(CLEAR_LINE);
              this.out.info(line);
            }
          : undefined,
      });
      this.onClose(() => this.#http?.close());
    }
    return this.#http;
  }

  onClose(fn: () => Promise<void> | void): void {
    this.#closers.push(fn);
  }

  async close(): Promise<void> {
    for (const fn of this.#closers.splice(0).reverse()) {
      try {
        await fn();
      } catch {
        // closing is best effort
      }
    }
  }

  /** Starts (once) the embedded server in-process for --embedded. */
  embedded(): Promise<EmbeddedHandle> {
    if (this.flags.baseUrl) {
      // Silently talking to the in-process server instead of the named one would mislead.
      return Promise.reject(new UsageError('--embedded runs its own server; it cannot be combined with --base-url', 'drop one of them'));
    }
    this.#embedded ??= (async () => {
      const { startEmbedded } = await import('./embedded.js');
      const handle = await startEmbedded(dataDir(this.env), this.env, (l) => this.debug(l));
      this.onClose(() => handle.close());
      return handle;
    })();
    return this.#embedded;
  }

  /** The base URL the command talks to (the embedded server's with --embedded). */
  async baseUrl(): Promise<string> {
    if (this.flags.embedded) return (await this.embedded()).baseUrl;
    const s = this.settings;
    if (!s.baseUrl)
      throw new UsageError('no base URL configured', 'pass --base-url, set AGCTL_BASE_URL, run `agctl login`, or try --embedded');
    // A flag's or a variable's was checked as it was read; a profile's is saved by login, or by hand.
    if (s.baseUrlSource === 'profile')
      refusePath(
        s.baseUrl,
        `profile "${s.profile}"`,
        (origin) => `log in again with the origin: agctl login --profile ${s.profile} --base-url ${origin}`,
      );
    return s.baseUrl;
  }

  /**
   * The cached tokens of a profile: the vault's sealed files, sealed with the
   * profile's key (`vault.unlock(profile)` first when it is kept in the
   * keyring). A token that cannot be cached (a read-only config directory) is
   * used for this run only, with one note; `quiet` leaves the note to --debug
   * (credentials from the environment, where an unwritable directory is the
   * usual case: a container). `storedSecret`: the tokens come from the
   * profile's stored secret of that place, and none is left cached once a
   * logout (or a login elsewhere) removed it.
   */
  tokenCache(profile: string, opts: { quiet?: boolean; storedSecret?: CredentialPlace } = {}): TokenCache {
    const notCached = (err: ConfigDirError) => {
      const line = `note: the new token is used for this run only: it could not be cached (${err.message})`;
      if (opts.quiet) this.debug(line);
      else this.out.info(line);
    };
    return new VaultTokenCache(this.vault, profile, notCached, { storedSecret: opts.storedSecret });
  }

  /** The token provider for the current settings, or an authentication error naming what is missing. */
  async tokens(): Promise<{ baseUrl: string; provider: TokenProvider; clientId?: string }> {
    if (this.flags.embedded) {
      const e = await this.embedded();
      return {
        baseUrl: e.baseUrl,
        clientId: e.clientId,
        provider: new ClientCredentialsFlow(this.http, e.baseUrl, e, new MemoryTokenCache(), this.clock),
      };
    }
    const baseUrl = await this.baseUrl();
    if (!this.settings.accessToken) await this.vault.unlock(this.settings.profile);
    const s = attachStoredSecret(this.settings, this.config);
    if (s.accessToken) {
      // It goes into an Authorization header as is: a stray newline or space would break the request.
      if (!/^[\x21-\x7e]+$/.test(s.accessToken)) {
        throw new UsageError(
          'AGCTL_ACCESS_TOKEN is not a usable bearer token: it contains spaces, control characters (CR, LF, ...) or non-ASCII characters',
          'set it to the token alone, e.g. AGCTL_ACCESS_TOKEN="$(agctl auth token)"',
        );
      }
      this.warnInClear(baseUrl, 'token');
      return { baseUrl, provider: new StaticToken(s.accessToken) };
    }
    if (!s.clientId || !s.clientSecret) {
      const missing = !s.clientId ? 'no client ID' : 'no client secret';
      throw new CliError(`not logged in: ${missing} for profile "${s.profile}"`, Exit.Unauthenticated, {
        hint: 'run `agctl login`, or set AGCTL_CLIENT_ID and AGCTL_CLIENT_SECRET (or AGCTL_ACCESS_TOKEN)',
      });
    }
    const clientSecret =
      s.clientSecretSource === 'env' ? cleanSecret(s.clientSecret, 'client secret', 'AGCTL_CLIENT_SECRET') : s.clientSecret;
    const provider = new ClientCredentialsFlow(
      this.http,
      baseUrl,
      { clientId: s.clientId, clientSecret },
      this.tokenCache(s.profile, {
        quiet: s.clientSecretSource === 'env',
        storedSecret:
          s.clientSecretSource === 'stored' ? { profile: s.profile, baseUrl: new URL(baseUrl).origin, clientId: s.clientId } : undefined,
      }),
      this.clock,
      { insecureHttp: s.insecureHttp !== undefined },
    );
    this.warnInClear(baseUrl, isKeySecret(clientSecret) ? 'assertion' : 'secret', s.insecureHttp);
    return { baseUrl, clientId: s.clientId, provider };
  }

  /** One warning line when credentials go to `baseUrl` in clear (plain http to another machine): once in every command that sends them. */
  warnInClear(baseUrl: string, sent: Parameters<typeof inClearWarning>[1], allowedBy?: string): void {
    const line = inClearWarning(baseUrl, sent, allowedBy);
    if (line && !this.#warnedInClear) this.out.warn(line);
    this.#warnedInClear ||= line !== undefined;
  }

  /** The authenticated API client. */
  api(): Promise<ApiClient> {
    this.#api ??= this.tokens().then(({ baseUrl, provider }) => new ApiClient(baseUrl, this.http, provider));
    return this.#api;
  }
}

/** Where the base URL came from, as a hint names it ("check --base-url"). */
function baseUrlSourceName(s: Settings): string {
  switch (s.baseUrlSource) {
    case 'env':
      return 'AGCTL_BASE_URL';
    case 'profile':
      return `the base URL of profile "${s.profile}" (or pass --base-url)`;
    case 'client-id':
      return `the tenant named by the client ID (or pass --base-url)`;
    default:
      return '--base-url';
  }
}
