// Output: data on stdout (table or JSON), everything else on stderr.
import type { StdioOptions } from 'node:child_process';
import type { Writable } from 'node:stream';
import stringWidth from 'string-width';
import { checkJsonDepth } from '../lib/json-depth.js';
import { isJsonObject } from '../lib/json.js';
import { escapeControls, safeJson } from './escape.js';
import type { IO } from './io.js';
import type { JqFilter } from './jq.js';
import type { OutputFormat } from '../config/resolve.js';
import { UsageError } from '../lib/exit.js';
import { columnKey, type ColumnName, type ColumnPick, type Columns } from './columns.js';

type Style = (s: string) => string;
interface Styles {
  bold: Style;
  dim: Style;
  green: Style;
  red: Style;
  yellow: Style;
  cyan: Style;
}

/**
 * What a table cell or a field shows: text (mostly the server's), text in one
 * of the styles (colour on a terminal), or parts of these in a row. Printed,
 * its control characters show as escapes and never drive the terminal; the
 * styles go on after that.
 */
export type Text = string | number | boolean | StyledText | readonly Text[];
interface StyledText {
  text: string;
  style: keyof Styles;
}
export const styled = (text: string, style: keyof Styles): StyledText => ({ text, style });

const isParts = (t: Text): t is readonly Text[] => Array.isArray(t);
const isStyled = (t: unknown): t is StyledText => isJsonObject(t) && typeof t.style === 'string' && Object.hasOwn(PLAIN_STYLES, t.style);

/** `t` as printed: escaped, styled parts in their style; anything else a server may have sent (null, an object) as String() gives it. */
function render(t: Text, s: Styles): string {
  if (isParts(t)) return t.map((part) => render(part, s)).join('');
  if (isStyled(t)) return s[t.style](escapeControls(String(t.text)));
  return escapeControls(String(t));
}

const plain: Style = (s) => s;
const PLAIN_STYLES: Styles = { bold: plain, dim: plain, green: plain, red: plain, yellow: plain, cyan: plain };

export class Output {
  readonly format: OutputFormat;
  readonly color: boolean;
  readonly io: IO;
  #styles?: Styles;
  #jq?: JqFilter;
  #pager?: { command: string; env: NodeJS.ProcessEnv };
  #pick?: ColumnPick;
  #yaml?: (value: unknown) => string;
  /** Milliseconds since the epoch (tables show times relative to it). */
  readonly #now: () => number;

  constructor(io: IO, format: OutputFormat, color: boolean, now: () => number = Date.now) {
    this.io = io;
    this.format = format;
    this.color = color;
    this.#now = now;
  }

  /** Whether the command prints its answer as a document (-o json or -o yaml) rather than a table or fields. */
  get json(): boolean {
    return this.format === 'json' || this.format === 'yaml';
  }

  /**
   * The columns `--columns` picked, in order, for the table or the fields
   * printed next (the runner sets them before the command runs).
   */
  pickColumns(names: ColumnPick | undefined): void {
    this.#pick = names;
  }

