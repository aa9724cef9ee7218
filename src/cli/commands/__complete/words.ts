// Reads a command line being completed against the program tree: which
// command it names, the positional arguments typed so far, the flags given,
// and what the last word (the one under the cursor) is: a flag's value, or a
// command name, positional argument or flag.
import { valueFlags, type Node, type Spec } from '../../completion.js';

/** What the word under the cursor is. */
type Slot =
  | { kind: 'value'; flag: string; spec: Spec }
  | { kind: 'word'; node: Node /** its index among the positional arguments */; index: number };

export interface Line {
  slot: Slot;
  /** The part of the word under the cursor typed so far (after `--flag=`). */
  prefix: string;
  /** The command the line names. */
  node: Node;
  /** Positional arguments before the cursor. */
  args: string[];
  /** Flags given before the cursor, by the name typed (`--profile`), with their value (true for a flag without one). */
  flags: Map<string, string | true>;
}

/** Reads `words` (the words after the program name; the last is the one being completed, '' for a new word). */
export function readLine(nodes: Node[], words: readonly string[]): Line {
  const byPath = new Map(nodes.map((n) => [n.path.join(' '), n]));
  const takesValue = valueFlags(nodes);
  const before = words.slice(0, -1);
  const cur = words.at(-1) ?? '';
  let node = byPath.get('')!;
  const args: string[] = [];
  const flags = new Map<string, string | true>();
  let pending: string | undefined;
  let literal = false;
  for (const w of before) {
    if (pending !== undefined) {
      flags.set(pending, w);
      pending = undefined;
    } else if (!literal && w === '--') {
      literal = true;
    } else if (!literal && w.length > 1 && w.startsWith('-')) {
      const eq = w.indexOf('=');
      if (eq > 0) flags.set(w.slice(0, eq), w.slice(eq + 1));
      else if (takesValue.has(w)) pending = w;
      else flags.set(w, true);
    } else {
      const sub = args.length === 0 ? byPath.get([...node.path, w].join(' ')) : undefined;
      if (sub && node.subcommands.some((s) => s.name === w)) node = sub;
      else args.push(w);
    }
  }
  const line = { node, args, flags };
  if (pending !== undefined) return { ...line, slot: { kind: 'value', flag: pending, spec: takesValue.get(pending)! }, prefix: cur };
  const eq = !literal && cur.startsWith('-') ? cur.indexOf('=') : -1;
  const flag = eq > 0 ? cur.slice(0, eq) : undefined;
  if (flag && takesValue.has(flag))
    return { ...line, slot: { kind: 'value', flag, spec: takesValue.get(flag)! }, prefix: cur.slice(eq + 1) };
  return { ...line, slot: { kind: 'word', node, index: args.length }, prefix: cur };
}

/** The positional argument at `index` of `node` (the variadic last one for any index past it), if one is expected there. */
export function argumentAt(node: Node, index: number): Node['args'][number] | undefined {
  const last = node.args.at(-1);
  return node.args[index] ?? (last?.rest ? last : undefined);
}
