// Lines redrawn in place on a terminal (the step-up spinner, the load progress
// bar) stay within the terminal's width, so a redraw never wraps and adds a row.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommandContext } from '../../../src/cli/context.js';
import { fitLine, lineWidth, redraw } from '../../../src/cli/live-line.js';
import { truncate } from '../../../src/cli/output.js';
import { startSpinner } from '../../../src/cli/spinner.js';
import { progressLine, runLoad } from '../../../src/cli/commands/webhook/load.js';
import { fakeIO } from '../../helpers/io.js';
import { tinyServer } from '../client/tiny-server.js';

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const visible = (s: string) => [...s.replace(ANSI, '')].length;

/** The frames written to a stream: each starts with \r; the escapes are kept. */
const frames = (written: string) => written.split('\r').filter(Boolean);

describe('fitting a line to the terminal', () => {
  it('uses the current width minus one and room for an echoed ^C, 80 columns when unknown', () => {
    expect(lineWidth({ columns: 60 })).toBe(57);
    expect(lineWidth({})).toBe(77);
    expect(lineWidth({ columns: 0 })).toBe(77);
    expect(lineWidth({ columns: 3 })).toBe(0);
    expect(lineWidth({ columns: 1 })).toBe(0);
  });

  it('takes the first candidate that fits, else cuts the last with an ellipsis', () => {
    expect(fitLine(['a long line', 'short'], 20)).toBe('a long line');
    expect(fitLine(['a long line', 'short'], 5)).toBe('short');
    expect(fitLine(['a long line', 'short'], 4)).toBe('sho…');
    expect(truncate('abc', 0)).toBe('');
    expect(truncate('abc', 1)).toBe('…');
    expect(truncate('⠋ wait', 4)).toBe('⠋ w…');
    expect(truncate('⠋ wait', 3)).toBe('⠋…');
    // Cut by columns, not characters: a wide character takes two.
    expect(truncate('漢字漢字', 5)).toBe('漢字…');
    expect(truncate('漢字漢字', 4)).toBe('漢…');
    expect(redraw('x')).toBe('\rx\x1b[K');
  });
});

describe('spinner', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** What a wait's spinner says, most complete first, for `left` seconds left. */
  const text = (left: number) => [
    `Waiting for the thing to be done (${left}s left, Ctrl-C to stop)`,
    `Waiting for the thing to be done (${left}s left)`,
    `Waiting for the thing (${left}s left)`,
  ];

  async function spin(columns: number | undefined, steps: (s: { columns?: number }) => void = () => {}, tty = true) {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const f = fakeIO({ tty });
    const stderr = f.io.stderr as PassThrough & { columns?: number };
    if (columns !== undefined) stderr.columns = columns;
    const ctx = new CommandContext({ io: f.io, env: { AGCTL_CONFIG_DIR: '/nonexistent' }, flags: { color: true } });
    await ctx.out.styles();
    const deadline = Date.now() + 300_000;
    const spinner = startSpinner(ctx, () => text(Math.ceil((deadline - Date.now()) / 1000)), 'Waiting up to 300s for the thing...');
    vi.advanceTimersByTime(350);
    steps(stderr);
    spinner.stop();
    await new Promise((r) => setImmediate(r));
    return f.err();
  }

  it('keeps the whole line on a wide terminal, and the time left follows the clock', async () => {
    const out = await spin(200);
    const all = frames(out);
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(all[0]!.replace(ANSI, '')).toBe('⠋ Waiting for the thing to be done (300s left, Ctrl-C to stop)');
    expect(all[3]!.replace(ANSI, '')).toMatch(/^⠸ Waiting for the thing to be done \(300s left/);
    expect(out.endsWith('\r\x1b[K')).toBe(true);
  });

  it('fits every frame to 50 columns: the first candidate that fits, each frame clearing the rest of the line', async () => {
    const out = await spin(50);
    const drawn = frames(out).slice(0, -1);
    for (const f of drawn) {
      expect(visible(f)).toBeLessThanOrEqual(47);
      expect(f.endsWith('\x1b[K')).toBe(true);
    }
    expect(drawn[0]!.replace(ANSI, '')).toBe('⠋ Waiting for the thing to be done (300s left)');
  });

  it('follows a resize, cuts with an ellipsis on a narrow terminal, and assumes 80 columns when the width is unknown', async () => {
    const out = await spin(200, (s) => {
      s.columns = 21;
      vi.advanceTimersByTime(100);
    });
    const last = frames(out).slice(0, -1).at(-1)!.replace(ANSI, '');
    expect(last).toBe('⠼ Waiting for the…');
    expect(visible(last)).toBeLessThanOrEqual(18);
    for (const f of frames(await spin(undefined))) expect(visible(f)).toBeLessThanOrEqual(77);
  });

  it('writes its plain line once when stderr is not a terminal', async () => {
    expect(await spin(200, () => vi.advanceTimersByTime(1000), false)).toBe('Waiting up to 300s for the thing...\n');
  });
});

describe('load progress bar', () => {
  it('is unchanged on a wide terminal and shortened to fit a narrow one', () => {
    const statuses = { '200': 40, '401': 2 };
    expect(progressLine(42, 100, 2000, statuses, 1, 200)).toBe('[#############.................] 42/100  21/s  200:40 401:2  errors:1');
    expect(progressLine(42, 100, 2000, statuses, 1, 59)).toBe('[#############.................] 42/100  21/s  errors:1');
    expect(progressLine(42, 100, 2000, statuses, 0, 30)).toBe('[####......] 42/100  21/s');
    expect(progressLine(42, 100, 2000, statuses, 0, 12)).toBe('42/100  21/s');
    expect(progressLine(42, 100, 2000, statuses, 0, 4)).toBe('42/…');
  });

  it('in a timed run, fills with the time (or the count, when further along) and shows it', () => {
    expect(progressLine(42, Infinity, 2000, {}, 0, 200, 8000)).toBe('[########......................] 42  21/s  2.0/8 s');
    expect(progressLine(42, Infinity, 9000, {}, 0, 200, 8000)).toBe('[##############################] 42  5/s  8.0/8 s');
    expect(progressLine(90, 100, 2000, { '200': 90 }, 0, 200, 8000)).toBe('[###########################...] 90/100  45/s  2.0/8 s  200:90');
  });

  it('redraws within a 40-column terminal during a real run', async () => {
    const srv = await tinyServer();
    srv.reset((_r, res) => res.end('{}'));
    const progress = new PassThrough() as PassThrough & { columns?: number };
    progress.columns = 40;
    let written = '';
    progress.on('data', (d) => (written += d));
    const sum = await runLoad({
      url: srv.url + '/hook',
      count: 40,
      concurrency: 4,
      rate: 150,
      body: Buffer.from('{}'),
      headersFor: async () => ({}),
      timeoutMs: 5000,
      progress,
    });
    expect(sum.statuses).toEqual({ '200': 40 });
    const all = frames(written);
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const f of all) {
      expect(visible(f.replace(/\n$/, ''))).toBeLessThanOrEqual(37);
      expect(f).toMatch(/\x1b\[K\n?$/);
    }
    expect(written.endsWith('\n')).toBe(true);
  });
});
