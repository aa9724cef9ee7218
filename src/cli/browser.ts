// Opening a URL in the user's browser (gh's Factory.Browser): commands reach
// it as `ctx.browser`, so tests give the context another one.

export interface Browser {
  /** Opens `url`; false when no browser could be started for it (see `openUrl`). */
  open(url: string): Promise<boolean>;
}

/** The browser of this system: $BROWSER, or the system's opener, started with `env` (less the AGCTL_* variables). */
export function systemBrowser(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Browser {
  return { open: (url) => openUrl(url, env, platform) };
}

/**
 * The environment a browser is started with: this one without the AGCTL_*
 * variables, which may hold secrets (AGCTL_CLIENT_SECRET, AGCTL_ACCESS_TOKEN,
 * AGCTL_CONFIG_KEY, AGCTL_MCP_*, ...) that a long-running browser and
 * everything it starts would otherwise keep.
 */
function browserEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.toUpperCase().startsWith('AGCTL_')) out[k] = v;
  return out;
}

/** How long a browser command may take to fail before it is taken to have opened the page. */
const OPEN_GRACE_MS = 1000;

/**
 * Opens a URL with $BROWSER (a command taking the URL) or the system opener.
 * False when the command cannot be started, or exits non-zero within
 * OPEN_GRACE_MS (BROWSER=false, an opener with no browser to hand the URL to);
 * true when it exits 0 or is still running then.
 */
async function openUrl(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Promise<boolean> {
  const { spawn } = await import('node:child_process');
  const [cmd, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : platform === 'darwin'
      ? ['open', [url]]
      : platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd, args, { stdio: 'ignore', detached: true, env: browserEnv(env) });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        const timer = setTimeout(() => resolve(true), OPEN_GRACE_MS);
        child.once('exit', (code) => {
          clearTimeout(timer);
          resolve(code === 0);
        });
      });
    } catch {
      resolve(false);
    }
  });
}
