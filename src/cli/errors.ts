// Turns any error into one clear line (or a JSON object with -o json) and an exit code.
import { ApiError, Code } from '../api/errors.js';
import { CliError, Exit, UsageError, exitCodeForStatus, type ExitCode } from '../lib/exit.js';
import { escapeControls } from './escape.js';

/** gRPC code names by number, for error lines. */
const CODE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(Code).map(([name, n]) => [n, name]));

interface RenderedError {
  exitCode: ExitCode | 130;
  line: string;
  hint?: string;
  json: { error: { status: number | null; code: number | string | null; message: string; details: unknown[] } };
}

/**
 * The error as printed: `line` and `hint` have their control characters made
 * visible (an argument or a server message cannot recolour or rewrite the
 * terminal); `json` keeps the text as it is, for JSON.stringify to escape.
 */
export function renderError(err: unknown): RenderedError {
  const r = render(err);
  return { ...r, line: escapeControls(r.line), ...(r.hint !== undefined ? { hint: escapeControls(r.hint) } : {}) };
}

function render(err: unknown): RenderedError {
  if (err instanceof UsageError) {
    return { exitCode: Exit.Usage, line: err.message, hint: err.hint, json: { error: { status: null, code: 'usage', message: err.message, details: [] } } };
  }
  if (err instanceof ApiError) {
    const name = typeof err.code === 'number' ? CODE_NAMES[err.code] ?? `code ${err.code}` : err.code;
    const hint = err.status === 401 ? 'run `agctl login` or check AGCTL_ACCESS_TOKEN' : err.status === 429 ? 'the server is rate limiting; try again later' : undefined;
    return {
      exitCode: exitCodeForStatus(err.status),
      line: `${err.message} (HTTP ${err.status}, ${name})`,
      hint,
      json: { error: { status: err.status, code: err.code, message: err.message, details: err.details } },
    };
  }
  if (err instanceof CliError) {
    return { exitCode: err.exitCode, line: err.message, hint: err.hint, json: { error: { status: err.status ?? null, code: err.code ?? null, message: err.message, details: [] } } };
  }
  const e = err as { name?: string; message?: string };
  if (e?.name === 'ExitPromptError' || e?.name === 'AbortPromptError') {
    return { exitCode: 130, line: 'cancelled', json: { error: { status: null, code: 'cancelled', message: 'cancelled', details: [] } } };
  }
  const message = `unexpected error: ${e?.message ?? String(err)}`;
  return { exitCode: Exit.Bug, line: message, hint: 'run again with --debug for details, and please report it', json: { error: { status: null, code: 'internal', message, details: [] } } };
}
