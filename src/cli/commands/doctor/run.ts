import { lookup } from 'node:dns/promises';
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { platform } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { ciSet } from '../../../lib/ci.js';
import { Exit, UsageError } from '../../../lib/exit.js';
import { HttpClient, networkFailure } from '../../../client/http.js';
import { NoKeyring, secretStoreFor } from '../../../config/secret-store.js';
import { runtime, userAgent } from '../../../version.js';
import type { Settings } from '../../../config/resolve.js';
import type { CommandContext } from '../../context.js';
import { styled, type Text } from '../../output.js';
import { cachedTokenState, describeToken } from '../auth/token-state.js';
import type { DoctorInput } from './command.js';
import { proxyFor, type HttpProxy } from '../../../lib/proxy.js';
import { UnsafePathError, checkPrivateDir, readPrivateFile } from '../../../lib/private-fs.js';
import { describeError, storeBackend } from './store.js';

type Status = 'ok' | 'warn' | 'fail' | 'skip';

interface Check {
  name: string;
  status: Status;
  detail: string;
  hint?: string;
  /** The exit code of a failed check: as the commands it affects would exit. */
  exitCode?: number;
}

/** How long one check may take (a name lookup, a connection, a handshake, a keyring call). */
const CHECK_MS = 5_000;
/** The store opens a native module: on a cold disk that takes longer than a packet. */
const STORE_MS = 15_000;
/** A clock this far from the tenant's is worth a warning; JWT assertions and token expiry go wrong past the second. */
const SKEW_WARN_S = 30;
const SKEW_FAIL_S = 300;
/** A certificate expiring sooner than this is worth a warning. */
const CERT_WARN_DAYS = 14;

const ok = (name: string, detail: string): Check => ({ name, status: 'ok', detail });
const warn = (name: string, detail: string, hint?: string): Check => ({ name, status: 'warn', detail, ...(hint && { hint }) });
const skip = (name: string, detail: string): Check => ({ name, status: 'skip', detail });
const fail = (name: string, detail: string, exitCode: number, hint?: string): Check => ({
  name,
  status: 'fail',
  detail,
  ...(hint && { hint }),
  exitCode,
});

class TimedOut extends Error {}

