// Which store the embedded server (`serve`, `--embedded`) would use, and
// whether it loads here: an in-memory database opened and closed. The one
// place that knows how the store is loaded; an error is put in words, with the
// command that fixes it.

interface StoreState {
  /** The module the store runs on, when it loaded ('better-sqlite3 (SQLite 3.50.4)'). */
  backend?: string;
  /** Why it does not load, and what to do. */
  problem?: string;
  hint?: string;
}

export async function storeBackend(): Promise<StoreState> {
  try {
    const { Store } = await import('../../../server/store/db.js');
    const store = new Store({ sealKey: Buffer.alloc(32), env: {} });
    try {
      const { v } = store.db.prepare('SELECT sqlite_version() AS v').get() as { v: string };
      return { backend: `better-sqlite3 (SQLite ${v})` };
    } finally {
      store.close();
    }
  } catch (err) {
    return storeProblem(err);
  }
}

/** A store that does not load, in words: a module built for another Node.js, one not installed, or another failure. */
export function storeProblem(err: unknown): StoreState {
  const e = err as NodeJS.ErrnoException | undefined;
  const message = String(e?.message ?? err);
  const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/.exec(message);
  if (abi) {
    return {
      problem: `better-sqlite3 was built for another Node.js (module version ${abi[1]}; this Node.js needs ${abi[2]})`,
      hint: 'run `npm rebuild better-sqlite3` where agctl is installed (or reinstall agctl) with this Node.js',
    };
  }
  if (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND' || /Could not locate the bindings file/.test(message)) {
    return {
      problem: `better-sqlite3 is not installed or not built: ${describeError(err)}`,
      hint: 'reinstall agctl (npm i -g agctl), with python3, make and a C++ compiler where no prebuilt binary can be fetched',
    };
  }
  return { problem: `the store does not load: ${describeError(err)}`, hint: 'reinstall agctl; run again with --debug for details' };
}

/** An error's first line, at most 300 characters (a message may carry a path, a stack or a server's text). */
export function describeError(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown } | undefined;
  const text = typeof e?.message === 'string' && e.message ? e.message : String(err);
  const line = text.split('\n')[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
