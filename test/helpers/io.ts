// In-memory io streams for commands run in-process with a directly built context.
import { PassThrough, Readable } from 'node:stream';
import type { IO } from '../../src/cli/io.js';

export function fakeIO(opts: { tty?: boolean; stdin?: string } = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  const interruptListeners = new Set<() => void>();
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const io: IO = {
    stdin: Readable.from(opts.stdin ? [Buffer.from(opts.stdin)] : []),
    stdout,
    stderr,
    isStdinTTY: Boolean(opts.tty),
    isStdoutTTY: Boolean(opts.tty),
    isStderrTTY: Boolean(opts.tty),
    onInterrupt(listener) {
      const l = () => listener();
      interruptListeners.add(l);
      return () => {
        interruptListeners.delete(l);
      };
    },
    onTerminate: () => () => {},
  };
  return {
    io,
    out: () => out,
    err: () => err,
    /** Ctrl-C: calls the listeners subscribed with io.onInterrupt. */
    interrupt: () => {
      for (const l of [...interruptListeners]) l();
    },
    /** How many listeners are subscribed to Ctrl-C. */
    interruptListeners: () => interruptListeners.size,
  };
}
