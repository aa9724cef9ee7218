// agctl __complete -- <words...>: the completions of the last word, one a line
// (`value`, or `value<TAB>description`), then a directive line as cobra
// prints it: `:4` no file names, `:0` file names (the shell completes them),
// `:16` directory names. It never prints an error and always exits 0: a
// completion that fails, or that is not answered within BUDGET_MS (sources.ts)
// of the run's start (the process's start for the agctl process), offers nothing.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Command } from 'commander';
import { collectTree, type Node } from '../../completion.js';
import { invocationOf } from '../../invocation.js';
import { systemClock, type Clock } from '../../../lib/clock.js';
import { CONTROL_CHARS } from '../../../lib/controls.js';
import type { CompleteInput } from './command.js';
import { BUDGET_MS, SOURCES, type Candidate } from './sources.js';
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
    answer = await complete(cmd.parent as unknown as Command, words, inv.env, inv.clock ?? systemClock, inv.startedAt + budgetMs(inv.env));
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

/** A value and its description on one line; a value that would break the line, or the shell's word, is not offered. */
function line(c: Candidate): string {
  const description = c.description?.replace(CONTROL_CHARS, ' ').trim().slice(0, 80);
  return description ? `${c.value}\t${description}` : c.value;
}

const offerable = (c: Candidate) => /^[\x21-\x7e\u00a0-\uffff]+$/.test(c.value);

/**
 * The completions of the last of `words` (the words after the program name) on
 * `program`'s tree; values from the service only until `deadline` (in
 * performance.now() ms).
 */
export async function complete(program: Command, words: string[], env: NodeJS.ProcessEnv, clock: Clock, deadline: number): Promise<Answer> {
  const line = readLine(collectTree(program), words);
  const { candidates, directive } = await offered(line, env, clock, deadline);
  return { candidates: candidates.filter((c) => c.value.startsWith(line.prefix) && offerable(c)), directive };
}

async function offered(line: Line, env: NodeJS.ProcessEnv, clock: Clock, deadline: number): Promise<Answer> {
  const nothing = { candidates: [], directive: Directive.NoFileNames };
  const closers: (() => Promise<void>)[] = [];
  const dynamic = async (source: keyof typeof SOURCES) => {
    const ctx = { env, clock, deadline, onClose: (fn: () => Promise<void>) => void closers.push(fn) };
    try {
      return { candidates: await SOURCES[source](line, ctx), directive: Directive.NoFileNames };
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
