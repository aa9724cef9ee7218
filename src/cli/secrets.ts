// Secret input: never a plain flag value. Sources, in order: --<name>-stdin,
// --<name>-file, an environment variable, a hidden prompt on a terminal.
// A one-word secret (the default) loses the whitespace around it and is
// refused with whitespace inside (src/lib/secret-text.ts); a `text` one (a
// password, a PEM key, a JSON file) is taken as given, less one trailing line
// break from a file or a pipe.
import { UsageError } from '../lib/exit.js';
import { cleanSecret } from '../lib/secret-text.js';
import type { CommandContext } from './context.js';
import { readFileBytes, readStdin } from './io.js';

export interface SecretSource {
  /** Human name, e.g. "client secret". */
  name: string;
  /** The flag stem, e.g. "--client-secret" (for messages: --client-secret-stdin, --client-secret-file). */
  flag: string;
  stdin?: boolean;
  file?: string;
  env?: string;
  /** Prompt message; no prompt when omitted. */
  prompt?: string;
  /** Whitespace may mean something: keep the value as given (less one trailing line break from a file or a pipe). */
  text?: boolean;
}

/** Drops one trailing newline (files and pipes usually end with one). */
const chomp = (s: string) => s.replace(/\r?\n$/, '');

export async function readSecret(ctx: CommandContext, src: SecretSource): Promise<string | undefined> {
  if (src.stdin && src.file) throw new UsageError(`use either ${src.flag}-stdin or ${src.flag}-file, not both`);
  let value: string | undefined;
  let from: string | undefined;
  if (src.stdin) {
    if (ctx.io.isStdinTTY)
      throw new UsageError(
        `${src.flag}-stdin expects the ${src.name} on a pipe, not a terminal`,
        `echo "$SECRET" | agctl ... ${src.flag}-stdin`,
      );
    [value, from] = [chomp(await readStdin(ctx.io, src.name)), `${src.flag}-stdin`];
  } else if (src.file) {
    [value, from] = [chomp(readFileBytes(src.file, `${src.flag}-file`).toString('utf8')), `${src.flag}-file`];
  } else if (src.env && ctx.env[src.env]) {
    [value, from] = [ctx.env[src.env], src.env];
  } else if (src.prompt && ctx.canPrompt) {
    value = await ctx.prompt.password(src.prompt, { validate: (v) => promptProblem(v, src) ?? true });
    from = 'the prompt';
  }
  if (value !== undefined && value.trim() === '') throw new UsageError(`the ${src.name} is empty`);
  return value === undefined || src.text ? value : cleanSecret(value, src.name, from);
}

/** What is wrong with a secret typed at a prompt, to ask again; undefined when it will do. */
export function promptProblem(v: string, src: Pick<SecretSource, 'name' | 'text'>): string | undefined {
  if (!v.trim()) return `the ${src.name} cannot be empty`;
  if (src.text) return undefined;
  try {
    cleanSecret(v, src.name);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * The usage error for a secret that is needed but was not given. `stdinTaken`: standard input carries something
 * else, so neither `--<name>-stdin` nor the prompt (which reads standard input) is offered.
 */
export function missingSecret(src: SecretSource, hint?: string, o: { stdinTaken?: boolean } = {}): UsageError {
  const ways = [...(o.stdinTaken ? [] : [`${src.flag}-stdin`]), `${src.flag}-file`, ...(src.env ? [src.env] : [])].join(', ');
  return new UsageError(
    `missing ${src.name}: provide it with ${ways}${src.prompt && !o.stdinTaken ? ' (or run on a terminal to be prompted)' : ''}`,
    hint,
  );
}
