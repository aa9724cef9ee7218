// Redaction for --debug logs and --dry-run output: secrets never reach a terminal or a log.
import { schemaSecretFields, schemaSecretMaps } from '../api/secret-fields.js';
import { REDACTED } from '../lib/url.js';
import { checkJsonDepth, nestsDeeperThan, MAX_JSON_DEPTH } from '../lib/json-depth.js';
import { isJsonObject } from '../lib/json.js';

export { REDACTED };

/**
 * Header names whose values are secrets: Authorization, Proxy-Authorization,
 * Cookie, Set-Cookie, Webhook-Signature, X-Api-Key, and custom headers
 * (`webhook send -H`) whose names suggest a secret.
 */
const SECRET_HEADER_NAME = /auth|token|secret|api-?key|signature|session|cookie|passw|credential/i;

/**
 * Field names (form or JSON, any depth) whose values are secrets and that no
 * wire schema marks: the token flow's own fields, stored access tokens,
 * webhook signing keys and private JWK members. The secret fields of the API
 * requests are named in src/api/secret-fields.ts (their schemas mark them from
 * there), so redaction never depends on which command loaded a schema.
 */
const OTHER_SECRET_FIELDS = new Set([
  'client_secret',
  'client_assertion',
  'access_token',
  'refresh_token',
  'id_token',
  'assertion',
  'accessToken',
  'secret',
  'hmacSecret',
  'privateKey',
  'private_key',
  'd',
]);

const isSecretField = (name: string): boolean => OTHER_SECRET_FIELDS.has(name) || schemaSecretFields.has(name);

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (SECRET_HEADER_NAME.test(k) && v !== undefined) {
      const first = Array.isArray(v) ? (v[0] ?? '') : v;
      const scheme = /^(Bearer|Basic)\s/i.exec(first)?.[1];
      out[k] = scheme ? `${scheme} ${REDACTED}` : REDACTED;
    } else out[k] = v;
  }
  return out;
}

export function redactForm(body: string): string {
  return [...new URLSearchParams(body)].map(([k, v]) => `${k}=${isSecretField(k) ? REDACTED : encodeURIComponent(v)}`).join('&');
}

/** Deep copy of a JSON value with secret fields replaced; a value that nests too deep is an error (exit 9). */
export function redactJson(value: unknown): unknown {
  return redact(checkJsonDepth(value), false);
}

function redact(value: unknown, inSecretMap: boolean): unknown {
  // A secret map's mark covers its own string values, never the members of objects in a list under that name
  // (a catalog entry's field list names fields; their names are not secrets).
  if (Array.isArray(value)) return value.map((v) => (inSecretMap && typeof v === 'string' ? REDACTED : redact(v, false)));
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      let r: unknown;
      if (inSecretMap && typeof v === 'string') r = REDACTED;
      else if (isSecretField(k) && (typeof v === 'string' || (v && typeof v === 'object'))) r = REDACTED;
      else r = redact(v, schemaSecretMaps.has(k));
      // Defined, not assigned: a member named `__proto__` (JSON.parse makes it an own member) stays a member.
      Object.defineProperty(out, k, { value: r, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/**
 * Redacts a body for logging. A body that parses as JSON is redacted as JSON
 * and a form body (`name=value` pairs) as a form, whatever the content type
 * says (a sender may label a JSON body as a form); anything else is
 * summarised, never shown.
 */
export function redactBody(body: string | Buffer | undefined, contentType: string | undefined): string {
  if (body === undefined || body.length === 0) return '';
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const type = (contentType ?? '').toLowerCase();
  const json = parseJson(text);
  if (json !== undefined && nestsDeeperThan(json))
    return `<${Buffer.byteLength(text)} bytes of JSON nested deeper than ${MAX_JSON_DEPTH} levels, not shown>`;
  if (json !== undefined) return cut(JSON.stringify(redactJson(json)));
  if (FORM.test(text)) return cut(redactForm(text));
  return `<${Buffer.byteLength(text)} bytes of ${type || 'unknown type'}, not shown>`;
}

/** A logged body: its first 4 KB, and its length when longer. */
const cut = (s: string) => (s.length > 4096 ? `${s.slice(0, 4096)}... (${s.length} bytes)` : s);

/** `name=value` pairs joined by `&`: what a form body is (a text without `=` in each pair is not one). */
const FORM = /^[^&=\s]+=[^&\s]*(&[^&=\s]+=[^&\s]*)*$/;

/** The JSON value of a text that is a JSON object or array, else undefined. */
function parseJson(text: string): unknown {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
