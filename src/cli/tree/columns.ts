// The columns of a list or get command, declared once with the command: the
// table's header and order, each column's rank (which columns a narrow
// terminal keeps), what --columns accepts and completes, and what
// `--columns help` lists. Imports commander only (declarations may use it).
import { InvalidArgumentError } from 'commander';
import { Option, completeWith } from '../declare.js';
import { columnKey, type ColumnPick, type Columns } from '../columns.js';

const declared = new WeakMap<object, readonly string[]>();

/** The names a `--columns` option declared with `columnsOption` accepts (undefined: any, read at run time). */
export const declaredColumns = (option: object): readonly string[] | undefined => declared.get(option);

/**
 * `--columns <names>`: which columns to show, in that order (comma-separated),
 * or `help` to list them. With a column set (list commands) the names are
 * checked and completed here; without one (get commands, whose fields depend
 * on the answer) they are checked against the fields printed.
 */
export function columnsOption(columns?: Columns) {
  const names = columns?.map(([name]) => name);
  const option = new Option('--columns <names>', 'columns to show, in this order (comma-separated; "help" lists them)').argParser(
    (v: string): ColumnPick => {
      const picked = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (picked.length === 1 && picked[0]!.toLowerCase() === 'help') return 'help';
      if (picked.length === 0) throw new InvalidArgumentError('name at least one column (--columns help lists them)');
      if (!names) return picked;
      return picked.map((p) => {
        const name = names.find((n) => columnKey(n) === columnKey(p));
        if (!name) throw new InvalidArgumentError(`no column "${p}"; the columns are ${names.map(columnKey).join(', ')}`);
        return name;
      });
    },
  );
  if (names) {
    declared.set(option, names);
    completeWith(option, [...names.map(columnKey), 'help']);
  }
  return option;
}
