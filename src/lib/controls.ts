// Characters that text from arguments or servers must not bring to a terminal
// or a log as they are.
//
// - Control characters (C0, DEL, C1): they drive the terminal (escape
//   sequences, line breaks, the bell). No ID holds one.
// - Invisible characters: Unicode's format characters (Cf) and
//   default-ignorable code points, and the line and paragraph separators.
//   These reorder the text around them (the bidi controls U+202A-U+202E,
//   U+2066-U+2069, U+200E, U+200F, U+061C: "Trojan Source", CVE-2021-42574)
//   or take no room at all (U+200B-U+200D, U+2060, U+FEFF, U+00AD, U+180E,
//   the tags U+E0000-U+E007F, the variation selectors, the Hangul fillers),
//   so that two different values print alike. An ID may hold one (a tenant
//   chooses its IDs), so they are shown escaped, never refused in arguments.

/** Matches one control character (for `test`): C0, DEL, C1. */
export const CONTROL_CHAR = /[\u0000-\u001f\u007f-\u009f]/;

const INVISIBLE = String.raw`\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029`;

/** Matches one invisible character (for `test`): a format or default-ignorable character, or a line or paragraph separator. */
export const INVISIBLE_CHAR = new RegExp(`[${INVISIBLE}]`, 'u');

/** Matches every character shown escaped (for `replace`): the control and the invisible ones, a code point at a time. */
export const ESCAPED_CHARS = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE}]`, 'gu');

/** Matches every such character that JSON.stringify leaves raw (it escapes C0 itself): DEL, C1, the invisible ones. */
export const RAW_IN_JSON = new RegExp(`[\\u007f-\\u009f${INVISIBLE}]`, 'gu');
