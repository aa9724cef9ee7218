// Which proxy the environment names for a URL, read as curl and Go read it:
// HTTPS_PROXY for https, HTTP_PROXY for http (the lowercase form first), else
// ALL_PROXY; NO_PROXY's hosts and domain suffixes (and `*`) and loopback
// destinations go direct. Proxy credentials are never part of the answer.
import { isLoopbackHost } from '../../../lib/net.js';

type ProxyChoice =
  | { via: 'direct'; reason: string }
  /** `proxy` is the proxy's URL without its credentials; `withCredentials` says whether it had some. */
  | { via: 'proxy'; variable: string; proxy: string; withCredentials: boolean }
  | { via: 'invalid'; variable: string };

/** The first of `names` set (not empty) in `env`, with its value. */
function firstSet(env: NodeJS.ProcessEnv, names: string[]): [string, string] | undefined {
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && v.trim() !== '') return [n, v.trim()];
  }
  return undefined;
}

/** Whether NO_PROXY's `list` covers `host` (port `port`): `*`, the host, or a domain it is under (`.example.com` or `example.com`). */
export function noProxyCovers(list: string, host: string, port: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return list
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((raw) => {
      if (raw === '*') return true;
      let entry = raw.toLowerCase();
      const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
      if (withPort) {
        if (withPort[2] !== port) return false;
        entry = withPort[1]!;
      }
      entry = entry.replace(/^\[|\]$/g, '').replace(/^\*?\./, '');
      return h === entry || h.endsWith(`.${entry}`);
    });
}

/** The proxy the environment gives for requests to `url`. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): ProxyChoice {
  if (isLoopbackHost(url.hostname)) return { via: 'direct', reason: 'this machine is never reached through a proxy' };
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const noProxy = firstSet(env, ['no_proxy', 'NO_PROXY']);
  if (noProxy && noProxyCovers(noProxy[1], url.hostname, port)) return { via: 'direct', reason: `${noProxy[0]} names it` };
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const set = firstSet(env, [`${scheme}_proxy`, `${scheme.toUpperCase()}_PROXY`, 'all_proxy', 'ALL_PROXY']);
  if (!set) return { via: 'direct', reason: 'no proxy variable is set' };
  const [variable, value] = set;
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    return { via: 'invalid', variable };
  }
  const withCredentials = proxy.username !== '' || proxy.password !== '';
  return { via: 'proxy', variable, proxy: `${proxy.protocol}//${proxy.host}`, withCredentials };
}
