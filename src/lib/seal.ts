// AES-256-GCM sealing of secrets at rest, shared by the embedded server's store
// and the CLI's credential/token files. Each value gets a random 96-bit nonce;
// the additional data binds a sealed value to where it belongs, so a sealed
// value copied to another row or field does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { chmodNoFollow, createFileExclusive, readPrivateFile } from './private-fs.js';

const VERSION = 'v1';

/** A key that is not 32 bytes in one of the accepted spellings. */
export class SealKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealKeyError';
  }
}

/** A sealed value that does not open: another key, another place, or damaged. */
export class SealOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealOpenError';
  }
}

export const SEAL_KEY_FORMAT = '32 bytes, written as 64 hex digits or 43 base64url characters';

export class Sealer {
  readonly #key: Buffer;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new SealKeyError(`a seal key must be ${SEAL_KEY_FORMAT}`);
    this.#key = key;
  }

  /** Seals `plaintext`; the result is `v1.<nonce>.<ciphertext+tag>` in base64url. */
  seal(plaintext: string, aad: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${nonce.toString('base64url')}.${ct.toString('base64url')}`;
  }

  /** Opens a sealed value; throws when the key, the additional data or the value is wrong. */
  open(sealed: string, aad: string): string {
    const [v, n, c] = sealed.split('.');
    if (v !== VERSION || !n || !c) throw new SealOpenError('not a sealed value');
    const nonce = Buffer.from(n, 'base64url');
    const data = Buffer.from(c, 'base64url');
    if (nonce.length !== 12 || data.length < 16) throw new SealOpenError('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, nonce);
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - 16));
    try {
      return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealOpenError('the sealed value does not open with this key (another key, or damaged)');
    }
  }
}

/** Parses a key given as 64 hex digits or 43 base64url characters (32 bytes). */
export function parseKey(text: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  const b = Buffer.from(t, 'base64url');
  if (b.length === 32) return b;
  throw new SealKeyError(`a seal key must be ${SEAL_KEY_FORMAT}`);
}

/**
 * Sets a file holding secrets back to 0600 (or a directory to 0700): a key
 * restored from a backup or copied by hand is often 0644. A path the user
 * does not own (EPERM) is left as it is; a file is never chmodded through a
 * link (UnsafePathError).
 */
export function keepPrivate(path: string, mode = 0o600): void {
  try {
    if (mode === 0o700) chmodSync(path, mode);
    else chmodNoFollow(path, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
  }
}

/**
 * The text of the key file at `path`: never through a link, and only when it
 * and its directory are this user's and not writable by group or others
 * (src/lib/private-fs.ts readPrivateFile); an ENOENT error when there is none.
 */
export function readKeyText(path: string): string {
  const text = readPrivateFile(path, dirname(path), 'the key file');
  if (text === undefined) throw Object.assign(new Error(`${path}: no such file`), { code: 'ENOENT' });
  return text;
}

/** Loads the key file at `path`, creating it with a fresh random key when absent (see createKeyFile). */
export function loadOrCreateKeyFile(path: string): Buffer {
  const text = readPrivateFile(path, dirname(path), 'the key file');
  return text === undefined ? createKeyFile(path) : parseKey(text);
}

/**
 * Creates the key file at `path` (mode 0600, in a 0700 directory) with a
 * fresh random key unless one exists by then, and returns the key the file
 * holds. Creation is atomic, exclusive and durable (createFileExclusive: a
 * temporary file fsynced, hard-linked into place, the directory fsynced), so
 * processes racing on an empty directory all end up with the same key, and a
 * power loss never leaves an empty key.
 */
export function createKeyFile(path: string): Buffer {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  createFileExclusive(path, randomBytes(32).toString('base64url') + '\n');
  return parseKey(readKeyText(path));
}
