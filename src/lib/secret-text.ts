// The whitespace around and inside a secret agctl reads (a client secret, a
// webhook signing secret, a bearer token). Such a secret is one word: the
// spaces, tabs, CR and LF a paste, an editor or `echo` leave around it are
// dropped (as gh does), and whitespace or a control character inside it is
// refused, since no issued secret holds any and a paste that does is broken.
// Values whose whitespace may mean something (a password, a header value, a
// PEM key, a JSON file, a config field) are not handled here: they are taken as
// given, less one trailing line break (src/cli/secrets.ts).
import { UsageError } from './exit.js';

/** Whitespace (Unicode's, CR and LF included) or a control character. */
const INNER = /[\s\p{Cc}]/u;

/**
 * A one-word secret as given, without the whitespace around it; a usage error
 * (exit 2) naming `name` (e.g. "client secret") and `from` (e.g.
 * "--client-secret-file ./s") when whitespace or a control character is left
 * inside. The secret itself is never part of the message.
 */
export function cleanSecret(raw: string, name: string, from?: string): string {
  const value = raw.trim();
  if (INNER.test(value)) {
    throw new UsageError(
      `the ${name}${from ? ` from ${from}` : ''} has whitespace or a control character inside it (a space, tab or line break between its characters)`,
      'a secret is one word: check that it was copied whole (spaces and line breaks around it are ignored)',
    );
  }
  return value;
}
