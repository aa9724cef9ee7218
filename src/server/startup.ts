// Why the embedded server could not start, in the user's terms: a data
// directory that is a file, a database that is not one, a seal key that is
// malformed or is not the one the secrets were sealed with, an address that
// cannot be listened on. `agctl serve` and `--embedded` report these as usage
// errors (exit 2); they are the user's or the machine's, not bugs.
import { mkdirSync } from 'node:fs';
import { pathProblem } from '../lib/fs-errors.js';
import { UnsafePathError, checkPrivateDir } from '../lib/private-fs.js';

export class StartupError extends Error {
  readonly hint?: string;
  /** The system error code behind it, when there is one (EADDRINUSE, ...). */
  readonly code?: string;
  constructor(message: string, hint?: string, code?: string) {
    super(message);
    this.name = 'StartupError';
    this.hint = hint;
    this.code = code;
  }
}

/** How the user names the data directory, for hints: `--data-dir` or `AGCTL_DATA_DIR`. */
export interface DataDirNaming {
  dataDirFlag?: string;
}

export const anotherDataDir = (n: DataDirNaming) => `choose another data directory${n.dataDirFlag ? ` with ${n.dataDirFlag}` : ''}`;

/** The StartupError for a data directory that cannot be created or used. */
export function dataDirError(dir: string, err: unknown, n: DataDirNaming): StartupError {
  const code = (err as NodeJS.ErrnoException).code;
  const inTheWay = code === 'EEXIST' || code === 'ENOTDIR';
  return new StartupError(
    `data directory ${dir}: ${pathProblem(dir, err, { isDir: true })}`,
    `${anotherDataDir(n)}${inTheWay ? ' (it is created when missing)' : ''}`,
  );
}

/**
 * Makes the data directory when missing (0700), and checks it as PostgreSQL
 * checks its own: owned by the user running the server and not writable by
 * group or others, since it holds the seal key and the database; otherwise a
 * StartupError naming it and the fix. Run before anything in it is opened.
 */
export function prepareDataDir(dir: string, n: DataDirNaming): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    checkPrivateDir(dir, 'data directory', 'self');
  } catch (err) {
    if (err instanceof UnsafePathError)
      throw new StartupError(err.message, `${err.hint} (it holds the seal key and the database), or ${anotherDataDir(n)}`);
    throw dataDirError(dir, err, n);
  }
}

/** Formats host and port as an address (IPv6 in brackets). */
const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** The StartupError for a failed listen (port taken, address not on this machine, unknown host name). */
export function listenError(host: string, port: number, err: unknown): StartupError {
  const code = (err as NodeJS.ErrnoException).code;
  const where = hostPort(host, port);
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(
        `cannot listen on ${where}: the address is already in use`,
        'another process listens there: choose another --port, or --port 0 for any free port',
        code,
      );
    case 'EADDRNOTAVAIL':
      return new StartupError(
        `cannot listen on ${where}: ${host} is not an address of this machine`,
        '--host takes an address of this machine: 127.0.0.1 (this machine only), 0.0.0.0 (every interface), or one of its interfaces',
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new StartupError(
        `cannot listen on "${host}": no such host name`,
        '--host takes an IP address or a host name of this machine, e.g. 127.0.0.1',
      );
    case 'EACCES':
    case 'EPERM':
      return new StartupError(
        `cannot listen on ${where}: permission denied${port > 0 && port < 1024 ? ' (ports below 1024 need privileges)' : ''}`,
        'choose a --port from 1024 up, or --port 0 for any free port',
      );
    default:
      return new StartupError(`cannot listen on ${where}: ${(err as Error).message ?? code}`);
  }
}
