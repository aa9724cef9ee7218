// Output: data on stdout (table or JSON), everything else on stderr.
import stringWidth from 'string-width';
import type { IO } from './io.js';
import type { OutputFormat } from '../config/resolve.js';

type Style = (s: string) => string;
interface Styles {
  bold: Style;
  dim: Style;
  green: Style;
  red: Style;
  yellow: Style;
  cyan: Style;
}

const plain: Style = (s) => s;
const PLAIN_STYLES: Styles = { bold: plain, dim: plain, green: plain, red: plain, yellow: plain, cyan: plain };

export class Output {
  readonly format: OutputFormat;
  readonly color: boolean;
  readonly io: IO;
  #styles?: Styles;

  constructor(io: IO, format: OutputFormat, color: boolean) {
    this.io = io;
    this.format = format;
    this.color = color;
  }

  get json(): boolean {
    return this.format === 'json';
  }

  /** chalk styles when colour is on (loaded on first use), identity functions otherwise. */
  async styles(): Promise<Styles> {
    if (this.#styles) return this.#styles;
    if (!this.color) return (this.#styles = PLAIN_STYLES);
    const { Chalk } = await import('chalk');
    const c = new Chalk({ level: 1 });
    return (this.#styles = { bold: c.bold, dim: c.dim, green: c.green, red: c.red, yellow: c.yellow, cyan: c.cyan });
  }

  /** Styles usable synchronously after `styles()` has been awaited once (plain before that). */
  get s(): Styles {
    return this.#styles ?? PLAIN_STYLES;
  }

  /** Prints a JSON document on stdout. */
  printJson(value: unknown): void {
    this.io.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }

  /** Prints a line of data on stdout. */
  print(line = ''): void {
    this.io.stdout.write(line + '\n');
  }

  /** Progress, hints and confirmations go to stderr. */
  info(line: string): void {
    this.io.stderr.write(line + '\n');
  }

  success(line: string): void {
    this.info(`${this.s.green('✓')} ${line}`);
  }

  warn(line: string): void {
    this.info(`${this.s.yellow('!')} ${line}`);
  }

  failure(line: string): void {
    this.info(`${this.s.red('✗')} ${line}`);
  }

  /** Prints a table on stdout: cli-table3 boxes on a terminal, plain aligned columns on a pipe. */
  async table(head: string[], rows: (string | number | boolean)[][]): Promise<void> {
    const s = await this.styles();
    const tty = this.io.isStdoutTTY;
    const cells = rows.map((r) => r.map((c) => String(c)));
    if (!tty) {
      // Piped: plain columns, written directly. cli-table3 would draw the same
      // but measures every cell several times (~0.5 ms per row), which a
      // script listing hundreds of rules would wait for.
      this.io.stdout.write(plainColumns(head.map((h) => s.bold(h)), cells));
      return;
    }
    // The table fits the terminal's width: the widest columns give way, their cells cut with "…".
    const columns = this.io.stdout.columns;
    const colWidths = fitColumns(head, cells, columns);
    if (colWidths && tableWidth(colWidths) > columns!) {
      // Too narrow even for the shortened columns: one record per block, a field a line.
      this.io.stdout.write(records(head.map((h) => s.bold(h)), head, cells, columns!));
      return;
    }
    const { default: Table } = await import('cli-table3');
    const table = new Table({
      ...(colWidths ? { colWidths } : {}),
      head: head.map((h) => s.bold(h)),
      style: { head: [], border: [], compact: true, 'padding-left': 1, 'padding-right': 1 },
    });
    for (const r of cells) table.push(r);
    this.io.stdout.write(table.toString().split('\n').map((l) => l.trimEnd()).join('\n') + '\n');
  }

  /** Key/value lines ("Label:  value") on stdout. */
  fields(pairs: [string, string | number | boolean | undefined | null][]): void {
    const width = Math.max(...pairs.map(([k]) => k.length)) + 2;
    for (const [k, v] of pairs) this.print(`${(k + ':').padEnd(width)}${v === undefined || v === null || v === '' ? '-' : String(v)}`);
  }
}

/** Columns a string takes on a terminal: colour codes none, wide characters two. */
export function visible(s: string): number {
  // Plain ASCII (nearly every cell) needs no look at each character.
  return /^[\x20-\x7e]*$/.test(s) ? s.length : stringWidth(s);
}

/** The text cut to at most `max` columns, ending in "…" when cut (no space before it). */
export function truncate(text: string, max: number): string {
  if (max <= 0) return '';
  if (visible(text) <= max) return text;
  let kept = '';
  for (const ch of text) {
    if (visible(kept + ch) > max - 1) break;
    kept += ch;
  }
  return kept.trimEnd() + '…';
}

/**
 * Aligned columns for a pipe: each column as wide as its widest cell plus two
 * spaces, trailing spaces trimmed (what the bordered table is without borders).
 */
export function plainColumns(head: string[], rows: string[][]): string {
  const all = [head, ...rows];
  const widths = head.map((_, j) => Math.max(...all.map((r) => visible(r[j] ?? ''))) + 2);
  return all.map((r) => widths.map((w, j) => (r[j] ?? '') + ' '.repeat(w - visible(r[j] ?? ''))).join('').trimEnd()).join('\n') + '\n';
}

/** Columns a bordered table with these column widths (padding included) takes. */
function tableWidth(widths: number[]): number {
  return widths.reduce((a, b) => a + b, 0) + widths.length + 1;
}

/**
 * A table as records, for a terminal too narrow for its columns: each row a
 * block of "HEADER  value" lines (headers aligned), blocks apart by a blank
 * line, values cut with "…" to the terminal's width (never below 10).
 */
export function records(shownHead: string[], head: string[], rows: string[][], columns: number): string {
  const width = Math.max(...head.map((h) => visible(h))) + 2;
  const max = Math.max(10, columns - width);
  return rows.map((r) => head.map((h, j) => (shownHead[j] ?? h) + ' '.repeat(width - visible(h)) + truncate(r[j] ?? '', max)).join('\n') + '\n').join('\n');
}

/**
 * Column widths (padding included) that fit a bordered table into `columns`,
 * or undefined when it fits as it is (or the width is unknown). The widest
 * column is narrowed first, never below 10 (a shorter column keeps its
 * width); on a terminal too narrow even then, the widths returned are wider
 * than `columns` and the table is shown as records instead.
 */
export function fitColumns(head: string[], rows: string[][], columns: number | undefined): number[] | undefined {
  if (!columns || columns <= 0) return undefined;
  const widths = head.map((h, j) => Math.max(visible(h), ...rows.map((r) => visible(r[j] ?? ''))) + 2);
  const total = () => tableWidth(widths);
  if (total() <= columns) return undefined;
  // Short columns (IDs, flags) keep their width: only long text (and its header) is cut.
  const floor = widths.map((w) => Math.min(w, 10));
  while (total() > columns) {
    let widest = -1;
    for (let j = 0; j < widths.length; j++) if (widths[j]! > floor[j]! && (widest < 0 || widths[j]! > widths[widest]!)) widest = j;
    if (widest < 0) break;
    widths[widest]!--;
  }
  return widths;
}

/** Quotes a value for a POSIX shell (commands printed for the user to copy). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
