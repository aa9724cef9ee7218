// One line redrawn in place on a terminal (the step-up spinner, the load
// progress bar). A line wider than the terminal wraps, and returning to the
// start of the line then only rewinds its last row: every frame would add a
// row. So each frame is fitted to the stream's current width and clears what
// is left of the previous one.
import { truncate, visible } from './output.js';

/** The width assumed when the stream does not say (not a terminal, or an unknown one). */
const DEFAULT_COLUMNS = 80;

/**
 * Columns kept free after the line for the `^C` a terminal echoes where the
 * cursor is when Ctrl-C is pressed: were it to wrap, the line would sit one
 * row up, out of reach of the clear that follows.
 */
const ECHO_ROOM = 2;

/**
 * The most columns a redrawn line may take: the stream's current width minus
 * one (the last column would wrap on some terminals), minus ECHO_ROOM.
 */
export function lineWidth(stream: { columns?: number }): number {
  const c = stream.columns;
  const columns = typeof c === 'number' && Number.isFinite(c) && c >= 1 ? Math.floor(c) : DEFAULT_COLUMNS;
  return Math.max(0, columns - 1 - ECHO_ROOM);
}

/** The first candidate (plain text, most complete first) that fits in `max` columns, else the last one cut with "…". */
export function fitLine(candidates: readonly string[], max: number): string {
  for (const c of candidates) if (visible(c) <= max) return c;
  return truncate(candidates[candidates.length - 1] ?? '', max);
}

/** Back to the start of the line and clear it to the end. */
export const CLEAR_LINE = '\r\x1b[K';

/** The bytes that redraw the current line: back to its start, the (fitted) text, then clear what is left of the previous frame. */
export function redraw(text: string): string {
  return `\r${text}\x1b[K`;
}
