// JSON values as both sides read them: the one check for "a plain object"
// (not null, not an array) and how a value's kind is named in messages.

/** A JSON object: not null, not an array. */
export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a JSON value is described in messages ("an object", "null", "a number"). */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
