// A spinner for a wait: on a terminal stderr a frame and a line of text
// redrawn in place (through ./live-line.ts, so it fits the terminal's current
// width); anywhere else one plain line, once.
import type { CommandContext } from './context.js';
import { CLEAR_LINE, fitLine, lineWidth, redraw } from './live-line.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** How often the spinner is redrawn. */
const FRAME_MS = 100;

/**
 * Starts a spinner; `text()` gives each frame's text as candidates, most
 * complete first: the first that fits is shown, else the last cut with "…".
 * `plain` is the line written instead when stderr is not a terminal. The
 * spinner stops (and its line is cleared) on `stop()` or when the command
 * ends.
 */
export function startSpinner(
  ctx: Pick<CommandContext, 'io' | 'out' | 'onClose'>,
  text: () => readonly string[],
  plain: string,
): { stop(): void } {
  if (!ctx.io.isStderrTTY) {
    ctx.out.info(plain);
    return { stop() {} };
  }
  const stderr = ctx.io.stderr;
  let i = 0;
  const draw = () => {
    const max = lineWidth(stderr);
    const frame = FRAMES[i++ % FRAMES.length]!;
    // The frame and its space take two columns; on a terminal narrower than that, only what fits.
    const line = max >= 3 ? `${ctx.out.style.cyan(frame)} ${fitLine(text(), max - 2)}` : max >= 1 ? ctx.out.style.cyan(frame) : '';
    stderr.write(redraw(line));
  };
  draw();
  const timer = setInterval(draw, FRAME_MS);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    stderr.write(CLEAR_LINE);
  };
  ctx.onClose(stop);
  return { stop };
}
