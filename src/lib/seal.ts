// AES-256-GCM sealing of secrets at rest, shared by the embedded server's store
// and the CLI's credential/token files. Each value gets a random 96-bit nonce;
// the additional data binds a sealed value to where it belongs, so a sealed
// value copied to another row or field does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
 * does not own (EPERM) is left as it is.
 */
export function keepPrivate(path: string, mode = 0o600): void {
  try {
    chmodSync(path, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
  }
}

/** Loads the key file at `path`, creating it with a fresh random key when absent (see createKeyFile). */
export function loadOrCreateKeyFile(path: string): Buffer {
  try {
    const key = parseKey(readFileSync(path, 'utf8'));
    keepPrivate(path);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return createKeyFile(path);
}

/**
 * Creates the key file at `path` (mode 0600, in a 0700 directory) with a
 * fresh random key unless one exists by then, and returns the key the file
 * holds. Creation is atomic and exclusive: the file is written under a
 * temporary name and hard-linked into place, so processes racing on an empty
 * directory all end up with the same key.
 */
export function createKeyFile(path: string): Buffer {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = join(dirname(path), `.key-${process.pid}-${randomBytes(6).toString('hex')}`);
  writeFileSync(tmp, randomBytes(32).toString('base64url') + '\n', { mode: 0o600 });
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
  chmodSync(path, 0o600);
  return parseKey(readFileSync(path, 'utf8'));
}
