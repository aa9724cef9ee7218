// The package version: written into the build, else read once from
// package.json (a tiny module: the `--version` fast path imports it first).
import { readFileSync } from 'node:fs';

/** Set by the bundler (scripts/build.mjs); undefined when the sources run as they are (tests, `npm run dev`). */
declare const AGCTL_BUILD_VERSION: string | undefined;

let cached: string | undefined;

export function version(): string {
  cached ??=
    typeof AGCTL_BUILD_VERSION === 'string'
      ? AGCTL_BUILD_VERSION
      : (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}

/** The runtime agctl runs on (`agctl version`, the User-Agent). */
export function runtime(): { node: string; platform: string; arch: string } {
  return { node: process.versions.node, platform: process.platform, arch: process.arch };
}

/** The User-Agent of every request the CLI sends: product, version, runtime. */
export function userAgent(): string {
  return `agctl/${version()} node/${runtime().node}`;
}
