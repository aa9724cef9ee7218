// Key sets of JWT webhook listeners. Remote sets use jose's remote key set
// (fetched with a timeout, cached, refetched on an unknown kid after a
// cooldown); they must be HTTPS, except loopback URLs when insecure JWKS are
// allowed (`agctl serve --allow-insecure-jwks`, `webhook verify --allow-insecure-jwks`).
// Local sets come from a JWKS object or file. A key set, fetched or read, is
// at most JWKS_MAX_BYTES: reading stops there.
import { FileReadError, readFileLimited } from '../lib/read-file.js';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  type CryptoKey,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose';
import { hasScheme, hideUserinfo } from '../lib/url.js';
import { isLoopbackHost } from '../lib/net.js';
import { isJsonObject } from '../lib/json.js';
import { proxyFor } from '../lib/proxy.js';

export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

export class JwksError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JwksError';
  }
}

const JWKS_TIMEOUT_MS = 3000;
/** A JWKS (a file, or the answer of a JWKS URL) larger than this is refused while it is read. */
const JWKS_MAX_BYTES = 1024 * 1024;
const JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;
const JWKS_COOLDOWN_MS = 30_000;

/** Why a JWKS URL may not be used, or null when it may. */
export function jwksUrlProblem(url: string, allowInsecure: boolean): string | null {
  if (!URL.canParse(url)) return `JWKS URL "${hideUserinfo(url)}" is not a valid URL`;
  const u = new URL(url);
  if (u.username || u.password) return 'JWKS URL must not carry credentials';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:') {
    if (!isLoopbackHost(u.hostname))
      return `JWKS URL must use https (plain http is allowed only for loopback addresses, with --allow-insecure-jwks)`;
    if (!allowInsecure) return 'JWKS URL uses plain http: allowed for loopback addresses only with --allow-insecure-jwks';
    return null;
  }
  return `JWKS URL must use https, not ${u.protocol.replace(/:$/, '')}`;
}

function checkJwks(value: unknown, where: string): JSONWebKeySet {
  const keys = isJsonObject(value) ? value.keys : undefined;
  if (!Array.isArray(keys)) throw new JwksError(`${where} is not a JWKS (an object with a "keys" array)`);
  if (keys.some((k) => !isJsonObject(k) || typeof k.kty !== 'string')) throw new JwksError(`${where} holds a key without "kty"`);
  return value as JSONWebKeySet;
}

/** A resolver over a JWKS held in memory. */
export function localJwks(jwks: unknown, where = 'the key set'): KeyResolver {
  return createLocalJWKSet(checkJwks(jwks, where)) as KeyResolver;
}

interface RemoteJwksOptions {
  allowInsecure: boolean;
  timeoutMs?: number;
  cacheMaxAgeMs?: number;
  cooldownMs?: number;
}

/**
 * jose's fetch of a key set, reading at most JWKS_MAX_BYTES of the answer
 * (jose itself reads all of it, whatever its size): a larger one is a
 * JwksError once the cap is passed, the rest is not read.
 */
async function cappedFetch(url: string, init: RequestInit): Promise<Response> {
  const res = await fetchThroughProxy(url, init);
  const tooLarge = () => new JwksError(`the JWKS answer is larger than ${JWKS_MAX_BYTES} bytes`);
  if (Number(res.headers.get('content-length')) > JWKS_MAX_BYTES) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  // jose reads only a 200 answer.
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel().catch(() => {});
    return new Response(null, { status: res.status, statusText: res.statusText });
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > JWKS_MAX_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new Response(Buffer.concat(chunks), { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** One undici ProxyAgent per proxy (its connections kept for the next fetch). */
const proxyAgents = new Map<string, unknown>();

/** fetch(), through the proxy the environment names for `url`, if any (src/lib/proxy.ts: as every request of agctl). */
async function fetchThroughProxy(url: string, init: RequestInit): Promise<Response> {
  let proxy;
  try {
    proxy = proxyFor(new URL(url), process.env);
  } catch (err) {
    throw new JwksError(`cannot fetch the JWKS: ${(err as Error).message}`);
  }
  if (!proxy) return fetch(url, init);
  const undici = await import('undici');
  const key = `${proxy.display}|${proxy.authorization ?? ''}`;
  let dispatcher = proxyAgents.get(key) as InstanceType<typeof undici.ProxyAgent> | undefined;
  if (!dispatcher) proxyAgents.set(key, (dispatcher = new undici.ProxyAgent({ uri: proxy.display, token: proxy.authorization })));
  return (await undici.fetch(url, { ...(init as object), dispatcher })) as unknown as Response;
}

const remoteCache = new Map<string, KeyResolver>();
const REMOTE_CACHE_LIMIT = 500;

/**
 * A cached remote resolver for `url` (one per URL and options in `cache`, by
 * default the process's, so the keys are fetched once and shared by every
 * listener using them). Throws JwksError when the URL is not allowed.
 */
export function remoteJwks(url: string, opts: RemoteJwksOptions, cache = remoteCache): KeyResolver {
  const problem = jwksUrlProblem(url, opts.allowInsecure);
  if (problem) throw new JwksError(problem);
  const timeoutDuration = opts.timeoutMs ?? JWKS_TIMEOUT_MS;
  const cacheMaxAge = opts.cacheMaxAgeMs ?? JWKS_CACHE_MAX_AGE_MS;
  const cooldownDuration = opts.cooldownMs ?? JWKS_COOLDOWN_MS;
  const key = `${timeoutDuration}|${cacheMaxAge}|${cooldownDuration}|${url}`;
  let resolver = cache.get(key);
  if (!resolver) {
    if (cache.size >= REMOTE_CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    resolver = createRemoteJWKSet(new URL(url), {
      timeoutDuration,
      cacheMaxAge,
      cooldownDuration,
      [customFetch]: cappedFetch,
    }) as KeyResolver;
    cache.set(key, resolver);
  }
  return resolver;
}

/** A JWKS from a URL (http/https, per the rules above; fetched afresh, not from the process's cache) or a JSON file. */
export async function loadJwks(source: string, opts: RemoteJwksOptions): Promise<KeyResolver> {
  if (hasScheme(source)) return remoteJwks(source, opts, new Map());
  let text: string;
  try {
    text = readFileLimited(source, JWKS_MAX_BYTES).toString('utf8');
  } catch (err) {
    if (err instanceof FileReadError) throw new JwksError(`cannot read JWKS file ${source}: ${err.message}`);
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new JwksError(`JWKS file ${source} is not valid JSON`);
  }
  // A lone public JWK is accepted as a one-key set.
  if (isJsonObject(parsed) && !Array.isArray(parsed.keys) && typeof parsed.kty === 'string') {
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = parsed;
    parsed = { keys: [pub] };
  }
  return localJwks(parsed, `JWKS file ${source}`);
}
