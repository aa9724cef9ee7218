// --jq: jq itself (jq-wasm, jq compiled to WebAssembly), imported only when
// the flag is given. Strings print raw, other values as indented JSON (as gh's --jq).
// `$ENV` and `env` are the invocation's environment (jq-wasm's own is a fake one).
import { UsageError } from '../lib/exit.js';
import { safeJson } from './escape.js';

/** The text jq prints for one JSON value, and the error it stopped on (a UsageError naming jq's message), if any. */
export type JqFilter = (value: unknown) => { text: string; error?: UsageError };

/**
 * Loads jq and checks that `expression` compiles (before the command sends
 * anything). The filter returned runs it on a value and returns the text to
 * print; an error at run time (`.a` on an array, `error("x")`) comes with
 * the outputs produced before it.
 */
export async function loadJqFilter(expression: string, env: NodeJS.ProcessEnv): Promise<JqFilter> {
  const { loadJq } = await import('jq-wasm');
  const jq = await loadJq();
  // Compiled alone first, so that jq's messages give the line and column of the expression as typed.
  /** jq's run; jq (WebAssembly) running out of memory or stack (on a value it builds too deep) is its error too. */
  const raw = (input: string, filter: string, flags: string[]) => {
    try {
      return jq.raw(input, filter, flags);
    } catch (err) {
      return { stdout: '', stderr: `jq stopped: ${(err as Error).message}`, exitCode: 5 };
    }
  };
  const check = raw('null', expression, ['-c']);
  if (check.exitCode === COMPILE_ERROR) throw jqError(check.stderr, check.exitCode);
  const vars = JSON.stringify(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)));
  // The line break keeps a trailing `# comment` from hiding the closing parenthesis.
  const program = `$${ENV_VAR} as $ENV | def env: $ENV; (${expression}\n)`;
  const run = (value: unknown) => raw(JSON.stringify(value) ?? 'null', program, ['-c', '--argjson', ENV_VAR, vars]);
  return (value) => {
    const r = run(value);
    // -c prints one value a line; a string's own line breaks are escaped in it.
    const text = r.stdout === '' ? '' : r.stdout.split('\n').map(show).join('');
    return r.exitCode === 0 ? { text } : { text, error: jqError(r.stderr, r.exitCode) };
  };
}

/** The variable that brings the environment in. */
const ENV_VAR = '__agctl_env';

/** jq's exit status for an expression that does not compile. */
const COMPILE_ERROR = 3;

/** One value jq printed (compact JSON): a string raw, anything else indented. */
function show(line: string): string {
  const v = JSON.parse(line) as unknown;
  return (typeof v === 'string' ? v : safeJson(v, 2)) + '\n';
}

/** jq's message, on one line: "--jq: syntax error, unexpected ... at <top-level>, line 1, column 6". */
function jqError(stderr: string, exitCode: number): UsageError {
  const first = stderr.split('\n').find((l) => l.trim() !== '') ?? `jq exited with status ${exitCode}`;
  const message = first.replace(/^jq: error(?: \(at [^)]*\))?: /, '').replace(/:$/, '');
  return new UsageError(`--jq: ${message}`);
}
