// agctl serve: the embedded server in the foreground until Ctrl-C (SIGINT) or SIGTERM.
import { join, resolve } from 'node:path';
import { CliError, Exit, UsageError } from '../../../lib/exit.js';
import { dataDir as defaultDataDir } from '../../../config/paths.js';
import { readTextIfExists, writePrivateFile } from '../../../config/secure-file.js';
import { pathProblem } from '../../../lib/fs-errors.js';
import type { CommandContext } from '../../context.js';
import type { ServeInput } from './command.js';
import { styled } from '../../output.js';
import { shellQuote } from '../../shell-quote.js';
import { escapeControls } from '../../escape.js';

/** The file in the data directory that keeps the port serve listened on last. */
const PORT_FILE = 'serve-port';

/** The port kept for the data directory, if any (a damaged file counts as none). */
function rememberedPort(dir: string): number | undefined {
  let text: string | undefined;
  try {
    text = readTextIfExists(join(dir, PORT_FILE));
  } catch {
    return undefined;
  }
  const v = text?.trim() ?? '';
  return /^\d{1,5}$/.test(v) && Number(v) >= 1 && Number(v) <= 65535 ? Number(v) : undefined;
}

export async function run({ opts }: ServeInput, ctx: CommandContext): Promise<number> {
  const [{ startEmbeddedServer, StartupError, StoreUnavailableError }, { lockDataDir }, { REQUEST_LOG_PER_SECOND }, { storeBackend }] =
    await Promise.all([
      import('../../../server/app.js'),
      import('../../../server/lock.js'),
      import('../../../server/request-log.js'),
      import('../../../server/store/sqlite.js'),
    ]);
  const dir = resolve(opts.dataDir ?? defaultDataDir(ctx.env));
  const dataDirFlag = opts.dataDir === undefined && ctx.env.AGCTL_DATA_DIR ? 'AGCTL_DATA_DIR' : '--data-dir';
  const log = opts.quiet ? undefined : (line: string) => ctx.io.stderr.write(`${new Date().toISOString()} ${escapeControls(line)}\n`);
  const start = (port: number) =>
    startEmbeddedServer({
      dataDir: dir,
      dataDirFlag,
      env: ctx.env,
      host: opts.host,
      port,
      tokenTtlSeconds: opts.tokenTtl,
      frontendUrl: opts.frontendUrl,
      trustProxy: opts.trustProxy,
      allowInsecureJwks: opts.allowInsecureJwks,
      log,
      logPerSecond: REQUEST_LOG_PER_SECOND,
    });
  // --port wins; else the port this data directory used last (a saved profile points there); else any free one.
  const remembered = opts.port === undefined ? rememberedPort(dir) : undefined;
  let server: Awaited<ReturnType<typeof startEmbeddedServer>>;
  let taken = false;
  let lock: { release(): void } | undefined;
  try {
    // A store that cannot load is said before anything is made in the data directory.
    storeBackend(ctx.env);
    // One serve per data directory (src/server/lock.ts): a second one is refused before it opens the database.
    lock = lockDataDir(dir, { dataDirFlag });
    try {
      server = await start(opts.port ?? remembered ?? 0);
    } catch (err) {
      // Held by another process (not a serve of this data directory, which holds the lock): a free port for this run.
      if (remembered === undefined || !(err instanceof StartupError) || err.code !== 'EADDRINUSE') throw err;
      taken = true;
      server = await start(0);
    }
  } catch (err) {
    lock?.release();
    // No SQLite driver loads (the installation or Node): one line naming the fix, exit 11.
    if (err instanceof StoreUnavailableError) throw new CliError(err.message, Exit.Environment, { code: 'store_unavailable' });
    // The user's data directory, seal key or address, not a bug: one line and exit 2.
    if (err instanceof StartupError) throw new UsageError(err.message, err.hint);
    throw err;
  }
  ctx.onClose(async () => lock!.release());
  const info = server.readyInfo();
  const port = Number(new URL(info.baseUrl).port);
  if (!taken && port !== remembered) {
    try {
      writePrivateFile(join(dir, PORT_FILE), `${port}\n`, { privateDir: false });
    } catch (err) {
      ctx.out.warn(`cannot keep the port for the next start in ${join(dir, PORT_FILE)}: ${pathProblem(join(dir, PORT_FILE), err)}`);
    }
  }
  // Listening for Ctrl-C (SIGINT) and SIGTERM before the ready file tells anyone the server runs (a script
  // that waits for the file and then stops the server must find it listening).
  // Each is heard once (a second one ends the process at once); neither once the server is closed.
  let closed!: () => void;
  const stopped = new Promise<void>((done) => (closed = done));
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) return;
    stopping = true;
    ctx.out.info(`${sig}: finishing in-flight requests and closing the database`);
    server.close().then(closed, (err) => {
      ctx.out.info(`error while stopping: ${(err as Error).message}`);
      closed();
    });
  };
  const offTerminate = ctx.io.onTerminate(() => {
    offTerminate();
    stop('SIGTERM');
  });
  const offInterrupt = ctx.io.onInterrupt(() => {
    offInterrupt();
    stop('SIGINT');
  });
  const readyFile = resolve(opts.readyFile ?? `${dir}/ready.json`);
  try {
    writePrivateFile(readyFile, JSON.stringify(info, null, 2) + '\n', { privateDir: false });
  } catch (err) {
    // Without the ready file nobody can use the server: stop it rather than run on unreachable.
    offTerminate();
    offInterrupt();
    await server.close();
    throw new UsageError(`--ready-file: cannot write ${readyFile}: ${pathProblem(readyFile, err)}`);
  }

  ctx.out.success(['agctl embedded server listening on ', styled(info.baseUrl, 'bold')]);
  if (taken)
    ctx.out.warn(
      `port ${remembered}, this data directory's, is in use by another process: listening on ${port} for this run (profiles logged in to port ${remembered} will not reach it)`,
    );
  ctx.out.info(`  data: ${dir}`);
  ctx.out.info(`  ready file (clients, secrets, demo IDs; mode 0600): ${readyFile}`);
  for (const c of info.clients) ctx.out.info(`  client ${c.clientId} (${c.form} secret)`);
  const hook = (info.demo as { webhooks?: { hmac?: { path?: string; secret?: string } } }).webhooks?.hmac;
  if (hook?.path && hook.secret) {
    // The signing secret stays in the ready file: a command to copy reads it from there.
    ctx.out.info(`  HMAC webhook listener: ${info.baseUrl}${hook.path}`);
    ctx.out.info(
      `  send it an event: jq -r .demo.webhooks.hmac.secret ${shellQuote(readyFile)} | agctl webhook send ${shellQuote(info.baseUrl + hook.path)} --secret-stdin --data '{"hello":"world"}'`,
    );
  }
  const plainClient = info.clients.find((c) => c.form === 'plain')?.clientId;
  // A command to copy and run: the path (a data directory may hold spaces) and the URL ([::1] is a glob) are quoted.
  ctx.out.info(
    `  log in: jq -r '.clients[] | select(.form=="plain") | .clientSecret' ${shellQuote(readyFile)} | agctl login --base-url ${shellQuote(info.baseUrl)} --client-id ${plainClient ? shellQuote(plainClient) : '<id>'} --client-secret-stdin`,
  );
  ctx.out.info('  press Ctrl-C to stop');

  await stopped;
  offTerminate();
  offInterrupt();
  return 0;
}
