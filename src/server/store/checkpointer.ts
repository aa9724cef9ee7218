// Background WAL checkpoints for a store on disk. In WAL mode a commit only
// appends to the log; copying the log back into the database file and syncing
// it (the checkpoint) is the slow part. SQLite normally does it inside the
// commit that crosses the threshold, blocking the event loop for the whole
// copy and fsync. Here a worker thread with its own connection checkpoints on
// a timer instead, so request handling only ever appends. The main connection
// keeps a high automatic threshold as a safety net should the worker fall behind.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { DB } from './db.js';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const tick = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
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
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  let worker: Worker;
  try {
    worker = new Worker(WORKER, { eval: true, workerData: { driver, file: db.name, intervalMs } });
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
