// JSON columns read and written through the wire shape of what they hold
// (src/api/shape.ts): the value written must have the shape's type, so a member
// added to the shape fails the typecheck where the column is written; a row
// written before the member was declared reads it as its default.
import { normalize, type Infer } from '../../api/shape.js';

type Shape = Parameters<typeof normalize>[0];

interface JsonColumn<S extends Shape> {
  /** The column's text for a value of the shape. */
  text(value: Infer<S>): string;
  /** The value as stored, through the shape: members it does not declare dropped, those missing at their defaults. */
  value(text: string): Infer<S>;
}

export const jsonColumn = <S extends Shape>(shape: S): JsonColumn<S> => ({
  text: (value) => JSON.stringify(value),
  value: (text) => normalize(shape, JSON.parse(text) as unknown),
});
