// Input helpers shared by the webhook commands: bodies, headers, secrets.
import { UsageError } from '../../../lib/exit.js';
import { HTTP_TOKEN } from '../../../lib/net.js';
import type { CommandContext } from '../../context.js';
import { readFileBytes, readStdinBytes as readAllStdin } from '../../io.js';
import { readSecret, missingSecret, type SecretSource } from '../../secrets.js';
import { WEBHOOK_SECRET_ENV } from './flags.js';

/**
 * Bodies and captured requests larger than this are refused while they are
 * read (listeners take 64 KiB; more is allowed so an oversized body can still
 * be sent or judged, and the answer is 413).
 */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** Reads all of stdin as bytes (a body must keep its exact bytes). */
export async function readStdinBytes(ctx: CommandContext, what: string): Promise<Buffer> {
  if (ctx.io.isStdinTTY) throw new UsageError(`expected the ${what} on standard input, but it is a terminal`, 'pipe it in, or pass a file');
  return readAllStdin(ctx.io, what, MAX_INPUT_BYTES);
}

/** A body or captured request from a file: at most MAX_INPUT_BYTES. */
export function readInputFile(path: string, flag: string): Buffer {
  return readFileBytes(path, flag, MAX_INPUT_BYTES);
}

/** The request body from --data, --data-file (or "-") or stdin, as exact bytes. */
export async function readBody(
  ctx: CommandContext,
  o: { data?: string; dataFile?: string; stdinTaken: boolean },
): Promise<{ bytes: Buffer; file?: string }> {
  if (o.data !== undefined && o.dataFile !== undefined) throw new UsageError('use either --data or --data-file, not both');
  if (o.data !== undefined) return { bytes: Buffer.from(o.data, 'utf8') };
  if (o.dataFile !== undefined && o.dataFile !== '-') return { bytes: readInputFile(o.dataFile, '--data-file'), file: o.dataFile };
  if (o.stdinTaken) throw new UsageError('standard input already carries the secret: pass the body with --data or --data-file');
  if (ctx.io.isStdinTTY) throw new UsageError('no request body: pass --data, --data-file, or pipe it on standard input');
  return { bytes: await readStdinBytes(ctx, 'request body') };
}

/** Parses a repeatable `-H 'Name: value'` flag into lower-case names. */
export function parseHeaderFlags(values: string[], flag = '--header'): [string, string][] {
  return values.map((h, n) => {
    const i = h.indexOf(':');
    const name = i >= 0 ? h.slice(0, i).trim() : '';
    if (!HTTP_TOKEN.test(name)) {
      // Not quoted: a malformed header is often a credential with its colon missing.
      const why =
        i < 0
          ? 'it has no colon'
          : name === ''
            ? 'it has no name before the colon'
            : 'the name before the colon is not a valid header name';
      throw new UsageError(`${flag} number ${n + 1} is not of the form 'Name: value' (${why})`);
    }
    const value = h.slice(i + 1).trim();
    // A header value never holds CR, LF or another control character (RFC 9110 §5.5; tabs are fine).
    // The value is not quoted: it may be a credential.
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
      throw new UsageError(
        `${flag} ${name}: a header value cannot contain CR, LF or other control characters`,
        "pass one header per flag: -H 'Name: value' -H 'Other: value'",
      );
    }
    return [name.toLowerCase(), value];
  });
}

/** Headers that frame the message or manage the connection: the HTTP client sets them, a -H flag may not. */
const CONNECTION_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/** parseHeaderFlags for a request agctl sends: framing and hop-by-hop headers are refused. */
export function parseSendHeaderFlags(values: string[], flag = '--header'): [string, string][] {
  const headers = parseHeaderFlags(values, flag);
  headers.forEach(([name, value], i) => {
    const given = values[i]!.slice(0, values[i]!.indexOf(':')).trim();
    if (CONNECTION_HEADERS.has(name)) {
      throw new UsageError(`${flag} ${given}: agctl sets the framing and connection headers itself; this one cannot be given`);
    }
    // HTTP/1.1 carries header values as bytes: the client cannot send characters beyond ISO-8859-1.
    if (/[^\u0000-\u00ff]/.test(value))
      throw new UsageError(`${flag} ${given}: a header value cannot contain characters outside ISO-8859-1`);
  });
  return headers;
}

const WEBHOOK_SECRET: Omit<SecretSource, 'stdin' | 'file'> = {
  name: 'webhook signing secret',
  flag: '--secret',
  env: WEBHOOK_SECRET_ENV.name,
  prompt: 'Webhook signing secret',
};

/**
 * The HMAC secret from --secret-stdin, --secret-file, AGCTL_WEBHOOK_SECRET or a prompt; a usage error (with `hint`) when none,
 * which leaves --secret-stdin out when standard input carries something else (`stdinTaken`).
 */
export async function readWebhookSecret(
  ctx: CommandContext,
  o: { secretStdin?: boolean; secretFile?: string; stdinTaken?: boolean },
  hint?: string,
): Promise<string> {
  const src: SecretSource = { ...WEBHOOK_SECRET, stdin: o.secretStdin, file: o.secretFile };
  const secret = await readSecret(ctx, src);
  if (secret === undefined) throw missingSecret(src, hint, { stdinTaken: o.stdinTaken });
  return secret;
}

/** The ranges of a repeatable, comma-separated `--allowed-cidr` flag (as a listener's allowedCidrs list). */
export function allowedRanges(values: string[]): string[] {
  const ranges = values.flatMap((v) => v.split(',')).map((r) => r.trim());
  if (ranges.some((r) => r === ''))
    throw new UsageError('--allowed-cidr: an empty range (a stray comma?)', 'e.g. --allowed-cidr 10.0.0.0/8,192.168.0.0/16');
  return ranges;
}
