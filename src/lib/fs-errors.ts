// File system errors in plain words, for messages about paths the user chose.
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { UnsafePathError } from './private-fs.js';

/** A plain description of a file system error code. */
export function describeFsCode(code: string | undefined): string {
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENXIO':
      return 'not a file that can be read (a socket or a device without a reader)';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'no space left on the device';
    case 'EIO':
      return 'an input/output error (the disk or device failed)';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many files are open';
    case 'EEXIST':
      return 'it exists already';
    case 'EBUSY':
      return 'it is busy';
    case undefined:
      return 'cannot be read';
    default:
      // Another error code of the system: said in words, never as the code.
      return /^E[A-Z0-9]+$/.test(code) ? 'the file system refused it' : code;
  }
}

/** The deepest existing part of `path` (itself included) that is not a directory, if any. */
function fileInTheWay(path: string): string | undefined {
  for (let p = path; ; p = dirname(p)) {
    try {
      const st = statSync(p, { throwIfNoEntry: false });
      if (st) return st.isDirectory() ? undefined : p;
    } catch {
      // ENOTDIR: a part above is a file; keep climbing
    }
    if (dirname(p) === p) return undefined;
  }
}

/**
 * What went wrong creating or using `path` (a directory, or a file to write),
 * in plain words: a regular file in the way is named ("it is a file, not a
 * directory" or "PARENT is a file, not a directory"), other errors by their code.
 */
export function pathProblem(path: string, err: unknown, opts: { isDir?: boolean } = {}): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EEXIST' || code === 'ENOTDIR') {
    const file = fileInTheWay(opts.isDir ? path : dirname(path));
    if (file) return file === path ? 'it is a file, not a directory' : `${file} is a file, not a directory`;
  }
  return describeFsCode(code ?? (err as Error)?.message);
}

/** True for errors of the file system (an errno code such as ENOENT, or a path refused as unsafe), as opposed to bugs. */
export const isFsError = (err: unknown): boolean =>
  err instanceof UnsafePathError || /^E[A-Z0-9]+$/.test(String((err as { code?: unknown } | null)?.code ?? ''));
