// Text from arguments or servers must not drive the terminal: control
// characters in error messages are shown as visible escapes instead.

import { CONTROL_CHARS } from '../lib/controls.js';

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Replaces every C0 and C1 control character (and DEL) with a visible escape:
 * `\n`, `\r`, `\t`, else `\xHH` (ESC is `\x1b`). Characters in `keep` stay as they are.
 */
export function escapeControls(s: string, keep = ''): string {
  return s.replace(CONTROL_CHARS, (c) => (keep.includes(c) ? c : NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/** JSON.stringify leaves DEL and C1 controls raw; this escapes them too (as \u00HH, still valid JSON, the same value). */
export function safeJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
