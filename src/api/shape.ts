// Wire shapes declared as a table of members, without the schema library:
// rules (which `rules list` reads on its start-up path, where loading zod
// would cost more than the start-up budget allows), webhook listeners and runs, step-up transactions and catalog
// entries. From one table come
//   - the TypeScript type (`Infer`);
//   - the client's check of an answer (`itemProblem` for an item of a list or
//     a member, `answerProblem` for an answer's envelope): a member left out
//     or null is accepted (proto3 JSON omits empty members) unless `required`,
//     a member present with another type is not;
//   - the server's view (`viewOf`: the declared members in declared order,
//     those left undefined dropped; each must be given, so a forgotten one
//     fails the typecheck) and its request parsing (`parseRequest`);
//   - a received value given its full shape (`normalize`).
// `shapeOf<T>()` declares a table of members of a type declared elsewhere
// (by a zod schema), checked against it: what a client checks of an answer
// that type describes, without loading zod.
// Unknown enum values pass: `values` types the members and checks requests.
import { isJsonObject, jsonKind } from '../lib/json.js';

interface Common {
  /** Must be present (a string: not empty); a check names it missing otherwise. */
  readonly required?: true;
  /** May be left out of the type (a view leaves it out when unset). */
  readonly optional?: true;
  /** May be null in the type; `normalize` reads absent, null and '' as null. */
  readonly nullable?: true;
  /** The request parser's message for a value of another type (default: "<path> must be <type>"). */
  readonly error?: string;
}

type Kind = 'string' | 'number' | 'boolean' | 'strings' | 'unknown' | 'array' | 'object';

/** A member: its kind alone (`'string'`), or its kind with more. */
type Member = Kind | Spec;

type Spec = Common &
  (
    | { readonly kind: 'string'; readonly values?: readonly string[]; readonly default?: string }
    | { readonly kind: 'number' | 'boolean' | 'strings' | 'unknown' }
    /** An array; with `of`, of objects of that shape. */
    | { readonly kind: 'array'; readonly of?: Shape }
    /** An object; with `of`, of that shape (other members are kept by checks, dropped by `normalize`). */
    | { readonly kind: 'object'; readonly of?: Shape }
  );

type Shape = { readonly [name: string]: Member };

type Base<M> = M extends Kind
  ? Base<{ kind: M }>
  : M extends { kind: 'string'; values: readonly (infer V)[] }
    ? V
    : M extends { kind: 'string' }
      ? string
      : M extends { kind: 'number' }
        ? number
        : M extends { kind: 'boolean' }
          ? boolean
          : M extends { kind: 'strings' }
            ? string[]
            : M extends { kind: 'array'; of: infer S extends Shape }
              ? Infer<S>[]
              : M extends { kind: 'array' }
                ? unknown[]
                : M extends { kind: 'object'; of: infer S extends Shape }
                  ? Infer<S>
                  : M extends { kind: 'object' }
                    ? Record<string, unknown>
                    : unknown;
type Value<M> = Base<M> | (M extends { nullable: true } ? null : never);
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The TypeScript type of a shape: its members, those marked `optional` optional. */
export type Infer<S extends Shape> = Flat<
  { -readonly [K in keyof S as S[K] extends { optional: true } ? never : K]: Value<S[K]> } & {
    -readonly [K in keyof S as S[K] extends { optional: true } ? K : never]?: Value<S[K]>;
  }
>;

type KindOf<M> = M extends Kind ? M : M extends { kind: infer K } ? K : never;
type Element<T> = T extends readonly (infer E)[] ? E : T;

/**
 * The members shape `S` declares that type `T` lacks or types otherwise
 * (members of `of` too, as "a.b"); never when there are none.
 */
type Unmatched<S extends Shape, T> = {
  [K in keyof S & string]: K extends keyof T
    ? NonNullable<T[K]> extends Base<{ kind: KindOf<S[K]> }>
      ? S[K] extends { of: infer O extends Shape }
        ? `${K}.${Unmatched<O, NonNullable<Element<NonNullable<T[K]>>>>}`
        : never
      : K
    : K;
}[keyof S & string];

/** The answer of a list route: a page of items and the token of the next page ('' on the last). */
export interface ListPage<T> {
  list: T[];
  nextPageToken: string;
}

/** Declares a shape (checked as one, its literal types kept for `Infer`). */
export const shape = <const S extends Shape>(s: S): S => s;

/**
 * Declares a shape of some members of type `T` (a type the schema library
 * declares): a member `T` lacks, or has with another type, fails the
 * typecheck. Used for what a client checks without loading that library.
 */
export const shapeOf =
  <T>() =>
  <const S extends Shape>(
    s: S & ([Unmatched<S, T>] extends [never] ? unknown : { [K in `not a member of the type: ${Unmatched<S, T>}`]: never }),
  ): S =>
    s;

/** What a member's type is called in messages. */
const EXPECTED: Record<Kind, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  strings: 'an array of strings',
  unknown: 'a value',
  array: 'an array',
  object: 'an object',
};

function hasKind(m: Spec, v: unknown): boolean {
  switch (m.kind) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isJsonObject(v);
    case 'unknown':
      return true;
  }
}

/** The first member of `obj` that is not as declared: where, what it holds, and whether it counts as missing (a required member absent, of another type, or ''). */
interface Bad {
  path: string;
  value: unknown;
  expected: string;
  missing: boolean;
}

/** A member with its kind alone, as a spec. */
const spec = (m: Member): Spec => (typeof m === 'string' ? { kind: m } : m);

/** A shape's members as specs, made once per shape (answers are checked item by item). */
const specsOf = new WeakMap<Shape, [string, Spec][]>();
function members(s: Shape): [string, Spec][] {
  let list = specsOf.get(s);
  if (!list) specsOf.set(s, (list = Object.entries(s).map(([name, m]) => [name, spec(m)])));
  return list;
}

