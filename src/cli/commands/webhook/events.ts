// `webhook send --events FILE`: a corpus of events as NDJSON, one body a
// line, read as a stream in both of its passes (the check of every line
// before the first send, then the sending), so that its size does not
// matter. Standard input, or a named pipe (`--events <(zcat corpus.gz)`),
// which cannot be read twice, is copied during the check to a private
// temporary file (0600, in a directory of its own) whose name is removed as
// soon as it is opened: it is read back through the open descriptor, and
// nothing is left behind however the command ends (an error, Ctrl-C, a kill).
import { closeSync, createReadStream, mkdtempSync, openSync, rmdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../../lib/exit.js';
import { describeFsCode, pathProblem } from '../../../lib/fs-errors.js';
import { MAX_BODY_BYTES, jsonBody } from '../../../webhook/verify.js';
import type { CommandContext } from '../../context.js';

/** One line of the file: its number (from 1) and its bytes without the line ending, or null when longer than the listener's limit. */
interface Line {
  no: number;
  bytes: Buffer | null;
}

const isBlank = (b: Buffer) => {
  for (const c of b) if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  return true;
};

/**
 * The non-blank lines of a byte stream, a batch per chunk read. A line ends
 * at LF (a CR before it is dropped too). A line over `max` bytes is given
 * (its bytes null) as soon as its length passes max + 1, before its end is
 * read, and the rest of it is passed over: a stream without line breaks
 * takes no memory, and a reader that stops at such a line reads no further.
 */
export async function* lineBatches(input: AsyncIterable<Buffer | string>, max = MAX_BODY_BYTES): AsyncGenerator<Line[]> {
  let parts: Buffer[] = [];
  let size = 0;
  let no = 0;
  /** The line being read is over `max` and has been given already. */
  let long = false;
  const finish = (): Line | undefined => {
    const wasLong = long;
    let bytes: Buffer | null = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    parts = [];
    size = 0;
    long = false;
    if (wasLong) return undefined;
    no++;
    if (bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length > max) bytes = null;
    return bytes !== null && isBlank(bytes) ? undefined : { no, bytes };
  };
  for await (const c of input) {
    const chunk = typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
    const batch: Line[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
      size += piece.length;
      if (!long && size > max + 1) {
        // Over the limit even without a CR at its end: given now, its bytes dropped.
        long = true;
        parts = [];
        batch.push({ no: ++no, bytes: null });
      }
      if (!long) parts.push(piece);
      if (nl < 0) break;
      const line = finish();
      if (line) batch.push(line);
      start = nl + 1;
    }
    if (batch.length) yield batch;
  }
  if (size > 0) {
    const line = finish();
    if (line) yield [line];
  }
}

/** A checked corpus: where to read it from, and how many events it holds. */
export interface EventsFile {
  /** As named on the command line ("-" for standard input). */
  name: string;
  /** The file the sending reads. */
  path: string;
  /** For standard input or a pipe, the open descriptor of its temporary copy (which has no name any more); read from it instead of `path`. */
  fd?: number;
  lines: number;
}

/** A new private temporary file, open for writing and reading, whose name is already removed; closed when the command ends. */
function tempCopy(name: string, ctx: CommandContext): number {
  const under = ctx.env.TMPDIR || tmpdir();
  try {
    const dir = mkdtempSync(join(under, 'agctl-events-'));
    const file = join(dir, 'events.ndjson');
    const fd = openSync(file, 'wx+', 0o600);
    ctx.onClose(() => closeSync(fd));
    unlinkSync(file);
    rmdirSync(dir);
    return fd;
  } catch (err) {
    throw new UsageError(
      `--events ${name}: cannot make a temporary copy of it in ${under}: ${pathProblem(under, err, { isDir: true })}`,
      'set TMPDIR to a writable directory',
    );
  }
}

/** Whether `name` can be read again from its start: a regular file (or a directory or missing file, refused when read), not a pipe or a device. */
function readTwice(name: string): boolean {
  try {
    const st = statSync(name);
    return st.isFile() || st.isDirectory();
  } catch {
    return true;
  }
}

/**
 * Checks every line of `--events` before anything is sent: each is JSON (as
 * the listener's step 2 judges it) of at most the listener's 64 KiB; the
 * first that is not is a usage error naming its line number.
 */
export async function checkEvents(name: string, ctx: CommandContext): Promise<EventsFile> {
  if (name === '-' && ctx.io.isStdinTTY)
    throw new UsageError('--events -: expected the events on standard input, but it is a terminal', 'pipe them in, or pass a file');
  // Standard input or a pipe cannot be read twice: it is copied aside as it is checked.
  const fd = name === '-' || !readTwice(name) ? tempCopy(name, ctx) : undefined;
  const source: AsyncIterable<Buffer | string> = name === '-' ? ctx.io.stdin : createReadStream(name, { highWaterMark: 64 * 1024 });
  const input =
    fd === undefined
      ? source
      : (async function* () {
          for await (const c of source) {
            writeSync(fd, typeof c === 'string' ? Buffer.from(c, 'utf8') : c);
            yield c;
          }
        })();
  let lines = 0;
  try {
    for await (const batch of lineBatches(input)) {
      for (const l of batch) {
        if (l.bytes === null)
          throw new UsageError(
            `--events ${name}, line ${l.no}: more than ${MAX_BODY_BYTES} bytes, the listener's limit (it would answer 413)`,
          );
        const body = jsonBody(l.bytes);
        if ('problem' in body)
          throw new UsageError(
            `--events ${name}, line ${l.no}: ${body.problem.replace(/^body /, 'the event ')}`,
            'one JSON event a line (NDJSON); blank lines are skipped',
          );
        lines++;
      }
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code ? describeFsCode(code) : undefined;
    throw new UsageError(`--events ${name}: cannot read it${why ? `: ${why}` : ''}`);
  }
  if (lines === 0) throw new UsageError(`--events ${name}: no events (it is empty, or every line is blank)`);
  return { name, path: name, lines, fd };
}

/**
 * The lines of a checked corpus in order, from the start again after the
 * last (for --count beyond its length), read a chunk at a time. `next()`
 * gives a line at once while the chunk read lasts.
 */
export class EventLines {
  readonly #path: string;
  readonly #fd?: number;
  #batches?: AsyncGenerator<Line[]>;
  #lines: Line[] = [];
  #i = 0;
  #refill?: Promise<void>;
  /** Lines given since the file was last opened (none in a whole pass: the file has become empty, the end). */
  #inPass = 0;
  #ended = false;
  /** Why the lines ended before the run did: the file changed or could not be read after the check. */
  failure?: string;

  /** `fd`: read from this open descriptor (from its start each pass) instead of opening `path`. */
  constructor(path: string, fd?: number) {
    this.#path = path;
    this.#fd = fd;
  }

  next(): Buffer | undefined | Promise<Buffer | undefined> {
    while (this.#i < this.#lines.length) {
      const l = this.#lines[this.#i++]!;
      // A line that changed since the check and is now too long is left out.
      if (l.bytes) {
        this.#inPass++;
        return l.bytes;
      }
    }
    if (this.#ended) return undefined;
    this.#refill ??= this.#read().finally(() => (this.#refill = undefined));
    return this.#refill.then(() => this.next());
  }

  async #read(): Promise<void> {
    for (;;) {
      this.#batches ??= lineBatches(
        createReadStream(this.#path, {
          highWaterMark: 64 * 1024,
          ...(this.#fd !== undefined && { fd: this.#fd, start: 0, autoClose: false }),
        }),
      );
      let r: IteratorResult<Line[]>;
      try {
        r = await this.#batches.next();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        return this.#end(`reading it failed after the check${code ? `: ${describeFsCode(code)}` : ''}`);
      }
      if (!r.done) {
        this.#lines = r.value;
        this.#i = 0;
        return;
      }
      this.#batches = undefined;
      if (this.#inPass === 0) return this.#end('it holds no event any more: it changed after the check');
      this.#inPass = 0;
    }
  }

  #end(failure: string): void {
    this.#ended = true;
    this.#batches = undefined;
    this.failure = failure;
  }

  /** Closes the file. */
  async close(): Promise<void> {
    this.#ended = true;
    await this.#refill;
    await this.#batches?.return(undefined);
  }
}