/** `fn`, given at most `ms` (its signal aborts then). */
async function within<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctl.abort();
      reject(new TimedOut(`no answer in ${ms / 1000} s`));
    }, ms);
  });
  try {
    return await Promise.race([fn(ctl.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function run(_input: DoctorInput, ctx: CommandContext): Promise<number> {
  const checks: Check[] = [nodeCheck(), await storeCheck(ctx.env), await keyringCheck(ctx.env), ...configDirChecks(ctx.config.dir)];
  let settings: Settings | undefined;
  try {
    settings = ctx.settings;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    checks.push(fail('profile', describeError(err), Exit.Usage, err.hint));
  }
  if (settings) checks.push(...(await tenantChecks(ctx, settings)));

  const failed = checks.find((c) => c.status === 'fail');
  if (ctx.out.json) {
    ctx.out.printJson({ ok: !failed, checks: checks.map(({ exitCode: _, ...c }) => ({ ...c, hint: c.hint ?? null })) });
  } else {
    // Printed as Text: a detail may carry a tenant's text (a certificate's names, a Date header), escaped, the marks in colour.
    const marks: Record<Status, Text> = {
      ok: styled('✓', 'green'),
      warn: styled('!', 'yellow'),
      fail: styled('✗', 'red'),
      skip: styled('-', 'dim'),
    };
    const width = Math.max(...checks.map((c) => c.name.length)) + 2;
    for (const c of checks) {
      ctx.out.printText([marks[c.status], ` ${c.name.padEnd(width)}`, c.detail]);
      if (c.hint) ctx.out.printText([`  ${' '.repeat(width)}`, styled(`hint: ${c.hint}`, 'dim')]);
    }
  }
  return failed?.exitCode ?? 0;
}

/** The Node.js release, against the ones agctl supports (package.json `engines`). */
function nodeCheck(): Check {
  const { node, platform: os, arch } = runtime();
  const [major = 0, minor = 0, patch = 0] = node.split('.').map(Number);
  const supported = (major === 20 && (minor > 18 || (minor === 18 && patch >= 1))) || major === 22 || major === 24;
  const detail = `${node} (${os} ${arch})`;
  return supported
    ? ok('Node.js', detail)
    : warn('Node.js', `${detail}: not a supported release`, 'use Node.js 20.18.1 or later 20.x, 22 or 24');
}

async function storeCheck(env: NodeJS.ProcessEnv): Promise<Check> {
  let state;
  try {
    state = await within(STORE_MS, () => storeBackend(env));
  } catch (err) {
    return fail('store', `the embedded store did not open: ${describeError(err)}`, Exit.Environment);
  }
  return state.backend ? ok('store', state.backend) : fail('store', state.problem!, state.exitCode ?? Exit.Environment);
}

/** The OS keyring: which one, and whether it answers (a look-up of an entry that does not exist). */
async function keyringCheck(env: NodeJS.ProcessEnv): Promise<Check> {
  if (ciSet(env)) return skip('keyring', `not used: the CI variable is set (CI=${env.CI})`);
  const which = { darwin: 'macOS Keychain', win32: 'Windows Credential Manager' }[platform() as string] ?? 'Secret Service (D-Bus)';
  const noneHint = 'secrets are sealed with the key file in the config directory instead; set AGCTL_CONFIG_KEY to keep the key elsewhere';
  try {
    const store = await within(CHECK_MS, () => secretStoreFor(env)());
    if (store instanceof NoKeyring) return warn('keyring', `none: ${store.reason}`, noneHint);
    await within(CHECK_MS, () => store.get('agctl-doctor-probe'));
    return ok('keyring', `${which}: answers`);
  } catch (err) {
    return warn('keyring', `${which}: ${describeError(err)}`, noneHint);
  }
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * The config directory: checked as every command checks it before reading
 * (src/lib/private-fs.ts: this user's or root's, not writable by group or
 * others, its files never links), then that agctl can write it and that
 * others cannot read it.
 */
function configDirChecks(dir: string): Check[] {
  const name = 'config dir';
  let st: Stats;
  try {
    st = statSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [ok(name, `${dir}: not made yet (agctl makes it, mode 0700, at the first login)`)];
    return [fail(name, `${dir}: ${describeError(err)}`, Exit.Usage, 'fix it, or set AGCTL_CONFIG_DIR to another directory')];
  }
  if (!st.isDirectory())
    return [fail(name, `${dir}: not a directory`, Exit.Usage, 'remove it, or set AGCTL_CONFIG_DIR to another directory')];
  try {
    checkPrivateDir(dir, 'the config directory');
    // The files that hold secrets: read as every command reads them (a link, another's file or one others can write is refused).
    for (const f of ['key', 'config.json']) readPrivateFile(join(dir, f), dir);
  } catch (err) {
    if (err instanceof UnsafePathError) return [fail(name, err.message, Exit.Usage, err.hint)];
    return [fail(name, `${dir}: ${describeError(err)}`, Exit.Usage, 'fix it, or set AGCTL_CONFIG_DIR to another directory')];
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    return [
      fail(
        name,
        `${dir}: agctl cannot write it (${describeError(err)})`,
        Exit.Usage,
        `make it writable (chmod u+rwx), or set AGCTL_CONFIG_DIR to another directory`,
      ),
    ];
  }
  if (platform() !== 'win32' && st.mode & 0o077)
    return [warn(name, `${dir}: others can read it (mode ${octal(st.mode)}); agctl makes it 0700 at its next save`, `chmod 700 ${dir}`)];
  return [ok(name, `${dir}: yours, mode ${octal(st.mode)}`)];
}

/** The path to the tenant (proxy, DNS, TCP, TLS), the clock against its Date header, and the cached token. */
async function tenantChecks(ctx: CommandContext, s: Settings): Promise<Check[]> {
  let baseUrl = s.baseUrl;
  if (ctx.flags.embedded) {
    try {
      baseUrl = await ctx.baseUrl();
    } catch (err) {
      return [fail('base URL', `--embedded: ${describeError(err)}`, Exit.Usage, (err as { hint?: string }).hint)];
    }
  }
  if (!baseUrl) return [warn('base URL', `profile "${s.profile}" has none`, 'run `agctl login`, or set AGCTL_BASE_URL')];
  const url = new URL(baseUrl);
  const checks: Check[] = [
    ok('base URL', `${baseUrl}${s.baseUrlSource && s.baseUrlSource !== 'profile' ? ` (from ${s.baseUrlSource})` : ''}`),
  ];

  let host = url.hostname.replace(/^\[|\]$/g, '');
  let port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  // The proxy every command would use (src/lib/proxy.ts): the connection checks go to it.
  let proxy: HttpProxy | undefined;
  try {
    proxy = proxyFor(url, ctx.env);
  } catch (err) {
    checks.push(fail('proxy', describeError(err), Exit.Usage, (err as { hint?: string }).hint));
    return checks;
  }
  if (proxy) {
    checks.push(ok('proxy', `${proxy.source}: ${proxy.display}${proxy.authorization ? ' (with credentials, not shown)' : ''}`));
    host = proxy.host;
    port = proxy.port;
  } else {
    checks.push(ok('proxy', 'none: a direct connection'));
  }
  const through = proxy ? ' (the proxy)' : '';

  let address = host;
  if (isIP(host)) checks.push(skip('DNS', `${host} is an address`));
  else {
    try {
      const found = await within(CHECK_MS, () => lookup(host, { all: true }));
      address = found[0]!.address;
      checks.push(
        ok(
          'DNS',
          `${host}${through} -> ${found
            .slice(0, 4)
            .map((a) => a.address)
            .join(', ')}${found.length > 4 ? ', …' : ''}`,
        ),
      );
    } catch (err) {
      checks.push(fail('DNS', `${host}${through}: ${netWords(err)}`, Exit.Server, 'check the host name, the network and the DNS settings'));
      return [...checks, ...(await tokenCheck(ctx, s, baseUrl))];
    }
  }

  const started = performance.now();
  try {
    await within(CHECK_MS, (signal) => connected(tcpConnect({ host: address, port, signal })));
    checks.push(ok('TCP', `${address}:${port}${through} connected in ${Math.round(performance.now() - started)} ms`));
  } catch (err) {
    checks.push(
      fail(
        'TCP',
        `${address}:${port}${through}: ${netWords(err)}`,
        Exit.Server,
        proxy ? `check ${proxy.source} and the proxy` : 'check the base URL, the network and any firewall',
      ),
    );
    return [...checks, ...(await tokenCheck(ctx, s, baseUrl))];
  }

  if (url.protocol !== 'https:') checks.push(skip('TLS', 'plain http'));
  else if (proxy) checks.push(skip('TLS', 'through the proxy: not checked here'));
  else checks.push(await tlsCheck(address, port, host));

  checks.push(await clockCheck(ctx, baseUrl));
  return [...checks, ...(await tokenCheck(ctx, s, baseUrl))];
}

/** A network error in words ("connection refused", "host not found", "no answer in 5 s"). */
function netWords(err: unknown): string {
  if (err instanceof TimedOut) return err.message;
  const f = networkFailure(err);
  return f.kind === 'other' ? describeError(err) : f.detail;
}

/** Resolves once `socket` connects, then closes it. */
function connected(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', (err) => {
      socket.destroy();
      reject(err);
    });
  });
}

/** The TLS handshake with the tenant: protocol, and the certificate's subject, issuer and expiry (verified as every request verifies it). */
async function tlsCheck(address: string, port: number, host: string): Promise<Check> {
  let socket: TLSSocket | undefined;
  try {
    socket = await within(CHECK_MS, () => {
      const s = tlsConnect({ host: address, port, servername: isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] });
      return new Promise<TLSSocket>((resolve, reject) => {
        s.once('secureConnect', () => resolve(s));
        s.once('error', reject);
        s.setTimeout(CHECK_MS, () => s.destroy(new TimedOut(`no answer in ${CHECK_MS / 1000} s`)));
      });
    });
    const cert = socket.getPeerCertificate();
    const expires = Date.parse(cert.valid_to);
    const days = Math.floor((expires - Date.now()) / 86_400_000);
    const name = (n: unknown) => String((n as Record<string, unknown> | undefined)?.CN ?? '?').slice(0, 200);
    const detail = `${socket.getProtocol() ?? 'TLS'}, certificate for ${name(cert.subject)} from ${name(cert.issuer)}, valid until ${Number.isFinite(expires) ? new Date(expires).toISOString() : '?'}`;
    return days < CERT_WARN_DAYS
      ? warn('TLS', `${detail} (in ${days} days)`, "the tenant's certificate is due for renewal")
      : ok('TLS', detail);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return fail(
      'TLS',
      `${err instanceof TimedOut ? err.message : describeError(err)}${code && !describeError(err).includes(code) ? ` (${code})` : ''}`,
      Exit.Server,
      'a certificate authority of your own: NODE_EXTRA_CA_CERTS=<file>',
    );
  } finally {
    socket?.destroy();
  }
}

