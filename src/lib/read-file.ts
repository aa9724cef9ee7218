// Reading a file the user named, with a size limit enforced while reading:
// a stat of the size alone would let /dev/zero, a FIFO or a growing file
// through. Failures come back as a plain reason ("no such file", "is a
// directory", "larger than N bytes") for the caller to put after the flag name.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { describeFsCode } from './fs-errors.js';

export class FileReadError extends Error {
  /** The errno code, or "EFBIG" when the file is larger than the limit. */
  readonly code: string;
  constructor(reason: string, code: string) {
    super(reason);
    this.name = 'FileReadError';
    this.code = code;
  }
}

/** A byte count as "N bytes (X MiB)". */
export function describeLimit(bytes: number): string {
  const unit = bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : '';
  return unit ? `${bytes} bytes (${unit})` : `${bytes} bytes`;
}

/**
 * Reads all of `path`, refusing it with a FileReadError (code EFBIG) as soon
 * as more than `maxBytes` have been read. Works on regular files, character
 * devices and FIFOs alike.
 */
export function readFileLimited(path: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new FileReadError(describeFsCode(code), code ?? 'EIO');
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new FileReadError(describeFsCode('EISDIR'), 'EISDIR');
    if (st.isFile() && st.size > maxBytes) throw new FileReadError(`larger than ${describeLimit(maxBytes)}`, 'EFBIG');
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // One byte more than the limit allows is enough to know the file is too large.
      const want = Math.min(64 * 1024, maxBytes + 1 - total);
      const buf = Buffer.allocUnsafe(want);
      let n: number;
      try {
        n = readSync(fd, buf, 0, want, null);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          // A non-blocking descriptor (an inherited pipe) with nothing yet: wait a little.
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
          continue;
        }
        throw new FileReadError(describeFsCode(code), code ?? 'EIO');
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new FileReadError(`larger than ${describeLimit(maxBytes)}`, 'EFBIG');
      chunks.push(n === want ? buf : buf.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}
