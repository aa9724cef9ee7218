// Help text within 80 columns: a declaration's prose and examples, and the topics' paragraphs.

/** The help text after the flags: prose, then examples (each line shown after `$ `), within 80 columns. */
export function helpText(prose: string, examples: readonly string[]): string {
  const text = prose
    ? `\n${prose
        .trim()
        .split('\n')
        .flatMap((l) => fill(l.split(' '), HELP_WIDTH, ''))
        .join('\n')}\n`
    : '';
  return `${text}\nExamples:\n${examples.map((e) => `  $ ${e.split('\n').map(wrapCommand).join('\n')}`).join('\n')}`;
}

/** Help pages fit this many columns (as gh's). */
const HELP_WIDTH = 80;

/** Indentation of an example's continuation lines (under its command, after "  $ "). */
const CONTINUED = '      ';

/**
 * One line of an example command, broken with ` \` before its flags where it
 * would pass 80 columns (still a command to paste): a flag and its value stay
 * together, nothing inside quotes is split.
 */
function wrapCommand(line: string): string {
  const ending = line.endsWith(' \\') ? ' \\' : '';
  const body = ending ? line.slice(0, -ending.length) : line;
  const indent = /^ */.exec(body)![0];
  // The first line follows "  $ " (4 columns), continuation lines come as they are.
  if ((indent ? 0 : 4) + line.length <= HELP_WIDTH) return line;
  // Words, spaces inside quotes kept; then groups that start at each flag.
  const words = body.slice(indent.length).match(/(?:'[^']*'|"[^"]*"|\S)+/g) ?? [];
  const groups: string[] = [];
  for (const w of words) {
    if (groups.length === 0 || w.startsWith('-')) groups.push(w);
    else groups[groups.length - 1] += ` ${w}`;
  }
  if (groups.length) groups[0] = indent + groups[0];
  // Each line but the last ends in " \".
  const lines = fill(groups, HELP_WIDTH - 2 - (indent ? 0 : 4), indent || CONTINUED);
  return lines.map((l, i) => l + (i < lines.length - 1 ? ' \\' : ending)).join('\n');
}

/** Pieces joined by spaces into lines of at most `width` columns (a longer piece alone on its line); lines after the first start with `indent`. */
export function fill(pieces: readonly string[], width: number, indent: string): string[] {
  const lines: string[] = [];
  for (const p of pieces) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + p.length <= width) lines[last] += ` ${p}`;
    else lines.push(last < 0 ? p : indent + p);
  }
  return lines.length ? lines : [''];
}
