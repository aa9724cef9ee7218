// C0 controls, DEL and C1 controls: characters that no ID holds and that text
// from arguments or servers must not bring to a terminal.

/** Matches one control character (for `test`). */
export const CONTROL_CHAR = /[\u0000-\u001f\u007f-\u009f]/;

/** Matches every control character (for `replace`). */
export const CONTROL_CHARS = new RegExp(CONTROL_CHAR.source, 'g');