  /** Whether `--columns` chose what to print (a get command then prints its chosen fields and nothing more). */
  get picked(): boolean {
    return this.#pick !== undefined;
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
  get style(): Styles {
    return this.#styles ?? PLAIN_STYLES;
  }

  /**
   * Runs --jq on every JSON document printed from now on (loads jq, and
   * refuses an expression that does not compile, before the command runs);
   * `$ENV` and `env` in it read `env`.
   */
  async useJq(expression: string, env: NodeJS.ProcessEnv): Promise<void> {
    const { loadJqFilter } = await import('./jq.js');
    this.#jq = await loadJqFilter(expression, env);
  }

  /** Pages long tables on a terminal through this shell command (AGCTL_PAGER or PAGER). */
  usePager(command: string | undefined, env: NodeJS.ProcessEnv): void {
    this.#pager = command ? { command, env } : undefined;
  }

  /**
   * Loads the YAML writer when the format is yaml (js-yaml, only then), so
   * that `printJson` can stay synchronous.
   */
  async useYaml(): Promise<void> {
    if (this.format !== 'yaml' || this.#yaml) return;
    const { dump } = await import('js-yaml');
    // noRefs: a value that repeats is written again, not as an anchor; strings stay strings (quoted where YAML would read them otherwise).
    this.#yaml = (value) => dump(value, { noRefs: true, lineWidth: -1 });
  }

  /**
   * Prints a JSON document on stdout (as YAML with -o yaml, or what --jq
   * makes of it); one that nests too deep to print is an error (exit 9).
   */
  printJson(value: unknown): void {
    checkJsonDepth(value);
    if (this.#yaml) {
      // js-yaml escapes C0 controls in strings it quotes; on a terminal what is left (bidi, C1) shows as escapes too.
      this.#writeData(this.#yaml(JSON.parse(JSON.stringify(value) ?? 'null')));
      return;
    }
    if (!this.#jq) {
      this.io.stdout.write(safeJson(value, 2) + '\n');
      return;
    }
    const { text, error } = this.#jq(value);
    // Strings print raw, as jq -r prints them; on a terminal their control characters (but line breaks and tabs) show as escapes.
    this.#writeData(text);
    if (error) throw error;
  }

  /** Prints a line of data on stdout, as it is on a pipe; on a terminal its control characters (but line breaks and tabs) show as escapes. */
  print(line = ''): void {
    this.#writeData(line + '\n');
  }

  /**
   * Prints a line on stdout as a table cell shows: text, `styled(...)` text or
   * parts of these, its control characters as escapes (on a pipe too), the
   * styles on after that.
   */
  printText(line: Text): void {
    this.io.stdout.write(render(line, this.style) + '\n');
  }

  /** Writes data on stdout, as it is on a pipe; on a terminal its control characters (but line breaks and tabs) show as escapes. */
  #writeData(text: string): void {
    this.io.stdout.write(this.io.isStdoutTTY ? escapeControls(text, '\n\t') : text);
  }

  /**
   * A line of progress, a hint or a confirmation, on stderr. Like a table
   * cell it is text, `styled(...)` text or parts of these: its control
   * characters (line breaks too: one call, one line) show as escapes, so
   * pass server text as it is; the styles go on after that.
   */
  info(line: Text): void {
    this.io.stderr.write(render(line, this.style) + '\n');
  }

  success(line: Text): void {
    this.info([styled('✓', 'green'), ' ', line]);
  }

  warn(line: Text): void {
    this.info([styled('!', 'yellow'), ' ', line]);
  }

  failure(line: Text): void {
    this.info([styled('✗', 'red'), ' ', line]);
  }

  /** A `hint:` line on stderr, as every hint is written. */
  hint(line: Text): void {
    this.info([styled('hint:', 'dim'), ' ', line]);
  }

  /**
   * Prints a table on stdout, as kubectl and gh do: a header row (bold on a
   * terminal), columns apart by two spaces, no borders. `head` is the columns
   * in display order with their ranks (plain names rank by position). On a
   * terminal a timestamp (a cell that is an ISO 8601 time) shows as its age
   * ("2h ago") and the table fits its width by one rule for every list
   * (`fitTable`): free-text columns are cut with "…", then the lowest-ranked
   * columns are left out (a hint names them), a row never wraps; a terminal
   * narrower than RECORDS_BELOW gets one record per row. It goes through the
   * pager when longer than the terminal. On a pipe and with `-o wide` every
   * column is shown whole. `--columns` (see `pickColumns`) chooses and orders
   * the columns first.
   */
  async table(head: Columns | readonly string[], rows: Text[][]): Promise<void> {
    const s = await this.styles();
    const tty = this.io.isStdoutTTY;
    let columns: Columns = head.map((h, j) => (typeof h === 'string' ? ([h, j + 1] as const) : h));
    let picked = columns.map((_, j) => j);
    if (Array.isArray(this.#pick)) {
      picked = this.#pick.map((name) => columns.findIndex(([n]) => n === name)).filter((j) => j >= 0);
      columns = picked.map((j) => [columns[j]![0], 1] as const);
    }
    const names = columns.map(([name]) => name);
    const raw = rows.map((r) => picked.map((j) => render(r[j] ?? '', PLAIN_STYLES)));
    const now = this.#now();
    // Only a styled cell (an object) is rendered again, in colour; the others show their plain text.
    const cells = raw.map((r, i) =>
      r.map((text, k) => {
        const cell = rows[i]![picked[k]!]!;
        return tty && ISO_TIME.test(text) ? age(text, now) : typeof cell === 'object' ? render(cell, s) : text;
      }),
    );
    const shownHead = names.map((h) => s.bold(h));
    if (!tty || this.format === 'wide') {
      // Piped, or -o wide: every cell whole, nothing measured against a width.
      this.io.stdout.write(plainColumns(shownHead, cells));
      return;
    }
    const width = this.io.stdout.columns;
    const fit = fitTable(columns, cells, width);
    let text: string;
    if (fit) {
      const { keep, widths } = fit;
      text = renderColumns(
        keep.map((j) => shownHead[j]!),
        cells.map((r) => keep.map((j) => r[j]!)),
        widths,
      );
    } else text = records(shownHead, names, cells, width!);
    const rowsOnScreen = this.io.stdout.rows;
    if (!(rowsOnScreen && countLines(text) > rowsOnScreen && (await this.#page(text)))) this.io.stdout.write(text);
    const left = fit ? names.filter((_, j) => !fit.keep.includes(j)) : [];
    if (left.length) this.hint(`${left.join(', ')} left out to fit ${width} columns (-o wide shows them)`);
  }

  /**
   * What a list command prints: with -o json or yaml the items (or `json` of
   * them), else `empty` on stderr when there are none, else a table of a
   * `row` an item, in its declared `columns`. True when it drew a table (a
   * command may add a note under it, on stderr).
   */
  async list<T, C extends Columns>(
    items: readonly T[],
    how: { json?: (items: readonly T[]) => unknown; empty: Text; columns: C; row: (item: T) => Record<ColumnName<C>, Text> },
  ): Promise<boolean> {
    if (this.json) {
      this.printJson(how.json ? how.json(items) : items);
      return false;
    }
    if (items.length === 0) {
      this.info(how.empty);
      return false;
    }
    const names: ColumnName<C>[] = how.columns.map(([name]) => name);
    await this.table(
      how.columns,
      items.map((item) => {
        const row = how.row(item);
        return names.map((n) => row[n]);
      }),
    );
    return true;
  }

  /**
   * Writes `text` through the pager, as git and gh run it: a shell command,
   * `LESS=FRX` unless LESS is set. False when there is no pager or it could
   * not start (the shell found no such command): the caller prints directly.
   */
  async #page(text: string): Promise<boolean> {
    if (!this.#pager) return false;
    const { command, env } = this.#pager;
    const { spawn } = await import('node:child_process');
    // The pager writes to the terminal itself; a stream without a descriptor (tests) gets its output piped.
    const target = (stream: Writable) => (typeof (stream as { fd?: unknown }).fd === 'number' ? stream : 'pipe');
    const stdio: StdioOptions = ['pipe', target(this.io.stdout), target(this.io.stderr)];
    return new Promise((resolve) => {
      // Ctrl-C belongs to the pager (less ignores it) while it runs.
      const stop = this.io.onInterrupt(() => {});
      const done = (shown: boolean) => {
        stop();
        resolve(shown);
      };
      try {
        const child = spawn(command, { shell: true, env: { ...env, LESS: env.LESS ?? 'FRX' }, stdio });
        child.stdout?.pipe(this.io.stdout, { end: false });
        child.stderr?.pipe(this.io.stderr, { end: false });
        // The reader quitting before the end (q in less) is no error.
        child.stdin!.on('error', () => {});
        child.on('error', () => done(false));
        // 126 and 127: the shell could not run the command.
        child.on('close', (code) => done(code !== 126 && code !== 127));
        child.stdin!.end(text);
      } catch {
        done(false);
      }
    });
  }

  /**
   * Key/value lines ("Label:  value") on stdout; a value shows as a table
   * cell does, '-' when absent. With `--columns`, the fields named (by their
   * label, as `columnKey` spells it) in that order; a name no field has is
   * an error that lists the fields.
   */
  fields(pairs: [string, Text | undefined | null][]): void {
    if (this.#pick === 'help') {
      // A get command's fields depend on the answer: they are listed from it.
      for (const [label] of pairs) this.print(columnKey(label));
      return;
    }
    if (this.#pick) {
      const byKey = new Map(pairs.map((p) => [columnKey(p[0]), p] as const));
      const missing = this.#pick.filter((name) => !byKey.has(columnKey(name)));
      if (missing.length)
        throw new UsageError(
          `--columns: no field ${missing.map((m) => `"${m}"`).join(', ')} here`,
          `the fields are ${[...byKey.keys()].join(', ')}`,
        );
      pairs = this.#pick.map((name) => byKey.get(columnKey(name))!);
    }
    // A label can be a server's too (a catalog entry's own members).
    const labels = pairs.map(([k]) => escapeControls(k));
    const width = widest(labels) + 2;
    // Written as rendered: escaped already, and in colour.
    pairs.forEach(([, v], i) =>
      this.io.stdout.write(
        `${labels[i]}:${' '.repeat(width - visible(labels[i]!) - 1)}${v === undefined || v === null || v === '' ? '-' : render(v, this.style)}\n`,
      ),
    );
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
  // Plain ASCII (nearly every cell): a character a column.
  if (/^[\x20-\x7e]*$/.test(text)) return text.slice(0, max - 1).trimEnd() + '…';
  let kept = '';
  for (const ch of text) {
    if (visible(kept + ch) > max - 1) break;
    kept += ch;
  }
  return kept.trimEnd() + '…';
}

/** Spaces between two columns. */
const GAP = 2;

/** Lines of text (ending in a line break). */
const countLines = (text: string) => text.split('\n').length - 1;

/** Aligned columns, each `widths[j]` wide, two spaces apart, trailing spaces trimmed; a cell wider than its column is cut with "…". */
function renderColumns(head: string[], rows: string[][], widths: number[]): string {
  const row = (r: string[]) =>
    widths
      .map((w, j) => {
        const c = r[j] ?? '';
        const shown = visible(c) <= w ? c : truncate(c, w);
        return shown + ' '.repeat(Math.max(0, w - visible(shown)));
      })
      .join(' '.repeat(GAP))
      .trimEnd();
  return [head, ...rows].map(row).join('\n') + '\n';
}

/**
 * `text` in lines of at most `width` columns, broken at spaces; a word longer
 * than `width` is left whole on a line of its own (for the terminal to wrap,
 * so that it can be copied).
 */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const joined = line === '' ? word : `${line} ${word}`;
    if (visible(joined) <= width) line = joined;
    else {
      if (line !== '') lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  return lines;
}

/** Aligned columns as wide as their widest cell (a piped table: nothing cut). */
export function plainColumns(head: string[], rows: string[][]): string {
  return renderColumns(head, rows, naturalWidths(head, rows));
}

function naturalWidths(head: string[], rows: string[][]): number[] {
  const widths = head.map((h) => visible(h));
  for (const r of rows) head.forEach((_, j) => (widths[j] = Math.max(widths[j]!, visible(r[j] ?? ''))));
  return widths;
}

/** The visible width of the widest text (a loop: `Math.max(...list)` overflows the stack on a long list). */
function widest(texts: readonly string[]): number {
  let max = 0;
  for (const t of texts) max = Math.max(max, visible(t));
  return max;
}

const tableWidth = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);

/**
 * A table as records, for a terminal too narrow for its columns: each row a
 * block of "HEADER  value" lines (headers aligned), blocks apart by a blank
 * line. A value longer than the terminal's width (less the headers', never
 * below 10) wraps onto continuation lines under it, at spaces; a single word
 * longer than that (an ID, a URL) stays whole, for the terminal to wrap, so
 * that it can be copied.
 */
function records(shownHead: string[], head: string[], rows: string[][], columns: number): string {
  const width = widest(head) + 2;
  const room = Math.max(10, columns - width);
  const indent = ' '.repeat(width);
  const shown = (value: string) => (visible(value) <= room ? value : wrap(value, room).join(`\n${indent}`));
  return rows
    .map((r) => head.map((h, j) => (shownHead[j] ?? h) + ' '.repeat(width - visible(h)) + shown(r[j] ?? '')).join('\n') + '\n')
    .join('\n');
}

/**
 * Which columns hold free text, the only ones cut: a cell has a space (names,
 * conditions, descriptions) or is wider than the terminal (a name with no
 * space as long as that, say from a tenant, is cut all the same, not left to
 * push the other columns out; an ID, shorter, is never cut). A column that
 * holds a URL is not.
 */
function freeText(rows: string[][], count: number, width: number): boolean[] {
  return Array.from(
    { length: count },
    (_, j) =>
      rows.some((r) => /\s/.test(r[j] ?? '') || visible(r[j] ?? '') > width) &&
      !rows.some((r) => /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(r[j] ?? '')),
  );
}

/** Below this terminal width every list prints one record per row instead of a table. */
export const RECORDS_BELOW = 40;

/** The share of the terminal a free-text column keeps before low-ranked columns are left out (step 2 of fitTable), and its least width. */
const FREE_TEXT_SHARE = 0.4;
const FREE_TEXT_FLOOR = 12;

/**
 * How a table fits `width` columns of terminal (all of it when the width is
 * unknown), the one rule for every list: `keep`, the columns shown (indexes,
 * in display order), and their widths; undefined below RECORDS_BELOW (the
 * caller prints records).
 * 1. Every column at its widest cell, if the table fits.
 * 2. Else free-text columns (names, conditions) are cut with "…", widest
 *    first, each down to a readable share of the terminal (FREE_TEXT_SHARE,
 *    at least its header and FREE_TEXT_FLOOR); IDs, URLs, times and numbers are never cut (a cut
 *    ID is of no use).
 * 3. Else the lowest-ranked column is left out and 2 is tried again, until
 *    the table fits: low-ranked columns go before high-ranked text is cut
 *    short. The top-ranked column always stays (cut to the width if it must
 *    be). A row never wraps.
 */
export function fitTable(columns: Columns, rows: string[][], width: number | undefined): { keep: number[]; widths: number[] } | undefined {
  const natural = naturalWidths(
    columns.map(([name]) => name),
    rows,
  );
  const all = natural.map((_, j) => j);
  if (!width || width <= 0) return { keep: all, widths: natural };
  if (width < RECORDS_BELOW) return undefined;
  const floor = Math.max(FREE_TEXT_FLOOR, Math.floor(width * FREE_TEXT_SHARE));
  const free = freeText(rows, columns.length, width);
  // Lowest rank last; on a tie the column further right goes first.
  const byRank = [...all].sort((a, b) => columns[a]![1] - columns[b]![1] || a - b);
  /** The widths of the top `shown` columns with free text cut down to `floor` at most, or undefined when they do not fit. */
  const attempt = (shown: number) => {
    const keep = all.filter((j) => byRank.indexOf(j) < shown);
    const widths = keep.map((j) => natural[j]!);
    let excess = tableWidth(widths) - width;
    const widestFirst = keep
      .map((_, k) => k)
      .filter((k) => free[keep[k]!])
      .sort((a, b) => widths[b]! - widths[a]! || a - b);
    for (const k of widestFirst) {
      if (excess <= 0) break;
      const cut = Math.max(0, Math.min(excess, widths[k]! - Math.max(visible(columns[keep[k]!]![0]), floor)));
      widths[k]! -= cut;
      excess -= cut;
    }
    return excess <= 0 ? { keep, widths } : undefined;
  };
  for (let shown = byRank.length; shown >= 1; shown--) {
    const fit = attempt(shown);
    if (fit) return fit;
  }
  const top = byRank[0]!;
  return { keep: [top], widths: [Math.min(natural[top]!, width)] };
}

/** A cell that is an ISO 8601 time, as the service writes them ("2026-11-25T07:13:08.295Z"). */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)$/;

/** How long ago `iso` was, as gh says it: "just now", "5m ago", "2h ago", "3d ago"; a future time "in 5m". */
export function age(iso: string, now: number): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const seconds = Math.round((now - ms) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return 'just now';
  const units: [string, number][] = [
    ['y', 365 * 86400],
    ['mo', 30 * 86400],
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ];
  const [unit, size] = units.find(([, size]) => abs >= size)!;
  const n = `${Math.floor(abs / size)}${unit}`;
  return seconds > 0 ? `${n} ago` : `in ${n}`;
}
