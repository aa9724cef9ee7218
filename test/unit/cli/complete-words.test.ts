// How `agctl __complete` reads a command line against the program tree: the
// command it names, its positional arguments, its flags, and what the word
// under the cursor is.
import { describe, expect, it } from 'vitest';
import { argumentAt, readLine } from '../../../src/cli/commands/__complete/words.js';
import { collectTree } from '../../../src/cli/completion.js';
import { buildProgram } from '../../../src/cli/program.js';

const nodes = collectTree(await buildProgram());
const read = (line: string) => readLine(nodes, line.split(' '));

describe('readLine', () => {
  it('finds the command, the positional arguments and the flags, skipping flag values', () => {
    const l = read('--profile ci -o json rules delete --base-url=http://x crm-app r1 ');
    expect(l.node.path).toEqual(['rules', 'delete']);
    expect(l.args).toEqual(['crm-app', 'r1']);
    expect(Object.fromEntries(l.flags)).toEqual({ '--profile': 'ci', '-o': 'json', '--base-url': 'http://x' });
    expect(l.slot).toMatchObject({ kind: 'word', index: 2 });
    expect(l.prefix).toBe('');
  });

  it('knows a flag value under the cursor, as --flag value and as --flag=value', () => {
    expect(read('rules list x --profile c')).toMatchObject({
      slot: { kind: 'value', flag: '--profile', spec: { kind: 'dynamic', source: 'profiles' } },
      prefix: 'c',
    });
    expect(read('--output=j')).toMatchObject({ slot: { kind: 'value', flag: '--output', spec: { kind: 'choices' } }, prefix: 'j' });
    // a flag without a value does not take the next word
    expect(read('rules list --debug x ').args).toEqual(['x']);
  });

  it('takes a command name only as the first word after the command, and words after -- as arguments', () => {
    expect(read('rules list list ').args).toEqual(['list']);
    expect(read('webhook send -- --not-a-flag ')).toMatchObject({ args: ['--not-a-flag'], slot: { kind: 'word', index: 1 } });
    expect(read('webhook send -- --data-f').slot.kind).toBe('word');
  });

  it('gives the variadic last argument for every index past it', () => {
    const del = nodes.find((n) => n.path.join(' ') === 'rules delete')!;
    expect(argumentAt(del, 0)).toEqual({ values: [], rest: false });
    expect(argumentAt(del, 5)).toEqual({ values: [], rest: true, dynamic: 'rule-ids' });
    const list = nodes.find((n) => n.path.join(' ') === 'rules list')!;
    expect(argumentAt(list, 1)).toBeUndefined();
  });
});
