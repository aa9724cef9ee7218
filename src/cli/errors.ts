// Turns any error into one clear line (or a JSON object with -o json) and an exit code.
import { ApiError, Code } from '../api/errors.js';
import { UnsafePathError } from '../lib/private-fs.js';
import {
  CliError,
  EXIT_INTERRUPTED,
  EXIT_NAMES,
  Exit,
  UsageError,
  exitCodeForStatus,
  jsonError,
  type ExitCode,
  type JsonError,
} from '../lib/exit.js';
import { escapeControls, safeJson } from './escape.js';

/** gRPC code names by number, for error lines. */
const CODE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(Code).map(([name, n]) => [n, name]));

interface RenderedError {
  exitCode: ExitCode | typeof EXIT_INTERRUPTED;
  line: string;
  hint?: string;
  json: JsonError;
}

/**
 * The error as printed: `line` and `hint` have their control characters made
 * visible (an argument or a server message cannot recolour or rewrite the
 * terminal); `json` keeps the text as it is, for JSON.stringify to escape.
 */
export function renderError(err: unknown): RenderedError {
  const r = render(err);
  // The service's details as the client kept them (src/client/api.ts serverDetails: cut short, none when too deep).
  const json = jsonError(r.code, r.message ?? r.line, r.exitCode, { hint: r.hint, status: r.status, details: r.details });
  return { exitCode: r.exitCode, line: escapeControls(r.line), ...(r.hint !== undefined ? { hint: escapeControls(r.hint) } : {}), json };
}

/**
 * An error as `-o json` prints it: one line on stderr, `{"error":{...}}`, with
 * `more` members in the error object (the hint as finally given, or the ID of
 * the item a command that acts on several failed on).
 */
export function jsonErrorLine(json: JsonError, more: Record<string, unknown> = {}): string {
  return safeJson({ error: { ...json.error, ...more } }) + '\n';
}

/**
 * The `code` of an error: the service's (a gRPC code's name in snake_case,
 * `not_found`, or a string it sent, `invalid_client`), else the name of the
 * exit code (`usage`, `unauthenticated`, ...).
 */
function errorCode(code: number | string | undefined, exitCode: number): string {
  if (typeof code === 'string') return code;
  if (typeof code === 'number') return CODE_NAMES[code] !== undefined ? snakeCase(CODE_NAMES[code]) : String(code);
  return EXIT_NAMES[exitCode] ?? 'error';
}

const snakeCase = (name: string) => name.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toLowerCase();

interface Rendering {
  exitCode: ExitCode | typeof EXIT_INTERRUPTED;
  line: string;
  /** The message in JSON, when not the line. */
  message?: string;
  hint?: string;
  code: string;
  status?: number;
  details?: unknown[];
}

function render(err: unknown): Rendering {
  // A local file or directory that others can write, or a link where agctl keeps a file (src/lib/private-fs.ts): refused, exit 2.
  if (err instanceof UsageError || err instanceof UnsafePathError)
    return { exitCode: Exit.Usage, line: err.message, hint: err.hint, code: errorCode(undefined, Exit.Usage) };
  if (err instanceof ApiError) {
    const name = typeof err.code === 'number' ? (CODE_NAMES[err.code] ?? `code ${err.code}`) : err.code;
    const hint =
      err.status === 401
        ? 'run `agctl login` or check AGCTL_ACCESS_TOKEN'
        : err.status === 429
          ? 'the server is rate limiting; try again later'
          : undefined;
    const exitCode = exitCodeForStatus(err.status);
    return {
      exitCode,
      line: `${err.message} (HTTP ${err.status}, ${name})`,
      message: err.message,
      hint,
      code: errorCode(err.code, exitCode),
      status: err.status,
      details: err.details,
    };
  }
  if (err instanceof CliError)
    return { exitCode: err.exitCode, line: err.message, hint: err.hint, code: errorCode(err.code, err.exitCode), status: err.status };
  const e = err as { name?: string; message?: string };
  if (e?.name === 'ExitPromptError' || e?.name === 'AbortPromptError')
    return { exitCode: EXIT_INTERRUPTED, line: 'cancelled', code: errorCode(undefined, EXIT_INTERRUPTED) };
  return {
    exitCode: Exit.Bug,
    line: `unexpected error: ${e?.message ?? String(err)}`,
    hint: 'run again with --debug for details, and please report it',
    code: errorCode(undefined, Exit.Bug),
  };
}

/**
 * A hint as the user should follow it: where it says to run `agctl login`
 * (the token was refused, the secret cannot be unsealed, nothing is stored,
 * ...) and the profile in use was chosen by --profile or AGCTL_PROFILE, the
 * command names it (`agctl login --profile p2`): a bare `agctl login` logs in
 * to the config's current profile, and would leave this one as it is. Hints
 * anywhere (client, config, commands) say `agctl login`; this is where the
 * profile is added, for every error and for `auth status`.
 */
export function withProfile(hint: string, s: { profile: string; profileSource: string } | undefined): string;
export function withProfile(hint: string | undefined, s: { profile: string; profileSource: string } | undefined): string | undefined;
export function withProfile(hint: string | undefined, s: { profile: string; profileSource: string } | undefined): string | undefined {
  if (hint === undefined || (s?.profileSource !== 'flag' && s?.profileSource !== 'env')) return hint;
  return hint.replaceAll('`agctl login`', `\`agctl login --profile ${s.profile}\``);
}

/**
 * `work`'s result; its 404 becomes exit 5 with `hint` (and `message`, else the
 * server's message with the status), where a command knows what the user
 * should look for.
 */
export async function withNotFoundHint<T>(work: Promise<T>, hint: string, message?: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw new CliError(message ?? `${err.message} (HTTP 404)`, Exit.NotFound, { status: 404, code: err.code, hint });
    throw err;
  }
}
