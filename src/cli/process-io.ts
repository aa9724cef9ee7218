// The real process's side of IO, for bin/agctl.js (tests pass in-memory streams).
import type { IO } from './io.js';

/** The real process's streams and Ctrl-C, for bin/agctl.js. */
export function processIO(): IO {
  // A reader that stops early (`agctl ... | head`, `| grep -q`) is not an
  // error: what is left to print goes nowhere, and the command still runs to
  // its end, so the exit code is its outcome (a step-up still pending is 10,
  // not 0) and nothing is left half done.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') return;
      throw err;
    });
  }
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    isStdoutTTY: Boolean(process.stdout.isTTY),
    isStdinTTY: Boolean(process.stdin.isTTY),
    isStderrTTY: Boolean(process.stderr.isTTY),
    onInterrupt: (listener) => onSignal('SIGINT', listener),
    onTerminate: (listener) => onSignal('SIGTERM', listener),
  };
}

/** Calls `listener` on `signal` until the returned function is called. */
function onSignal(signal: NodeJS.Signals, listener: () => void): () => void {
  const handler = () => listener();
  process.on(signal, handler);
  return () => {
    process.off(signal, handler);
  };
}
