import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/lib/exit.js';
import { cleanSecret } from '../../../src/lib/secret-text.js';

describe('cleanSecret', () => {
  it('drops the spaces, tabs, CR and LF around a secret (and a byte-order mark)', () => {
    for (const raw of ['s3cret', 's3cret ', 's3cret \r\n', '\ts3cret\t', ' \r\n s3cret \n\n', '\ufeffs3cret\r\n'])
      expect(cleanSecret(raw, 'client secret')).toBe('s3cret');
  });

  it('refuses whitespace or a control character inside, naming the secret and its source but never echoing it', () => {
    for (const raw of ['Qz7 x9K', 'Qz7\tx9K', 'Qz7\r\nx9K', 'Qz7\u00a0x9K', 'Qz7\u0000x9K', ' Qz7 x9K \r\n']) {
      let err: unknown;
      try {
        cleanSecret(raw, 'client secret', '--client-secret-file');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UsageError);
      const e = err as UsageError;
      expect(e.message).toBe(
        'the client secret from --client-secret-file has whitespace or a control character inside it (a space, tab or line break between its characters)',
      );
      expect(e.hint).toMatch(/copied whole/);
      expect(`${e.message} ${e.hint}`).not.toMatch(/Qz7|x9K/);
    }
  });
});
