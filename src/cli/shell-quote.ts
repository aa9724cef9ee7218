// Values quoted for a POSIX shell, in the commands agctl prints for the user
// to copy (a resume command, a curl line, the hints of `serve`).
import { CONTROL_CHAR, ESCAPED_CHARS, INVISIBLE_CHAR } from '../lib/controls.js';

/**
 * Quotes a value for a shell (commands printed for the user to copy): as it
 * is when safe, else in single quotes. A value with control characters (a
 * line break too) or invisible ones (bidi controls, zero-width characters,
 * src/lib/controls.ts) is written in ANSI-C quotes, `$'a\nb'`, `$'a\u202eb'`
 * (bash, zsh, ksh; `\x` also busybox sh and POSIX.1-2024), so the command is
 * one line that pastes exactly and cannot drive or reorder the terminal.
 */
export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  if (!CONTROL_CHAR.test(s) && !INVISIBLE_CHAR.test(s)) return `'${s.replace(/'/g, `'\\''`)}'`;
  return `$'${s.replace(/[\\']/g, '\\$&').replace(ESCAPED_CHARS, ansiC)}'`;
}

const ANSI_C_NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };
/** A character in ANSI-C quotes: C0 and DEL as \x, others as \u or \U (a \x byte would not be the character in UTF-8). */
const ansiC = (c: string): string => {
  const code = c.codePointAt(0)!;
  if (ANSI_C_NAMED[c]) return ANSI_C_NAMED[c];
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;
};

/** "U+202E": a character as Unicode names it. */
const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * `words` (a program and its arguments) as one command line to paste, or why
 * there is none: a word (a server's ID, most likely) holds an invisible
 * character. Such a command would paste as something other than it looks:
 * quoted, the character is an escape the reader cannot match against what
 * the server shows; raw, it reorders the line or hides a difference. The
 * reason names the characters (they are never printed).
 */
export function shellCommand(words: readonly string[]): { line: string } | { why: string } {
  const hidden = new Set<string>();
  for (const w of words) for (const c of w.match(new RegExp(INVISIBLE_CHAR.source, 'gu')) ?? []) hidden.add(codePoint(c));
  if (hidden.size === 0) return { line: words.map(shellQuote).join(' ') };
  return {
    why: `a value in it holds ${[...hidden].slice(0, 5).join(', ')}${hidden.size > 5 ? ', …' : ''}, a character that reorders or hides text`,
  };
}
