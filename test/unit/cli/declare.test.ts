// Declared commands: the options type is inferred from the flags (checked by
// `npm run typecheck`: a flag read under a name it does not declare does not
// compile), run is loaded only when the command runs, and completion values
// and environment variables are read back from the declarations.
import { Argument, Command, Option } from '../../../src/cli/declare.js';
import { Command as PlainCommand } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import type { SendInput } from '../../../src/cli/commands/webhook/send/command.js';
import type { VerifyInput } from '../../../src/cli/commands/webhook/verify/command.js';
import { completeWith, declaredCompletion, declaredEnv, readsEnv, type Input } from '../../../src/cli/declare.js';
import { helpText } from '../../../src/cli/help-text.js';
import { lazyRun } from '../../../src/cli/tree/entries.js';

// The runner builds the context from the environment: replaced by one passing a stand-in.
vi.mock('../../../src/cli/run.js', () => ({
  execute: async (_cmd: unknown, fn: (ctx: unknown) => Promise<unknown>) => void (await fn({ fake: 'ctx' })),
}));

describe('the options type', () => {
  it('is inferred from the declaration', () => {
    // Compile-time checks: each @ts-expect-error fails `npm run typecheck` when the line compiles.
    const send = (o: SendInput['opts']) => {
      const headers: string[] = o.header; // repeatable, default []
      const ttl: number = o.jwtTtl; // parsed, with a default
      const alg: 'ES256' | 'RS256' | 'EdDSA' | undefined = o.alg; // choices
      // @ts-expect-error the flag is --header: there is no `headers`
      const renamed: unknown = o.headers;
      // @ts-expect-error --count has no default: it may be undefined
      const count: number = o.count;
      return [headers, ttl, alg, renamed, count];
    };
    const verify = (i: VerifyInput) => {
      // @ts-expect-error verify takes no positional argument
      const target: string = i.args[0];
      // @ts-expect-error the flag is --allowed-cidr
      return [target, i.opts.allowedCidrs];
    };
    const declared = new Command('x').argument('<id>').option('--dry-run');
    lazyRun(declared, async () => ({ run: async ({ args: [id], opts }: Input<typeof declared>) => (opts.dryRun ? id.length : 0) }));
    // @ts-expect-error a run reading a flag the declaration does not have does not fit it
    lazyRun(declared, async () => ({ run: async ({ opts }: { args: [string]; opts: { dryRunn?: true } }) => (opts.dryRunn ? 1 : 0) }));
    expect([send, verify].every((f) => typeof f === 'function')).toBe(true);
  });
});

describe('lazyRun', () => {
  it('loads run only when the command runs, and passes it the parsed arguments and options', async () => {
    let loads = 0;
    const received: unknown[] = [];
    const program = new PlainCommand('t').exitOverride();
    const cmd = new Command('x').argument('<id>').option('--n <n>', 'n', (v) => Number(v), 1);
    program.addCommand(
      lazyRun(cmd, async () => {
        loads++;
        return { run: async (input, ctx, c) => void received.push(input, ctx, c.name()) };
      }) as unknown as PlainCommand,
    );
    expect(loads).toBe(0);
    await program.parseAsync(['x', 'a1', '--n', '7'], { from: 'user' });
    expect(loads).toBe(1);
    expect(received).toEqual([{ args: ['a1'], opts: { n: 7 } }, { fake: 'ctx' }, 'x']);
  });
});

describe('declared facts', () => {
  it('completion values and environment variables are read back from the tree', () => {
    const opt = completeWith(new Option('--mode <m>'), ['a', 'b']);
    const arg = completeWith(new Argument('<f>'), 'file');
    expect(declaredCompletion(opt)).toEqual({ kind: 'choices', choices: ['a', 'b'] });
    expect(declaredCompletion(arg)).toEqual({ kind: 'file', keyed: false });
    expect(declaredCompletion(new Option('--other <x>'))).toBeUndefined();
    const root = new PlainCommand('r');
    const one = { name: 'ONE', meaning: '1' };
    for (const c of [readsEnv(new Command('a'), one), readsEnv(new Command('b'), one, { name: 'TWO', meaning: '2' })])
      root.addCommand(c as unknown as PlainCommand);
    expect(declaredEnv(root)).toEqual([one, { name: 'TWO', meaning: '2' }]);
  });

  it('helpText fits 80 columns: long prose lines wrapped, long examples broken before a flag with " \\", quotes whole', () => {
    const cmd = `agctl webhook verify -H 'Webhook-Timestamp: 1700000000' -H 'Content-Type: application/json' --jwks https://keys.example.com/jwks.json --url https://acme.example.com/x   # a comment`;
    const text = helpText('word '.repeat(30).trim(), [cmd, 'agctl x   # short, untouched']);
    const lines = text.split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(text).toContain('\n  $ agctl x   # short, untouched');
    const example = lines.slice(lines.indexOf('Examples:') + 1, -1);
    expect(example.slice(0, -1).every((l) => l.endsWith(' \\'))).toBe(true);
    expect(example.slice(1).every((l) => /^ {6}-/.test(l))).toBe(true);
    // What a shell reads back: the same command.
    expect(
      example
        .join('\n')
        .slice(4)
        .replace(/ \\\n +/g, ' '),
    ).toBe(cmd.replace(/ {3}#/, ' #'));
  });

  it('helpText puts the examples after the prose', () => {
    expect(helpText('\nSome words.\n', ['agctl x', 'agctl y'])).toBe('\nSome words.\n\nExamples:\n  $ agctl x\n  $ agctl y');
    expect(helpText('', ['agctl x'])).toBe('\nExamples:\n  $ agctl x');
  });
});
