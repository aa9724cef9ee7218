// Parses a raw HTTP/1.x request as captured (request line, headers, blank
// line, body) into what the verification pipeline needs, keeping the body's
// exact bytes.
import { HTTP_TOKEN } from '../../../lib/net.js';

export interface CapturedRequest {
  method?: string;
  /** The request target (path and query), when the capture has a request line. */
  target?: string;
  /** Lower-case names; repeated headers combined as node:http combines them (see `addHeader`). */
  headers: Record<string, string>;
  body: Buffer;
  /** Notes about how the body was delimited. */
  notes: string[];
  /**
   * How the server's HTTP layer would refuse this request before any webhook
   * check, if it would: 400 for ambiguous framing or a malformed header line,
   * 431 for a header section larger than node:http accepts.
   */
  refused?: { status: 400 | 431; reason: string };
}

export class CaptureError extends Error {}

const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/\d(?:\.\d)?$/;
/** node:http's default limit on the request line and headers together (its `maxHeaderSize`). */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Headers whose repeats node:http drops, keeping the first value (its
 * IncomingMessage rules); every other repeated header is joined with ", ".
 */
const FIRST_WINS = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/** Adds one header the way node:http does, so verify judges what the listener would see. */
export function addHeader(headers: Record<string, string>, name: string, value: string): void {
  const prev = headers[name];
  if (prev === undefined) headers[name] = value;
  else if (FIRST_WINS.has(name)) return;
  else headers[name] = `${prev}${name === 'cookie' ? '; ' : ', '}${value}`;
}

function findHeaderEnd(buf: Buffer): { end: number; sep: number } | null {
  const crlf = buf.indexOf('\r\n\r\n');
  const lf = buf.indexOf('\n\n');
  if (crlf < 0 && lf < 0) return null;
  if (lf >= 0 && (crlf < 0 || lf < crlf)) return { end: lf, sep: 2 };
  return { end: crlf, sep: 4 };
}

function decodeChunked(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const eol = buf.indexOf('\n', pos);
    if (eol < 0) throw new CaptureError('chunked body: a chunk size line is missing');
    const sizeText = buf.subarray(pos, eol).toString('latin1').replace(/\r$/, '').split(';')[0]!.trim();
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) throw new CaptureError(`chunked body: "${sizeText}" is not a chunk size`);
    const size = parseInt(sizeText, 16);
    pos = eol + 1;
    if (size === 0) return Buffer.concat(parts);
    if (pos + size > buf.length) throw new CaptureError('chunked body: a chunk is shorter than its size');
    parts.push(buf.subarray(pos, pos + size));
    pos += size;
    if (buf[pos] === 0x0d) pos++;
    if (buf[pos] === 0x0a) pos++;
  }
}

export function parseCapturedRequest(raw: Buffer): CapturedRequest {
  const split = findHeaderEnd(raw);
  if (!split) throw new CaptureError('no blank line between the headers and the body');
  const lines = raw.subarray(0, split.end).toString('latin1').split(/\r?\n/);
  const out: CapturedRequest = { headers: {}, body: raw.subarray(split.end + split.sep), notes: [] };
  const refuse = (reason: string) => (out.refused ??= { status: 400, reason });
  if (split.end > MAX_HEADER_BYTES) {
    out.refused = {
      status: 431,
      reason: `the request line and headers take ${split.end} bytes, more than the ${MAX_HEADER_BYTES} node:http accepts`,
    };
  }
  const first = lines[0] ?? '';
  const m = REQUEST_LINE.exec(first);
  if (m) {
    out.method = m[1];
    out.target = m[2];
    lines.shift();
  }
  let lengths = 0;
  // Lines are named by number, never quoted: a header line may carry a credential.
  const lineNo = (k: number) => k + 1 + (m ? 1 : 0);
  for (const [k, line] of lines.entries()) {
    if (/^[ \t]/.test(line)) {
      refuse(`header line ${lineNo(k)} continues the previous one (obsolete line folding)`);
      continue;
    }
    const i = line.indexOf(':');
    if (i <= 0)
      throw new CaptureError(`line ${lineNo(k)} is not a header line (${i === 0 ? 'it has no name before the colon' : 'it has no colon'})`);
    const name = line.slice(0, i);
    if (!HTTP_TOKEN.test(name)) {
      refuse(
        `the header name ${JSON.stringify(name.slice(0, 60))} is not a valid token${/\s$/.test(name) ? ' (no space is allowed before the colon)' : ''}`,
      );
      continue;
    }
    const lower = name.toLowerCase();
    if (lower === 'content-length') lengths++;
    addHeader(out.headers, lower, line.slice(i + 1).trim());
  }
  if (split.sep === 2) out.notes.push('the capture uses bare LF line endings; on the wire the service requires CRLF');
  const te = out.headers['transfer-encoding'];
  const cl = out.headers['content-length'];
  if (lengths > 1) refuse('Content-Length is repeated');
  if (te !== undefined && cl !== undefined) refuse('the request has both Transfer-Encoding and Content-Length');
  if (te !== undefined) {
    if (!/(?:^|,)\s*chunked\s*$/i.test(te)) {
      refuse(`Transfer-Encoding "${te.slice(0, 60)}" does not end with chunked`);
      return out;
    }
    out.body = decodeChunked(out.body);
    out.notes.push(`chunked body decoded: ${out.body.length} bytes`);
  } else if (cl !== undefined) {
    if (!/^\d+$/.test(cl)) {
      refuse(`Content-Length "${cl.slice(0, 40)}" is not a number`);
      return out;
    }
    const n = Number(cl);
    if (out.body.length < n) throw new CaptureError(`the captured body has ${out.body.length} bytes, fewer than its Content-Length ${n}`);
    if (out.body.length > n) out.notes.push(`${out.body.length - n} bytes after the Content-Length of ${n} were ignored`);
    out.body = out.body.subarray(0, n);
  } else {
    out.notes.push(`no Content-Length: the body is the rest of the capture (${out.body.length} bytes)`);
  }
  return out;
}
