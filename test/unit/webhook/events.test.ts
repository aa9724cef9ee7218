// The NDJSON reader of `webhook send --events`: lines split across chunks,
// CRLF endings, blank lines, over-long lines not kept, and the corpus read
// again from its start for --count.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventLines, lineBatches } from '../../../src/cli/commands/webhook/events.js';
import { tempDir } from '../../helpers/cli.js';
import { describeFsCode } from '../../../src/lib/fs-errors.js';

const work = tempDir('agctl-events-');
const all = async (chunks: (string | Buffer)[], max?: number) => {
  const out: { no: number; text: string | null }[] = [];
  for await (const batch of lineBatches(
    (async function* () {
      yield* chunks;
    })(),
    max,
  ))
    for (const l of batch) out.push({ no: l.no, text: l.bytes?.toString('utf8') ?? null });
  return out;
};

describe('lineBatches', () => {
  it('splits lines across chunks, drops CR before LF, skips blank lines but counts them, keeps a last line without LF', async () => {
    expect(await all(['{"a"', ':1}\r\n\n  \r\n{"b":', '2}\n', '\t\n[3]'])).toEqual([
      { no: 1, text: '{"a":1}' },
      { no: 4, text: '{"b":2}' },
      { no: 6, text: '[3]' },
    ]);
  });

  it('keeps the exact bytes of a line (spaces, a CR inside, bytes that are not UTF-8)', async () => {
    const bytes = Buffer.from([0x7b, 0x20, 0xff, 0x0d, 0x20, 0x7d]);
    const out: Buffer[] = [];
    for await (const b of lineBatches(
      (async function* () {
        yield Buffer.concat([bytes, Buffer.from('\n')]);
      })(),
    ))
      out.push(...b.map((l) => l.bytes!));
    expect(out[0]!.equals(bytes)).toBe(true);
  });

  it('does not keep a line longer than the limit, however long, and goes on after it', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    const chunks = [...Array.from({ length: 64 }, () => chunk), Buffer.from('\n{"after":1}\n')];
    expect(await all(chunks, 1000)).toEqual([
      { no: 1, text: null },
      { no: 2, text: '{"after":1}' },
    ]);
    expect(await all(['x'.repeat(10) + '\r\n'], 10)).toEqual([{ no: 1, text: 'x'.repeat(10) }]);
    expect(await all(['x'.repeat(11) + '\n'], 10)).toEqual([{ no: 1, text: null }]);
  });
  it('gives an over-long line as soon as it passes the limit, without reading to its end (a stream that never ends a line)', async () => {
    let read = 0;
    const endless = (async function* () {
      for (;;) {
        if (++read > 4) throw new Error('read past the limit');
        yield Buffer.alloc(400, 0x61);
      }
    })();
    const it = lineBatches(endless, 1000);
    expect((await it.next()).value).toEqual([{ no: 1, bytes: null }]);
    await it.return(undefined);
    expect(read).toBe(3);
    // Given once, then the lines after it as before.
    expect(await all(['{"a":1}\n', 'x'.repeat(30), 'x'.repeat(30), '\n{"b":2}\n'], 10)).toEqual([
      { no: 1, text: '{"a":1}' },
      { no: 2, text: null },
      { no: 3, text: '{"b":2}' },
    ]);
  });
});

describe('EventLines', () => {
  it('gives the lines in order, then from the start again', async () => {
    const p = join(work, 'cycle.ndjson');
    writeFileSync(p, '{"n":1}\n\n{"n":2}\n');
    const lines = new EventLines(p);
    const got: string[] = [];
    for (let i = 0; i < 5; i++) got.push((await lines.next())!.toString());
    await lines.close();
    expect(got).toEqual(['{"n":1}', '{"n":2}', '{"n":1}', '{"n":2}', '{"n":1}']);
  });

  it('ends when a whole pass gives no line (the file was emptied after the check)', async () => {
    const p = join(work, 'emptied.ndjson');
    writeFileSync(p, '\n\n');
    const lines = new EventLines(p);
    expect(await lines.next()).toBeUndefined();
    expect(lines.failure).toMatch(/holds no event any more: it changed after the check/);
    await lines.close();
  });

  it('a file that cannot be read after the check says why in words, not as an error code', async () => {
    const lines = new EventLines(work);
    expect(await lines.next()).toBeUndefined();
    expect(lines.failure).toBe('reading it failed after the check: is a directory');
    await lines.close();
  });
});

describe('describeFsCode', () => {
  it.each([
    ['EIO', 'an input/output error (the disk or device failed)'],
    ['EMFILE', 'too many files are open'],
    ['ENOENT', 'no such file or directory'],
    ['ESOMETHINGNEW', 'the file system refused it'],
  ])('says %s in words', (code, words) => {
    expect(describeFsCode(code)).toBe(words);
  });
});
