// Which store the embedded server (`serve`, `--embedded`) would use here, as
// the store itself chooses it (src/server/store/sqlite.ts: node:sqlite, else
// better-sqlite3, or AGCTL_STORE_BACKEND), and why it does not load.
import { Exit } from '../../../lib/exit.js';

interface StoreState {
  /** The driver the store runs on, when it loads ('node:sqlite 24.21.0 (SQLite 3.50.4)'). */
  backend?: string;
  /** Why it does not load (one line that names the fix), and the exit code it means. */
  problem?: string;
  exitCode?: number;
}

export async function storeBackend(env: NodeJS.ProcessEnv): Promise<StoreState> {
  const { storeBackend: backend, StoreUnavailableError } = await import('../../../server/store/sqlite.js');
  try {
    const b = backend(env);
    return { backend: `${b.name} ${b.version} (SQLite ${b.sqliteVersion})` };
  } catch (err) {
    // No driver loads: an environment fault (exit 11); a driver named wrongly: a usage error.
    return { problem: describeError(err), exitCode: err instanceof StoreUnavailableError ? Exit.Environment : Exit.Usage };
  }
}

/** An error's first line, at most 300 characters (a message may carry a path, a stack or a server's text). */
export function describeError(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown } | undefined;
  const text = typeof e?.message === 'string' && e.message ? e.message : String(err);
  const line = text.split('\n')[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
