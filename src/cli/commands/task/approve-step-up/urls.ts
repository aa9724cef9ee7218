// The step-up URL of each transaction agctl left pending (--no-wait, a wait
// that timed out, Ctrl-C), so that the resume command can show it again: the
// service's transaction resource does not carry it (service-notes.md §2).
// Kept in the config directory (0600, like the credentials: the URL is the
// person's way to confirm), for a day, at most MAX_ENTRIES, changed holding
// its lock (step-up-urls.lock) so that two commands at once lose no entry.
// Best effort: a file that cannot be read or written (or a lock still held
// after a second) only means the URL is not shown again.
import { join } from 'node:path';
import { configDir } from '../../../../config/paths.js';
import { ensurePrivateDir, readTextIfExists, writePrivateFile } from '../../../../config/secure-file.js';
import { acquireLockSync } from '../../../../lib/private-fs.js';
import { isJsonObject } from '../../../../lib/json.js';

const FILE = 'step-up-urls.json';
const LOCK = 'step-up-urls.lock';
const LOCK_WAIT_MS = 1000;
const KEEP_MS = 24 * 60 * 60 * 1000;
const MAX_ENTRIES = 50;
/**
 * The longest step-up URL taken (run.ts refuses a longer one in an answer).
 * Servers refuse longer request lines (8 KiB is the common limit), so a
 * longer URL is a bad answer.
 */
export const MAX_STEP_UP_URL_CHARS = 8192;
/** An entry with a longer transaction ID or URL (a server's, so any size) is not kept: the file stays under half a megabyte. */
const MAX_ID_CHARS = 256;

type Entries = Record<string, { url: string; at: number }>;

function read(path: string): Entries {
  try {
    const v = JSON.parse(readTextIfExists(path) ?? '{}') as unknown;
    return isJsonObject(v) ? (v as Entries) : {};
  } catch {
    return {};
  }
}

const pathFor = (env: NodeJS.ProcessEnv) => join(configDir(env), FILE);

/** Records the URL of a pending transaction; returns false when it could not be written. */
export function rememberStepUpUrl(env: NodeJS.ProcessEnv, now: number, txId: string, url: string): boolean {
  if (txId.length > MAX_ID_CHARS || url.length > MAX_STEP_UP_URL_CHARS) return false;
  try {
    const path = pathFor(env);
    ensurePrivateDir(configDir(env));
    const release = acquireLockSync(join(configDir(env), LOCK), LOCK_WAIT_MS);
    try {
      const fresh = Object.entries(read(path)).filter(
        ([id, e]) => id !== txId && typeof e?.url === 'string' && typeof e.at === 'number' && now - e.at < KEEP_MS,
      );
      const kept = [...fresh.sort((a, b) => b[1].at - a[1].at).slice(0, MAX_ENTRIES - 1), [txId, { url, at: now }] as const];
      writePrivateFile(path, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
    } finally {
      release();
    }
    return true;
  } catch {
    return false;
  }
}

/** The URL recorded for a transaction, or '' when none was. */
export function recalledStepUpUrl(env: NodeJS.ProcessEnv, now: number, txId: string): string {
  const e = read(pathFor(env))[txId];
  return e && typeof e.url === 'string' && typeof e.at === 'number' && now - e.at < KEEP_MS ? e.url : '';
}
