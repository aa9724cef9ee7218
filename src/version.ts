// The package version, read once from package.json (a tiny module: the
// `--version` fast path imports it before anything else).
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function version(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}

/** The User-Agent of every request the CLI sends: product, version, runtime. */
export function userAgent(): string {
  return `agctl/${version()} node/${process.versions.node}`;
}
