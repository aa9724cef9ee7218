// The -f / -F fields of `agctl api`, after gh's: `key=value`, nested keys as
// `a[b]`, `a[]` (append) and `a[][k]` (fill the last object of an array, or
// start a new one when it already has `k`). -F values are typed.
import { UsageError } from '../../../lib/exit.js';
import { MAX_JSON_DEPTH } from '../../../lib/json-depth.js';
import { isJsonObject, jsonKind } from '../../../lib/json.js';

type FieldValue = string | number | boolean | null | FieldValue[] | { [key: string]: FieldValue };
type FieldObject = { [key: string]: FieldValue };

/** Where an `@` value of -F comes from: `-` for standard input, else a file path. */
export type ReadSource = (source: string, field: string) => Promise<string>;

/** One step of a key: an object member, or `null` for `[]` (an array item). */
type Segment = string | null;

const KEY = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

/** Splits `a[b][]` into ['a', 'b', null]; a usage error naming the flag when it is not of that form. */
export function parseKey(key: string, flag: string): Segment[] {
  const m = KEY.exec(key);
  if (!m) throw new UsageError(`${flag} ${key}: not a field name (use name, name[key] or name[])`);
  const rest = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((s) => (s[1] === '' ? null : s[1]!));
  if (rest.length >= MAX_JSON_DEPTH) throw new UsageError(`${flag} ${key.slice(0, 40)}...: nests deeper than ${MAX_JSON_DEPTH} levels`);
  return [m[1]!, ...rest];
}

/** The typed value of -F: true, false, null, a JSON number, else the text itself (`@` sources are read by the caller). */
export function typedValue(text: string): FieldValue {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(0|[1-9]\d*)$/.test(text)) {
    const n = Number(text);
    // Beyond 2^53 a number would silently change: such IDs stay strings.
    return Number.isSafeInteger(n) ? n : text;
  }
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text) && Number.isFinite(Number(text))) return Number(text);
  return text;
}

/** Sets an own member (a key like __proto__ stays a plain member). */
function setMember(obj: FieldObject, key: string, value: FieldValue): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Puts `value` at `path` under `node`; `field` names the flag for errors. */
function put(node: FieldObject | FieldValue[], path: Segment[], value: FieldValue, field: string): void {
  const [seg, ...rest] = path as [Segment, ...Segment[]];
  const container = (): FieldObject | FieldValue[] => (rest[0] === null ? [] : {});
  if (Array.isArray(node)) {
    if (seg !== null) throw new UsageError(`${field}: [${seg}] names a member of an array (use [] to add an item)`);
    if (rest.length === 0) return void node.push(value);
    const last = node[node.length - 1];
    const next = rest[0];
    // gh's rule: a[][k]=v fills the last object until it already has k.
    if (typeof next === 'string' && isJsonObject(last) && !Object.hasOwn(last, next)) return put(last, rest, value, field);
    const child = container();
    node.push(child);
    return put(child, rest, value, field);
  }
  if (seg === null) throw new UsageError(`${field}: [] adds to an array, but this level is an object`);
  const existing = Object.hasOwn(node, seg) ? node[seg] : undefined;
  if (rest.length === 0) {
    if (existing !== undefined && (Array.isArray(existing) || isJsonObject(existing)))
      throw new UsageError(`${field}: "${seg}" is already ${jsonKind(existing)}`);
    return setMember(node, seg, value);
  }
  let child = existing;
  if (child === undefined) setMember(node, seg, (child = container()));
  const wanted = rest[0] === null ? 'an array' : 'an object';
  if (jsonKind(child) !== wanted) throw new UsageError(`${field}: "${seg}" is already ${jsonKind(child)}, not ${wanted}`);
  put(child as FieldObject | FieldValue[], rest, value, field);
}

/**
 * Builds the fields object from the -f (strings) and -F (typed) flags, in that
 * order. A key given twice keeps its last value; `a[]` alone (no `=`) is an
 * empty array. `-F key=@file` reads the file, `-F key=@-` standard input.
 */
export async function buildFields(raw: readonly string[], typed: readonly string[], read: ReadSource): Promise<FieldObject> {
  const root: FieldObject = {};
  const all = [...raw.map((text) => ({ text, flag: '-f' })), ...typed.map((text) => ({ text, flag: '-F' }))];
  for (const { text, flag } of all) {
    const eq = text.indexOf('=');
    const key = eq < 0 ? text : text.slice(0, eq);
    const path = parseKey(key, flag);
    if (eq < 0) {
      if (path[path.length - 1] !== null) throw new UsageError(`${flag} ${key}: expected key=value`, `an empty array is written ${key}[]`);
      // key[] alone: an empty array at key.
      put(root, path.slice(0, -1), [], `${flag} ${key}`);
      continue;
    }
    const text2 = text.slice(eq + 1);
    const value =
      flag === '-F' && text2.startsWith('@') ? await read(text2.slice(1), `${flag} ${key}`) : flag === '-F' ? typedValue(text2) : text2;
    put(root, path, value, `${flag} ${key}`);
  }
  return root;
}

/**
 * Fields as query parameters, in the service's form (grpc-gateway): nested
 * members as `a.b`, array items repeating the key, null as an empty value.
 */
export function queryPairs(fields: FieldObject): [string, string][] {
  const out: [string, string][] = [];
  const walk = (prefix: string, v: FieldValue): void => {
    if (Array.isArray(v)) v.forEach((item) => walk(prefix, item));
    else if (isJsonObject(v)) for (const [k, item] of Object.entries(v)) walk(`${prefix}.${k}`, item);
    else out.push([prefix, v === null ? '' : String(v)]);
  };
  for (const [k, v] of Object.entries(fields)) walk(k, v);
  return out;
}
