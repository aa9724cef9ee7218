// What a table's columns are, for the declarations (tree/columns.ts) and the
// output alike; imports nothing.

/**
 * A table's columns in display order, each with its rank: 1 is kept longest
 * when the terminal is narrow (names, conditions and states rank before IDs,
 * URLs and timestamps, which `-o wide`, `--columns` or `-o json` show).
 */
export type Columns = readonly (readonly [name: string, rank: number])[];

/** The names of a column set. */
export type ColumnName<C extends Columns> = C[number][0];

/** How a column is named on the command line: `REQUEST POLICY` is `request-policy` (any case, `_` or `-` for the space). */
export const columnKey = (name: string) => name.toLowerCase().replace(/[\s_]+/g, '-');

/** What `--columns` gave: the names picked, in order, or the request to list them. */
export type ColumnPick = string[] | 'help';
