// JSON columns: each column of the store that holds JSON is declared once, as
// one of the columns below, next to its table, and every writer and reader of
// it goes through that declaration. A column is written from a value of its
// type (for a shape of src/api/shape.ts, `Infer` of it: a member added to the
// shape fails the typecheck where the column is written without it) and read
// through its shape or reader: a member the row lacks (a row written before
// the member was declared) reads as its default, one the shape does not
// declare is dropped. Text that is not JSON, or JSON of another kind, reads as
// the defaults (an object of defaults, an empty list or map): a damaged row
// never crashes the server nor fails a whole listing. (A column with a reader
// of its own may read such text otherwise: a webhook listener's allowed
// ranges read it as a range that admits nobody.)
import { isJsonObject } from '../../lib/json.js';
import type { JWK as JoseJwk } from 'jose';
import { normalize, shapeOf, type Infer } from '../../api/shape.js';

type Shape = Parameters<typeof normalize>[0];

interface JsonColumn<T> {
  /** The column's text for a value. */
  text(value: T): string;
  /** The value as stored, through the column's reader. */
  value(text: string): T;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A column read by `read` from the parsed JSON (undefined when the text is not JSON) and the text: for a type declared elsewhere with its own reader. */
export const jsonColumnOf = <T>(read: (raw: unknown, text: string) => T): JsonColumn<T> => ({
  text: (value) => JSON.stringify(value),
  value: (text) => read(parsed(text), text),
});

/** An object of the shape. */
export const jsonColumn = <S extends Shape>(shape: S): JsonColumn<Infer<S>> => jsonColumnOf((raw) => normalize(shape, raw));

/** A list of objects of the shape (entries that are not objects left out). */
export const jsonListColumn = <S extends Shape>(shape: S): JsonColumn<Infer<S>[]> =>
  jsonColumnOf((raw) => (Array.isArray(raw) ? raw.filter(isJsonObject).map((o) => normalize(shape, o)) : []));

/** A map of names to strings (other values left out). */
export const STRING_MAP: JsonColumn<Record<string, string>> = jsonColumnOf((raw) =>
  Object.fromEntries(Object.entries(isJsonObject(raw) ? raw : {}).filter((e): e is [string, string] => typeof e[1] === 'string')),
);

/** A list of strings (other entries left out). */
export const STRING_LIST: JsonColumn<string[]> = jsonColumnOf((raw) =>
  Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [],
);

/** An object kept as it is: for a value whose members the server passes on without reading them. */
export const JSON_OBJECT: JsonColumn<Record<string, unknown>> = jsonColumnOf((raw) => (isJsonObject(raw) ? raw : {}));

/** A column that may be SQL NULL: null in both directions. */
interface NullableJsonColumn<T> {
  text(value: T | null): string | null;
  value(text: string | null): T | null;
}

export const nullable = <T>(column: JsonColumn<T>): NullableJsonColumn<T> => ({
  text: (value) => (value === null ? null : column.text(value)),
  value: (text) => (text === null ? null : column.value(text)),
});

const jwkMember = { kind: 'string', optional: true } as const;
/** A JSON Web Key (RFC 7517, 7518, 8037) of the kinds the server makes (EC, RSA, OKP), public or private. */
const JWK = shapeOf<JoseJwk>()({
  kty: jwkMember,
  crv: jwkMember,
  x: jwkMember,
  y: jwkMember,
  n: jwkMember,
  e: jwkMember,
  d: jwkMember,
  p: jwkMember,
  q: jwkMember,
  dp: jwkMember,
  dq: jwkMember,
  qi: jwkMember,
  kid: jwkMember,
  alg: jwkMember,
  use: jwkMember,
});

/** A key of the shape JWK (a member it does not declare is dropped). */
export const JWK_COLUMN = jsonColumn(JWK);
