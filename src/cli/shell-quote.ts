// Values quoted for a POSIX shell, in the commands agctl prints for the user
// to copy (a resume command, a curl line, the hints of `serve`).
import { CONTROL_CHAR, CONTROL_CHARS } from '../lib/controls.js';

/**
 * Quotes a value for a shell (commands printed for the user to copy): as it
 * is when safe, else in single quotes. A value with control characters (a
 * line break too) is written in ANSI-C quotes, `$'a\nb'` (bash, zsh, ksh,
 * busybox sh, POSIX.1-2024), so the command is one line that pastes exactly
 * and cannot drive the terminal.
 */
export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  if (!CONTROL_CHAR.test(s)) return `'${s.replace(/'/g, `'\\''`)}'`;
  return `$'${s.replace(/[\\']/g, '\\$&').replace(CONTROL_CHARS, ansiC)}'`;
}

const ANSI_C_NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };
/** A control character in ANSI-C quotes: C1 as \u (a \x byte would not be the character in UTF-8). */
const ansiC = (c: string): string => {
  const code = c.charCodeAt(0);
  return ANSI_C_NAMED[c] ?? (code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
};
