// The error contract shared by the embedded server and the client:
// gRPC status codes, their HTTP mapping, and the API error the server raises.
// CLI exit codes and the CLI's own errors live in src/lib/exit.ts.

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
type CodeValue = (typeof Code)[keyof typeof Code];

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

/** The gRPC code of a bare HTTP status that has one of its own. */
const CODE_FOR_STATUS: Readonly<Record<number, number>> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.NotFound,
  409: Code.AlreadyExists,
  429: Code.ResourceExhausted,
  501: Code.Unimplemented,
  503: Code.Unavailable,
  504: Code.DeadlineExceeded,
};

/** Best guess of a gRPC code for a bare HTTP status (used when a body carries none). */
export function codeForHttpStatus(status: number): number {
  return Object.hasOwn(CODE_FOR_STATUS, status) ? CODE_FOR_STATUS[status]! : status >= 500 ? Code.Internal : Code.Unknown;
}

/** gRPC code names lower-cased without underscores ("notfound"), plus Connect's spelling "canceled". */
const CODE_BY_NAME = new Map<string, number>([
  ...Object.entries(Code).map(([name, n]): [string, number] => [name.toLowerCase(), n]),
  ['canceled', Code.Cancelled],
]);

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
interface ErrorBody {
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
    return {
      code: typeof this.code === 'number' ? this.code : codeForHttpStatus(this.status),
      message: this.message,
      details: this.details,
    };
  }
}

export const invalidArgument = (message: string, details: unknown[] = []) => ApiError.of(Code.InvalidArgument, message, details);
export const notFound = (message: string) => ApiError.of(Code.NotFound, message);
export const failedPrecondition = (message: string) => ApiError.of(Code.FailedPrecondition, message);
export const permissionDenied = (message: string) => ApiError.of(Code.PermissionDenied, message);
