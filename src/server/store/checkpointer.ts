// Background WAL checkpoints for a store on disk. In WAL mode a commit only
// appends to the log; copying the log back into the database file and syncing
// it (the checkpoint) is the slow part. SQLite normally does it inside the
// commit that crosses the threshold, blocking the event loop for the whole
// copy and fsync. Here a worker thread with its own connection checkpoints on
// a timer instead, so request handling only ever appends. The main connection
// keeps a high automatic threshold as a safety net should the worker fall behind.
import { Worker } from 'node:worker_threads';
import { workerDriver, type DB } from './sqlite.js';

// The worker opens its connection with the main connection's driver (node:sqlite
// keeps its load-time ExperimentalWarning to itself here too, as in sqlite.ts).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
let db;
if (workerData.backend === 'node:sqlite') {
  const emit = process.emitWarning;
  process.emitWarning = (w, t, ...rest) => (t === 'ExperimentalWarning' && /^SQLite is an experimental feature\\b/.test(String(w)) ? undefined : emit.call(process, w, t, ...rest));
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  process.emitWarning = emit;
  db = new DatabaseSync(workerData.file);
} else {
  const Database = require(workerData.module);
  db = new Database(workerData.file, { fileMustExist: true });
}
db.exec('PRAGMA busy_timeout = 1000');
const tick = () => { try { db.exec('PRAGMA wal_checkpoint(PASSIVE)'); } catch {} };
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); tick(); db.close(); parentPort.close(); });
`;

/** Pages in the log before the main connection checkpoints by itself. */
const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000;

/** How long a stop waits for the worker to close its connection before ending it. */
const STOP_TIMEOUT_MS = 2_000;

/**
 * Starts checkpointing `file` (the database of `db`) from a worker thread every
 * `intervalMs`. Returns a stop function that resolves once the worker's
 * connection is closed, so the main connection's close is the last one and
 * folds the log back into the database file. Does nothing for in-memory databases.
 */
export function startCheckpointer(db: DB, intervalMs = 500): () => Promise<void> {
  if (db.memory || !db.open) return async () => {};
  let worker: Worker;
  try {
    worker = new Worker(WORKER, { eval: true, workerData: { ...workerDriver(), file: db.name, intervalMs } });
  } catch {
    return async () => {};
  }
  worker.unref();
  worker.on('error', () => {
    // Checkpointing falls back to the main connection's automatic threshold.
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  });
  db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  return async () => {
    if (exited) return;
    worker.postMessage('stop');
    const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    await exit;
    clearTimeout(timer);
  };
}
