// --embedded: the embedded server started inside this process on a loopback
// ephemeral port over the persistent data directory. The command still talks
// to it over HTTP, through the same client and token flow as a real tenant.
import type { EmbeddedHandle } from './context.js';

export async function startEmbedded(dir: string, log: (line: string) => void): Promise<EmbeddedHandle> {
  const { startEmbeddedServer } = await import('../server/app.js');
  const server = await startEmbeddedServer({ dataDir: dir, port: 0, host: '127.0.0.1', log });
  const info = server.readyInfo();
  const client = info.clients.find((c) => c.form === 'key') ?? info.clients[0]!;
  log(`embedded server on ${info.baseUrl} (data: ${dir}) as ${client.clientId}`);
  return { baseUrl: info.baseUrl, clientId: client.clientId, clientSecret: client.clientSecret, close: () => server.close() };
}
