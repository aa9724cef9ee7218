// --embedded: the embedded server started inside this process on a loopback
// ephemeral port over the persistent data directory. The command still talks
// to it over HTTP, through the same client and token flow as a real tenant.
import { resolve } from 'node:path';
import { CliError, Exit, UsageError } from '../lib/exit.js';

/** The embedded server of this process, as a command sees it (ctx.embedded()). */
export interface EmbeddedHandle {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export async function startEmbedded(dir: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<EmbeddedHandle> {
  const { startEmbeddedServer, StartupError, StoreUnavailableError } = await import('../server/app.js');
  let server: Awaited<ReturnType<typeof startEmbeddedServer>>;
  try {
    server = await startEmbeddedServer({ dataDir: resolve(dir), dataDirFlag: 'AGCTL_DATA_DIR', env, port: 0, host: '127.0.0.1', log });
  } catch (err) {
    // No SQLite driver loads (the installation or Node): one line naming the fix, exit 11.
    if (err instanceof StoreUnavailableError) throw new CliError(err.message, Exit.Environment, { code: 'store_unavailable' });
    // The data directory or seal key of the user, not a bug: one line and exit 2.
    if (err instanceof StartupError) throw new UsageError(`--embedded: ${err.message}`, err.hint);
    throw err;
  }
  const info = server.readyInfo();
  const client = info.clients.find((c) => c.form === 'key') ?? info.clients[0]!;
  log(`embedded server on ${info.baseUrl} (data: ${dir}) as ${client.clientId}`);
  return { baseUrl: info.baseUrl, clientId: client.clientId, clientSecret: client.clientSecret, close: () => server.close() };
}