function firstBad(s: Shape, obj: Record<string, unknown>, prefix: string): Bad | undefined {
  for (const [name, m] of members(s)) {
    const v = obj[name];
    if (v === undefined || v === null) {
      if (m.required) return { path: prefix + name, value: v, expected: EXPECTED[m.kind], missing: true };
      continue;
    }
    if (!hasKind(m, v) || (m.required && v === ''))
      return { path: prefix + name, value: v, expected: EXPECTED[m.kind], missing: m.required === true };
    const path = prefix + name;
    if (m.kind === 'object' && m.of) {
      const bad = firstBad(m.of, v as Record<string, unknown>, `${path}.`);
      if (bad) return bad;
    } else if (m.kind === 'array' && m.of) {
      for (const [i, item] of (v as unknown[]).entries()) {
        if (!isJsonObject(item)) return { path: `${path}[${i}]`, value: item, expected: 'an object', missing: false };
        const bad = firstBad(m.of, item, `${path}[${i}].`);
        if (bad) return bad;
      }
    }
  }
  return undefined;
}

/**
 * What is wrong with `v` as an item of shape `s` ("is a string, expected a
 * rule", "has no \"id\"", "has \"priority\" as a string, expected a number"),
 * or undefined.
 */
export function itemProblem(s: Shape, v: unknown, what: string): string | undefined {
  if (!isJsonObject(v)) return `is ${v === undefined ? 'missing' : jsonKind(v)}, expected ${what}`;
  const bad = firstBad(s, v, '');
  if (!bad) return undefined;
  return bad.missing ? `has no "${bad.path}"` : `has "${bad.path}" as ${jsonKind(bad.value)}, expected ${bad.expected}`;
}

/** What is wrong with an answer's body of shape `s` ("\"total\" is a string, expected a number"), or undefined. */
export function answerProblem(s: Shape, body: Record<string, unknown>): string | undefined {
  const bad = firstBad(s, body, '');
  return bad && `"${bad.path}" is ${bad.value === undefined ? 'missing' : jsonKind(bad.value)}, expected ${bad.expected}`;
}

/** A value for `viewOf`: every member the shape declares, one it may leave out given as undefined (so a forgotten member fails the typecheck). */
type ViewValue<S extends Shape> = { [K in keyof Required<Infer<S>>]: Infer<S>[K] | undefined };

/** The view of `value` as shape `s`: its declared members in declared order, those left undefined dropped. */
export function viewOf<S extends Shape>(s: S, value: ViewValue<S>): Infer<S> {
  const v = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(s)) if (v[name] !== undefined) out[name] = v[name];
  return out as Infer<S>;
}

/**
 * Reads a request body as shape `s`: the body must be an object, each member
 * present and not null must have its type (and one of its `values`); a
 * required one must be there. Throws `fail(message)` for the first that does
 * not; returns the body, typed (members left out or null are undefined).
 */
export function parseRequest<S extends Shape>(s: S, body: unknown, fail: (message: string) => Error): Partial<Infer<S>> {
  if (!isJsonObject(body)) throw fail('request body must be a JSON object');
  checkRequest(s, body, '', fail);
  return body as Partial<Infer<S>>;
}

function checkRequest(s: Shape, body: Record<string, unknown>, prefix: string, fail: (message: string) => Error): void {
  for (const [name, m] of members(s)) {
    const v = body[name];
    const path = prefix + name;
    const wrong = () => fail(m.error ?? `${path} must be ${EXPECTED[m.kind]}`);
    if (v === undefined || v === null) {
      if (m.required) throw wrong();
      continue;
    }
    // An optional enum left empty is unset (proto3 JSON); a required one must be one of its values.
    if (!hasKind(m, v) || (m.kind === 'string' && m.values && !(v === '' && !m.required) && !m.values.includes(v as string))) throw wrong();
    if (m.kind === 'object' && m.of) checkRequest(m.of, v as Record<string, unknown>, `${path}.`, fail);
  }
}

/**
 * Gives a received value (checked by `itemProblem`) the full shape: every
 * member present, a member left out or null read as its default ('', or the
 * string's `default`; 0; false; []; null where `nullable`, which reads '' as
 * null too), an optional object member left out unless it is an object.
 * Objects with `of` keep only their declared members.
 */
export function normalize<S extends Shape>(s: S, raw: unknown): Infer<S> {
  const obj = isJsonObject(raw) ? raw : {};
  const out: Record<string, unknown> = {};
  for (const [name, m] of members(s)) {
    const v = obj[name];
    const unset = v === undefined || v === null || (m.nullable && v === '');
    if (m.kind === 'object' || (m.kind === 'array' && m.of)) {
      if (!hasKind(m, v)) {
        if (m.nullable) out[name] = null;
        else if (!m.optional) out[name] = m.kind === 'array' ? [] : m.of ? normalize(m.of, {}) : {};
        continue;
      }
      out[name] = !m.of
        ? v
        : m.kind === 'array'
          ? (v as unknown[]).filter(isJsonObject).map((x) => normalize(m.of!, x))
          : normalize(m.of, v);
    } else if (unset || !hasKind(m, v)) {
      if (m.nullable) out[name] = null;
      else if (!m.optional) out[name] = DEFAULTS[m.kind](m);
    } else out[name] = v;
  }
  return out as Infer<S>;
}

const DEFAULTS: Record<Exclude<Kind, 'object'>, (m: Spec) => unknown> = {
  string: (m) => (m.kind === 'string' && m.default) || '',
  number: () => 0,
  boolean: () => false,
  strings: () => [],
  array: () => [],
  unknown: () => null,
};
