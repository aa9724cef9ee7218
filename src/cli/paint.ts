// Whether output is in colour, and the colour of error lines: kept apart from
// io.ts so that an error printed before any command runs loads nothing more.
import type { IO } from './io.js';

/** Colour is on for terminals unless NO_COLOR, --no-color, or TERM=dumb; FORCE_COLOR forces it. */
export function colorEnabled(
  io: Pick<IO, 'isStdoutTTY' | 'isStderrTTY'>,
  env: NodeJS.ProcessEnv,
  flag: boolean | undefined,
  stream: 'stdout' | 'stderr' = 'stdout',
): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  if (env.TERM === 'dumb') return false;
  return stream === 'stdout' ? io.isStdoutTTY : io.isStderrTTY;
}

/**
 * Error lines in colour on a terminal, as the rest of the output is: the
 * `agctl:` that starts an error red, a `hint:` dim (ANSI codes written here,
 * so that an error loads nothing).
 */
export function paintLabels(text: string, on: boolean): string {
  if (!on) return text;
  return text.replace(/^agctl:/gm, '\x1b[31magctl:\x1b[39m').replace(/^hint:/gm, '\x1b[2mhint:\x1b[22m');
}
