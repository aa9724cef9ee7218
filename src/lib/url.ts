// URLs in messages: what a user typed may carry a password and may not parse.

/** What stands in for a hidden secret in anything shown or logged. */
export const REDACTED = '<redacted>';

/** Whether `s` starts with a URL scheme and `//` (`https://…`, `http://…`): a URL, not a host, ID or path. */
export const hasScheme = (s: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(s);

/** A URL-like string for an error message, with any user:password@ part hidden (the string may not parse as a URL). */
export function hideUserinfo(s: string): string {
  return s.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, `$1${REDACTED}@`);
}
