// CLI exit codes and the errors that carry them, thrown by the CLI, the client
// and the config layer. The embedded server speaks only src/api/errors.ts.

/** CLI exit codes (README "Exit codes", `agctl help exit-codes`). */
export const Exit = {
  OK: 0,
  Bug: 1,
  Usage: 2,
  Unauthenticated: 3,
  PermissionDenied: 4,
  NotFound: 5,
  Conflict: 6,
  Invalid: 7,
  RateLimited: 8,
  Server: 9,
  Pending: 10,
  Environment: 11,
} as const;
export type ExitCode = (typeof Exit)[keyof typeof Exit];

/** Stopped with Ctrl-C, as shells report it (128 + SIGINT): a cancelled prompt, wait or load run; also a confirmation answered No. */
export const EXIT_INTERRUPTED = 130;

export const EXIT_CODE_TABLE: ReadonlyArray<[ExitCode | typeof EXIT_INTERRUPTED, string]> = [
  [0, 'success'],
  [1, 'unexpected error (a bug): please report it'],
  [2, 'usage error: bad flags, missing input, client-side validation'],
  [3, 'not authenticated (401, invalid_client, no credentials, a stored credential saved for another server)'],
  [4, 'permission denied (403, webhook source IP refused)'],
  [5, 'not found (404)'],
  [6, 'conflict (409, e.g. duplicate webhook event)'],
  [7, "request rejected by the server (400, 405, 413, 422, 431, and any other 4xx no other row names; a webhook receiver's 3xx)"],
  [8, 'rate limited after retries (429)'],
  [9, 'server or network failure (5xx, timeout, refused connection, a redirect from the service, unexpected response)'],
  [10, 'pending: step-up authentication not completed yet'],
  [
    11,
    "environment fault: agctl's installation or Node.js cannot run the command (e.g. the embedded server's SQLite module missing or built for another Node.js); the message names the fix",
  ],
  [EXIT_INTERRUPTED, 'cancelled: Ctrl-C (a prompt, the step-up wait, a webhook load run), or No at a confirmation (nothing was changed)'],
];

/** The `code` of a JSON error (`-o json`) when the service named none: the kind of exit code. */
export const EXIT_NAMES: Readonly<Record<number, string>> = {
  1: 'unexpected',
  2: 'usage',
  3: 'unauthenticated',
  4: 'permission_denied',
  5: 'not_found',
  6: 'conflict',
  7: 'invalid',
  8: 'rate_limited',
  9: 'unavailable',
  10: 'pending',
  11: 'environment',
  [EXIT_INTERRUPTED]: 'cancelled',
};

/**
 * An error as `-o json` prints it on stderr, one shape for every error
 * (`agctl help exit-codes`): `code` is always a string, `exitCode` the
 * process's exit code, `status` the HTTP status that caused it (or null),
 * `hint` what to do (or null), `details` the service's error details.
 */
export interface JsonError {
  error: { code: string; message: string; hint: string | null; exitCode: number; status: number | null; details: unknown[] };
}

export function jsonError(
  code: string,
  message: string,
  exitCode: number,
  more: { hint?: string; status?: number; details?: unknown[] } = {},
): JsonError {
  return { error: { code, message, hint: more.hint ?? null, exitCode, status: more.status ?? null, details: more.details ?? [] } };
}

/** Maps an HTTP status from the service to the CLI exit code. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status >= 200 && status < 300) return Exit.OK;
  switch (status) {
    case 400:
    case 405:
    case 413:
    case 422:
    case 431:
      return Exit.Invalid;
    case 401:
      return Exit.Unauthenticated;
    case 403:
      return Exit.PermissionDenied;
    case 404:
      return Exit.NotFound;
    case 409:
      return Exit.Conflict;
    case 429:
      return Exit.RateLimited;
    default:
      return status >= 500 || status === 0 ? Exit.Server : Exit.Invalid;
  }
}

/** A usage error raised by the CLI before any request is sent. */
export class UsageError extends Error {
  readonly hint?: string;
  constructor(message: string, hint?: string) {
    super(message);
    this.name = 'UsageError';
    this.hint = hint;
  }
}

/** An error carrying an explicit exit code and optional hint (network failures, pending step-up, ...). */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly hint?: string;
  readonly status?: number;
  readonly code?: number | string;
  constructor(message: string, exitCode: ExitCode, opts: { hint?: string; status?: number; code?: number | string } = {}) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.hint = opts.hint;
    this.status = opts.status;
    this.code = opts.code;
  }
}
