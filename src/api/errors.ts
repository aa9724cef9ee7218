// The error contract shared by the embedded server and the client:
// gRPC status codes, their HTTP mapping, and the CLI exit codes derived from them.

export const Code = {
  OK: 0,
  Cancelled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
} as const;
export type CodeValue = (typeof Code)[keyof typeof Code];

const HTTP_FOR_CODE: Record<number, number> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

export function httpStatusForCode(code: number): number {
  return HTTP_FOR_CODE[code] ?? 500;
}

/** Best guess of a gRPC code for a bare HTTP status (used when a body carries none). */
export function codeForHttpStatus(status: number): number {
  switch (status) {
    case 400:
      return Code.InvalidArgument;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.NotFound;
    case 409:
      return Code.AlreadyExists;
    case 429:
      return Code.ResourceExhausted;
    case 501:
      return Code.Unimplemented;
    case 503:
      return Code.Unavailable;
    case 504:
      return Code.DeadlineExceeded;
    default:
      return status >= 500 ? Code.Internal : Code.Unknown;
  }
}

/** gRPC code names lower-cased without underscores ("notfound"), plus Connect's spelling "canceled". */
const CODE_BY_NAME = new Map<string, number>([...Object.entries(Code).map(([name, n]): [string, number] => [name.toLowerCase(), n]), ['canceled', Code.Cancelled]]);

/**
 * The `code` of an error body as the client keeps it: an integer as it is; a
 * string naming a gRPC code (`not_found` as in the service's fixtures and
 * Connect, `NOT_FOUND`, `NotFound`: case and underscores ignored) or holding
 * digits, as that number; any other non-empty string as it is (trimmed);
 * anything else undefined.
 */
export function parseCode(code: unknown): number | string | undefined {
  if (typeof code === 'number') return Number.isSafeInteger(code) ? code : undefined;
  if (typeof code !== 'string' || code.trim() === '') return undefined;
  const s = code.trim();
  if (/^\d{1,9}$/.test(s)) return Number(s);
  return CODE_BY_NAME.get(s.replace(/_/g, '').toLowerCase()) ?? s;
}

/** The wire error body of every management route: `{code, message, details}`. */
export interface ErrorBody {
  code: number;
  message: string;
  details: unknown[];
}

/**
 * An error the API (or the client acting for it) reports. `status` is the HTTP
 * status, `code` the gRPC code (or an OAuth error string from the token endpoint).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: number | string;
  readonly details: unknown[];
  constructor(status: number, code: number | string, message: string, details: unknown[] = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  static of(code: CodeValue, message: string, details: unknown[] = []): ApiError {
    return new ApiError(httpStatusForCode(code), code, message, details);
  }

  toBody(): ErrorBody {
    return { code: typeof this.code === 'number' ? this.code : codeForHttpStatus(this.status), message: this.message, details: this.details };
  }
}

export const invalidArgument = (message: string, details: unknown[] = []) => ApiError.of(Code.InvalidArgument, message, details);
export const notFound = (message: string) => ApiError.of(Code.NotFound, message);
export const failedPrecondition = (message: string) => ApiError.of(Code.FailedPrecondition, message);
export const permissionDenied = (message: string) => ApiError.of(Code.PermissionDenied, message);
export const unauthenticated = (message: string) => ApiError.of(Code.Unauthenticated, message);
export const alreadyExists = (message: string) => ApiError.of(Code.AlreadyExists, message);

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
} as const;
export type ExitCode = (typeof Exit)[keyof typeof Exit];

/** Stopped with Ctrl-C, as shells report it (128 + SIGINT): a cancelled prompt, wait or load run. */
export const EXIT_INTERRUPTED = 130;

export const EXIT_CODE_TABLE: ReadonlyArray<[ExitCode | typeof EXIT_INTERRUPTED, string]> = [
  [0, 'success'],
  [1, 'unexpected error (a bug): please report it'],
  [2, 'usage error: bad flags, missing input, client-side validation'],
  [3, 'not authenticated (401, invalid_client, no credentials)'],
  [4, 'permission denied (403, webhook source IP refused)'],
  [5, 'not found (404)'],
  [6, 'conflict (409, e.g. duplicate webhook event)'],
  [7, 'request rejected by the server as invalid (400, 413, 431)'],
  [8, 'rate limited after retries (429)'],
  [9, 'server or network failure (5xx, timeout, refused connection, redirect, unexpected response)'],
  [10, 'pending: step-up authentication not completed yet'],
  [EXIT_INTERRUPTED, 'cancelled with Ctrl-C (a prompt, the step-up wait, a webhook load run)'],
];

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
