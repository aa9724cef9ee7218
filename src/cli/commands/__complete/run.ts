// agctl __complete -- <words...>: the completions of the last word, one a line
// (`value`, or `value<TAB>description`), then a directive line as cobra
// prints it: `:4` no file names, `:0` file names (the shell completes them),
// `:16` directory names. It never prints an error and always exits 0: a
// completion that fails, or that is not answered within BUDGET_MS (sources.ts)
// of the run's start (the process's start for the agctl process), offers nothing.
//
// A value comes from whoever named a rule, an MCP server or a task in the
// tenant: the scripts insert it quoted for their shell (bash `printf %q`,
// zsh's compadd, fish's own escaping) and never hand it to anything that
// expands it. What no quoting makes safe to show or to insert is not offered
// at all (see `offerable`).
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Command } from 'commander';
import { collectTree, type Node } from '../../completion.js';
import { invocationOf } from '../../invocation.js';
import { systemClock } from '../../../lib/clock.js';
import { CONTROL_CHAR, INVISIBLE_CHAR } from '../../../lib/controls.js';
import type { CompleteInput } from './command.js';
import { BUDGET_MS, SOURCES, realStopwatch, type Candidate, type SourceContext } from './sources.js';
import { argumentAt, readLine, type Line } from './words.js';

/** cobra's directives, as the last line says them. */
const Directive = { FileNames: 0, NoFileNames: 4, DirectoryNames: 16 } as const;

interface Answer {
  candidates: Candidate[];
  directive: number;
}

export async function run({ args: [words] }: CompleteInput, cmd: CommandUnknownOpts): Promise<void> {
  const inv = invocationOf(cmd as unknown as Command);
  inv.exitCode = 0;
  let answer: Answer = { candidates: [], directive: Directive.NoFileNames };
  try {
    // the program this command belongs to: with every group (main.ts loads them all for a line with `--`)
    answer = await complete(cmd.parent as unknown as Command, words, {
      env: inv.env,
      clock: inv.clock ?? systemClock,
      stopwatch: realStopwatch,
      deadline: inv.startedAt + budgetMs(inv.env),
    });
  } catch {
    // silent: nothing to offer
  }
  inv.io.stdout.write([...answer.candidates.map(line), `:${answer.directive}`].join('\n') + '\n');
}

/** BUDGET_MS, or AGCTL_COMPLETE_BUDGET_MS when it is a whole number of ms up to a minute (a slow machine, or a test that spawns the process on one). */
function budgetMs(env: NodeJS.ProcessEnv): number {
  const v = env.AGCTL_COMPLETE_BUDGET_MS;
  return v && /^\d{1,5}$/.test(v) && Number(v) <= 60_000 ? Number(v) : BUDGET_MS;
}

/**
 * Characters no value offered holds: control characters (a newline or a tab
 * would break the line, or the shell's word), format characters (bidi
 * controls that reorder what the terminal shows, zero-width characters that
 * make two IDs look alike) and every other default-ignorable, invisible or
 * unassigned character, and whitespace other than a space: the escaping
 * home's sets (src/lib/controls.ts), with unassigned characters and
 * whitespace added.
 */
const UNSHOWN = new RegExp(`${CONTROL_CHAR.source}|${INVISIBLE_CHAR.source}|[\\p{C}]|(?! )[\\p{Z}\\s]`, 'u');
/** UNSHOWN, every match (a description's are replaced). */
const EVERY_UNSHOWN = new RegExp(UNSHOWN.source, 'gu');

/**
 * Whether a value the program knows (a profile name, an ID from the service)
 * is offered: none of UNSHOWN, and not starting with `-` (the command would
 * read it as an option, `--base-url=...`), `~` (fish inserts a leading tilde
 * unquoted, and it names a home directory) or `:` (the directive line's mark).
 */
const offerable = (c: Candidate) => c.value !== '' && !UNSHOWN.test(c.value) && !/^[-~:]/.test(c.value);

/** A value and its description on one line (the description's UNSHOWN characters become spaces). */
function line(c: Candidate): string {
  const description = c.description?.replace(EVERY_UNSHOWN, ' ').trim().slice(0, 80);
  return description ? `${c.value}\t${description}` : c.value;
}

/** What a completion works with: its environment, clocks, and when values from the service are given up on (`deadline`, in `stopwatch` ms). */
export type CompleteContext = Omit<SourceContext, 'onClose'>;

/** The completions of the last of `words` (the words after the program name) on `program`'s tree. */
export async function complete(program: Command, words: string[], ctx: CompleteContext): Promise<Answer> {
  const line = readLine(collectTree(program), words);
  const { candidates, directive } = await offered(line, ctx);
  return { candidates: candidates.filter((c) => c.value.startsWith(line.prefix)), directive };
}

async function offered(line: Line, base: CompleteContext): Promise<Answer> {
  const nothing = { candidates: [], directive: Directive.NoFileNames };
  const closers: (() => Promise<void>)[] = [];
  const dynamic = async (source: keyof typeof SOURCES) => {
    const ctx = { ...base, onClose: (fn: () => Promise<void>) => void closers.push(fn) };
    try {
      return { candidates: (await SOURCES[source](line, ctx)).filter(offerable), directive: Directive.NoFileNames };
    } finally {
      // the answer is in, or the time is up: requests still in flight are aborted
      await Promise.all(closers.map((fn) => fn().catch(() => {})));
    }
  };
  const { slot } = line;
  if (slot.kind === 'value') {
    const spec = slot.spec;
    if (spec.kind === 'choices') return { candidates: spec.choices.map((value) => ({ value })), directive: Directive.NoFileNames };
    if (spec.kind === 'file') return { candidates: [], directive: Directive.FileNames };
    if (spec.kind === 'dir') return { candidates: [], directive: Directive.DirectoryNames };
    if (spec.kind === 'dynamic') return dynamic(spec.source);
    return nothing;
  }
  const flags = (n: Node) => n.options.flatMap((o) => o.flags.map((value) => ({ value, description: o.description })));
  if (line.prefix.startsWith('-')) return { candidates: flags(slot.node), directive: Directive.NoFileNames };
  const subcommands = slot.node.subcommands.map((s) => ({ value: s.name, description: s.description }));
  const arg = argumentAt(slot.node, slot.index);
  if (arg?.dynamic) return dynamic(arg.dynamic);
  if (arg) return { candidates: arg.values.map((value) => ({ value })), directive: Directive.NoFileNames };
  // no positional argument expected: the subcommands, or else the flags
  return { candidates: subcommands.length ? subcommands : flags(slot.node), directive: Directive.NoFileNames };
}
