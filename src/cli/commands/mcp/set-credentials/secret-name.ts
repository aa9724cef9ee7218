// Names of config fields and OAuth2 parameters that look like secrets' (mcp set-credentials).

/** Words that make a field's or parameter's name look like a secret's. */
const SECRET_WORDS = new Set([
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'credential',
  'credentials',
  'apikey',
  'authorization',
  'cookie',
  'key',
  'keys',
]);
/** Last words that name something about a secret, not the secret itself: tokenUrl, keyId, secretName. */
const NOT_SECRET_LAST = new Set([
  'url',
  'uri',
  'endpoint',
  'host',
  'id',
  'name',
  'type',
  'mode',
  'count',
  'limit',
  'ttl',
  'expiry',
  'header',
  'file',
  'path',
  'size',
  'length',
]);

/**
 * True when a name looks like a secret's (apiKey, API_KEY, githubToken,
 * clientSecret, password, private_key, ...): a --config value given so is
 * warned about, and the walk-through proposes a hidden value by default.
 */
export function looksSecret(name: string): boolean {
  const words = name
    .split(/[-_.\s]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  if (words.length === 0 || NOT_SECRET_LAST.has(words.at(-1)!)) return false;
  return words.some((w) => SECRET_WORDS.has(w));
}
