// The bounded file reader behind every --…-file flag: the limit holds while
// reading (character devices and FIFOs have no size to stat), and every
// failure is a plain reason.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/lib/exit.js';
import { readFileBytes } from '../../../src/cli/io.js';
import { FileReadError, readFileLimited } from '../../../src/lib/read-file.js';

const root = mkdtempSync(join(tmpdir(), 'agctl-read-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('readFileLimited', () => {
  it('reads a file up to and including the limit', () => {
    const f = join(root, 'ten');
    writeFileSync(f, '0123456789');
    expect(readFileLimited(f, 10).toString()).toBe('0123456789');
    expect(() => readFileLimited(f, 9)).toThrow(new FileReadError('larger than 9 bytes', 'EFBIG'));
  });

  it('stops reading a character device that never ends', () => {
    expect(() => readFileLimited('/dev/zero', 1024 * 1024)).toThrow('larger than 1048576 bytes (1 MiB)');
  });

  it('stops reading a FIFO whose writer sends more than the limit', async () => {
    const fifo = join(root, 'fifo');
    await new Promise<void>((resolve, reject) =>
      spawn('mkfifo', [fifo]).on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`mkfifo: ${c}`)))),
    );
    // A writer in another process: it blocks until this process opens the FIFO, and dies with it.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const fs=require('fs');const fd=fs.openSync(${JSON.stringify(fifo)},'w');try{for(let i=0;i<64;i++)fs.writeSync(fd,Buffer.alloc(65536))}catch{}`,
      ],
      { stdio: 'ignore' },
    );
    try {
      expect(() => readFileLimited(fifo, 100_000)).toThrow('larger than 100000 bytes');
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('names directories, missing files and unreadable paths plainly', () => {
    const dir = join(root, 'dir');
    mkdirSync(dir);
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    expect(() => readFileLimited(dir, 10)).toThrow('is a directory');
    expect(() => readFileLimited(join(root, 'nope'), 10)).toThrow('no such file or directory');
    expect(() => readFileLimited(join(file, 'sub'), 10)).toThrow('a part of the path is not a directory');
  });
});

describe('readFileBytes (the flags)', () => {
  it('is a usage error naming the flag and the file', () => {
    const err = (() => {
      try {
        readFileBytes('/dev/zero', '--from-file');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('--from-file /dev/zero: larger than 1048576 bytes (1 MiB)');
    expect(() => readFileBytes(root, '--data-file')).toThrow(`--data-file ${root}: is a directory`);
  });
});
