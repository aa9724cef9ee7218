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
  /** Milliseconds since the epoch (tables show times relative to it). */
  readonly #now: () => number;

  constructor(io: IO, format: OutputFormat, color: boolean, now: () => number = Date.now) {
    this.io = io;
    this.format = format;
    this.color = color;
    this.#now = now;
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

  /** Prints a JSON document on stdout (or what --jq makes of it); one that nests too deep to print is an error (exit 9). */
  printJson(value: unknown): void {
    checkJsonDepth(value);
    if (!this.#jq) {
      this.io.stdout.write(safeJson(value, 2) + '\n');
      return;
    }
    const { text, error } = this.#jq(value);
    // Strings print raw, as jq -r prints them; on a terminal their control characters (but line breaks and tabs) show as escapes.
    this.io.stdout.write(this.io.isStdoutTTY ? escapeControls(text, '\n\t') : text);
    if (error) throw error;
  }

  /** Prints a line of data on stdout, as it is on a pipe; on a terminal its control characters (but line breaks and tabs) show as escapes. */
  print(line = ''): void {
    this.io.stdout.write((this.io.isStdoutTTY ? escapeControls(line, '\n\t') : line) + '\n');
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

  /**
   * Prints a table on stdout, as kubectl and gh do: a header row (bold on a
   * terminal), columns apart by two spaces, no borders. On a terminal a
   * timestamp (a cell that is an ISO 8601 time) shows as its age ("2h ago"),
   * the table fits its width (free-text columns are cut, then long IDs and
   * URLs wrap, see `fitColumns`; a terminal too narrow even then gets one
   * record per row, its values wrapped) and goes
   * through the pager when longer than the terminal; on a pipe nothing is
   * cut or changed.
   */
  async table(head: string[], rows: Text[][]): Promise<void> {
    const s = await this.styles();
    const tty = this.io.isStdoutTTY;
    const raw = rows.map((r) => r.map((c) => render(c, PLAIN_STYLES)));
    const now = this.#now();
    // Only a styled cell (an object) is rendered again, in colour; the others show their plain text.
    const cells = raw.map((r, i) =>
      r.map((text, j) => {
        const cell = rows[i]![j]!;
        return tty && ISO_TIME.test(text) ? age(text, now) : typeof cell === 'object' ? render(cell, s) : text;
      }),
    );
    const shownHead = head.map((h) => s.bold(h));
    if (!tty) {
      // Piped: every cell whole, nothing measured against a width.
      this.io.stdout.write(plainColumns(shownHead, cells));
      return;
    }
    const columns = this.io.stdout.columns;
    const free = freeText(raw, head.length);
    const widths = fitColumns(head, cells, columns, free);
    const text = widths ? renderColumns(shownHead, cells, widths, free) : records(shownHead, head, cells, columns!);
    const rowsOnScreen = this.io.stdout.rows;
    if (rowsOnScreen && countLines(text) > rowsOnScreen && (await this.#page(text))) return;
    this.io.stdout.write(text);
  }

  /**
   * What a list command prints: with -o json the items (or `json` of them),
   * else `empty` on stderr when there are none, else a table of a `row` an
   * item. True when it drew a table (a command may add a line under it).
   */
  async list<T>(items: readonly T[], how: { json?: (items: readonly T[]) => unknown; empty: Text; head: string[]; row: (item: T) => Text[] }): Promise<boolean> {
    if (this.json) {
      this.printJson(how.json ? how.json(items) : items);
      return false;
    }
    if (items.length === 0) {
      this.info(how.empty);
      return false;
    }
    await this.table(how.head, items.map((item) => how.row(item)));
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

  /** Key/value lines ("Label:  value") on stdout; a value shows as a table cell does, '-' when absent. */
  fields(pairs: [string, Text | undefined | null][]): void {
    // A label can be a server's too (a catalog entry's own members).
    const labels = pairs.map(([k]) => escapeControls(k));
    const width = widest(labels) + 2;
    // Written as rendered: escaped already, and in colour.
    pairs.forEach(([, v], i) => this.io.stdout.write(`${labels[i]}:${' '.repeat(width - visible(labels[i]!) - 1)}${v === undefined || v === null || v === '' ? '-' : render(v, this.style)}\n`));
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

/**
 * Aligned columns, each `widths[j]` wide, two spaces apart, trailing spaces
 * trimmed. A cell wider than its column is cut with "…" in a free-text
 * column (`free[j]`), else wrapped onto continuation lines (nothing lost).
 */
function renderColumns(head: string[], rows: string[][], widths: number[], free: boolean[] = []): string {
  const row = (r: string[]) => {
    const cells = widths.map((w, j) => {
      const c = r[j] ?? '';
      return visible(c) <= w ? [c] : free[j] ? [truncate(c, w)] : slices(c, w);
    });
    const height = Math.max(1, ...cells.map((lines) => lines.length));
    const lines: string[] = [];
    for (let i = 0; i < height; i++) {
      lines.push(
        cells
          .map((c, j) => {
            const shown = c[i] ?? '';
            return shown + ' '.repeat(Math.max(0, widths[j]! - visible(shown)));
          })
          .join(' '.repeat(GAP))
          .trimEnd(),
      );
    }
    return lines.join('\n');
  };
  return [head, ...rows].map(row).join('\n') + '\n';
}

/** `text` in slices of at most `width` columns, the last one shorter (an ID or a URL over lines). */
function slices(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const ch of text) {
    if (line !== '' && visible(line + ch) > width) {
      out.push(line);
      line = '';
    }
    line += ch;
  }
  out.push(line);
  return out;
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
  return rows.map((r) => head.map((h, j) => (shownHead[j] ?? h) + ' '.repeat(width - visible(h)) + shown(r[j] ?? '')).join('\n') + '\n').join('\n');
}

/**
 * Which columns hold free text (a cell has a space: names, conditions,
 * descriptions), the only ones cut; a column that holds a URL is not.
 */
function freeText(rows: string[][], count: number): boolean[] {
  return Array.from({ length: count }, (_, j) => rows.some((r) => /\s/.test(r[j] ?? '')) && !rows.some((r) => /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(r[j] ?? '')));
}

/**
 * Column widths that fit the table into `columns` (all of it when the width
 * is unknown), or undefined when nothing fits it (the caller shows records).
 * Free-text columns give way first (their cells are cut): the widest takes
 * the cut alone down to its header or 10 (whichever is wider), then the next
 * widest. When that is not enough, a last column of long values (a URL) may
 * run past the edge, whole, if its header fits; else the other columns of
 * long values (IDs, URLs) give way, widest first, their cells wrapped onto a
 * second line rather than cut (nothing of them is lost): each down to half
 * its width, its header or LONG_VALUE, whichever is widest.
 */
export function fitColumns(head: string[], rows: string[][], columns: number | undefined, free = freeText(rows, head.length)): number[] | undefined {
  const widths = naturalWidths(head, rows);
  let excess = columns && columns > 0 ? tableWidth(widths) - columns : 0;
  /** The columns `which` picks give way, widest first, each down to `floor(j)`. */
  const giveWay = (which: (j: number) => boolean, floor: (j: number) => number) => {
    const widestFirst = widths.map((_, j) => j).filter(which).sort((a, b) => widths[b]! - widths[a]! || a - b);
    for (const j of widestFirst) {
      if (excess <= 0) break;
      const cut = Math.max(0, Math.min(excess, widths[j]! - floor(j)));
      widths[j]! -= cut;
      excess -= cut;
    }
  };
  const headWidth = (j: number) => visible(head[j]!);
  giveWay((j) => free[j]!, (j) => Math.max(headWidth(j), 10));
  if (excess <= 0) return widths;
  const last = widths.length - 1;
  if (!free[last] && widths[last]! >= LONG_VALUE && excess - widths[last]! + headWidth(last) <= 0) return widths;
  // Wrapped, a long value takes two lines at most; a short one (a number, a time, a flag) never wraps.
  giveWay((j) => !free[j] && widths[j]! > LONG_VALUE, (j) => Math.max(headWidth(j), LONG_VALUE, Math.ceil(widths[j]! / 2)));
  return excess <= 0 ? widths : undefined;
}

/** Columns from which a column of IDs or URLs is long: the last one may run past the terminal's edge, others wrap (down to this width), rather than turn the table into records. */
const LONG_VALUE = 20;

/** A cell that is an ISO 8601 time, as the service writes them ("2026-11-25T07:13:08.295Z"). */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)$/;

/** How long ago `iso` was, as gh says it: "just now", "5m ago", "2h ago", "3d ago"; a future time "in 5m". */
export function age(iso: string, now: number): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const seconds = Math.round((now - ms) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return 'just now';
  const units: [string, number][] = [['y', 365 * 86400], ['mo', 30 * 86400], ['d', 86400], ['h', 3600], ['m', 60]];
  const [unit, size] = units.find(([, size]) => abs >= size)!;
  const n = `${Math.floor(abs / size)}${unit}`;
  return seconds > 0 ? `${n} ago` : `in ${n}`;
}