/** This machine's clock against the tenant's Date header (one GET of the base URL, no retry). */
async function clockCheck(ctx: CommandContext, baseUrl: string): Promise<Check> {
  const http = new HttpClient({ timeoutMs: CHECK_MS, maxRetries: 0, userAgent: userAgent(), maxResponseBytes: 64 * 1024 });
  try {
    const res = await within(CHECK_MS + 1_000, () =>
      http.send({ method: 'GET', url: baseUrl, maxResponseBytes: { bytes: 64 * 1024, hint: '' } }),
    );
    const now = ctx.clock.now();
    const header = res.headers.date;
    const raw = Array.isArray(header) ? header[0] : header;
    const at = raw === undefined ? NaN : Date.parse(raw);
    if (!Number.isFinite(at)) {
      return warn(
        'clock',
        raw === undefined ? 'the tenant sent no Date header' : `the tenant's Date header is not a date: ${raw.slice(0, 100)}`,
      );
    }
    // The header has whole seconds: up to a second of the difference is its rounding.
    const skew = Math.round((now - at) / 1000);
    const words = skew === 0 ? 'in step with the tenant' : `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the tenant`;
    if (Math.abs(skew) > SKEW_FAIL_S)
      return fail('clock', words, Exit.Usage, 'set the clock right (NTP): tokens and signed requests are judged by time');
    if (Math.abs(skew) > SKEW_WARN_S) return warn('clock', words, 'set the clock right (NTP)');
    return ok('clock', words);
  } catch (err) {
    return warn('clock', `not compared: ${netWords(err)}`);
  } finally {
    await http.close();
  }
}

/** The token cached for the profile's client at the base URL: its expiry, never the token. */
async function tokenCheck(ctx: CommandContext, s: Settings, baseUrl: string): Promise<Check[]> {
  if (s.accessToken) return [ok('token', 'from AGCTL_ACCESS_TOKEN (its expiry is not known; `agctl auth status` tries it)')];
  if (ctx.flags.embedded) return [skip('token', 'the embedded server issues one per run')];
  if (!s.clientId) return [warn('token', 'no client ID', 'run `agctl login`')];
  try {
    await within(CHECK_MS, () => ctx.vault.unlock(s.profile));
    const t = cachedTokenState(ctx.vault, s.profile, baseUrl, s.clientId, ctx.clock.now());
    const words = describeToken(t);
    return [
      t.state === 'valid' || t.state === 'expiring' ? ok('token', words) : ok('token', `${words}: the next command fetches a new one`),
    ];
  } catch (err) {
    return [warn('token', `cannot be read: ${describeError(err)}`, (err as { hint?: string }).hint)];
  }
}
