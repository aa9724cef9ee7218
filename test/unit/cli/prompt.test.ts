// The prompts over fake terminal streams: a secret prompt shows nothing of the secret, not even its length.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../../src/cli/io.js';
import { InquirerPrompter } from '../../../src/cli/prompt.js';

function fakeTerminal() {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  let shown = '';
  const stderr = Object.assign(
    new Writable({
      write(chunk, _enc, done) {
        shown += String(chunk);
        done();
      },
    }),
    { isTTY: true, columns: 80, rows: 24 },
  );
  return {
    io: { stdin, stdout: stderr, stderr, isStdinTTY: true, isStdoutTTY: true } as unknown as IO,
    type: (s: string) => stdin.write(s),
    shown: () => shown,
  };
}

describe('InquirerPrompter', () => {
  it('reads a secret without echoing it or a mask of its length', async () => {
    const t = fakeTerminal();
    const answer = new InquirerPrompter(true, t.io, false).password('Client secret');
    await new Promise((r) => setTimeout(r, 50));
    t.type('s3cr3t-value');
    t.type('\r');
    expect(await answer).toBe('s3cr3t-value');
    expect(t.shown()).toContain('Client secret');
    expect(t.shown()).not.toContain('s3cr3t');
    expect(t.shown()).not.toMatch(/\*{3,}/);
  });

  it('without colour, as the context says, shows no colour and leaves the process environment alone', async () => {
    const before = process.env.NO_COLOR;
    const t = fakeTerminal();
    const answer = new InquirerPrompter(true, t.io, false).confirm('Delete 2 rules?', { default: false });
    await new Promise((r) => setTimeout(r, 50));
    t.type('y');
    t.type('\r');
    expect(await answer).toBe(true);
    expect(t.shown()).toContain('Delete 2 rules? (y/N)');
    expect(t.shown()).not.toMatch(/\x1b\[[0-9;]*m/);
    expect(process.env.NO_COLOR).toBe(before);
  });
});
