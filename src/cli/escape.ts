// The one place where text from arguments or servers is made safe to show:
// control characters (they drive the terminal) and invisible ones (they
// reorder or hide text, src/lib/controls.ts) are written as visible escapes.

import { ESCAPED_CHARS, RAW_IN_JSON } from '../lib/controls.js';

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A character as a visible escape: `\n`, `\r`, `\t`, else `\xHH` (ESC is `\x1b`), `\uHHHH` (U+202E is `\u202e`), or `\u{HHHHH}`. */
function visibleEscape(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * Replaces every control character (C0, DEL, C1) and every invisible one
 * (bidi controls, zero-width and other format characters, default-ignorable
 * code points, line and paragraph separators) with a visible escape, so that
 * text shows as what it is: `\n`, `\r`, `\t`, `\x1b`, `\u202e`, `\u{e0041}`.
 * Characters in `keep` (line breaks and tabs, where a text may hold them) stay
 * as they are.
 */
export function escapeControls(s: string, keep = ''): string {
  return s.replace(ESCAPED_CHARS, (c) => (keep.includes(c) ? c : visibleEscape(c)));
}

/** A UTF-16 code unit as a JSON escape. */
const jsonEscape = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`;

/**
 * JSON text of `value` in which the characters escapeControls escapes are
 * JSON escapes (`\u202e`; a character beyond U+FFFF as its two `\uHHHH`
 * halves): still valid JSON and the same value, but nothing in it drives or
 * reorders a terminal. (JSON.stringify escapes C0 itself; DEL, C1 and the
 * invisible characters it leaves raw.)
 */
export function safeJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(RAW_IN_JSON, (c) => {
    let out = '';
    for (let i = 0; i < c.length; i++) out += jsonEscape(c.charCodeAt(i));
    return out;
  });
}
