// Parses a raw HTTP/1.x request as captured (request line, headers, blank
// line, body) into what the verification pipeline needs, keeping the body's
// exact bytes.

export interface CapturedRequest {
  method?: string;
  /** The request target (path and query), when the capture has a request line. */
  target?: string;
  /** Lower-case names; repeated headers joined with ", " as node:http does. */
  headers: Record<string, string>;
  body: Buffer;
  /** Notes about how the body was delimited. */
  notes: string[];
}

export class CaptureError extends Error {}

const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/\d(?:\.\d)?$/;

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
  const first = lines[0] ?? '';
  const m = REQUEST_LINE.exec(first);
  if (m) {
    out.method = m[1];
    out.target = m[2];
    lines.shift();
  }
  let last: string | undefined;
  for (const line of lines) {
    if (/^[ \t]/.test(line) && last) {
      out.headers[last] += ' ' + line.trim();
      continue;
    }
    const i = line.indexOf(':');
    if (i <= 0) throw new CaptureError(`"${line.slice(0, 60)}" is not a header line`);
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    out.headers[name] = out.headers[name] !== undefined ? `${out.headers[name]}, ${value}` : value;
    last = name;
  }
  const te = out.headers['transfer-encoding'];
  const cl = out.headers['content-length'];
  if (te && /chunked/i.test(te)) {
    out.body = decodeChunked(out.body);
    out.notes.push(`chunked body decoded: ${out.body.length} bytes`);
  } else if (cl !== undefined) {
    if (!/^\d+$/.test(cl)) throw new CaptureError(`Content-Length "${cl}" is not a number`);
    const n = Number(cl);
    if (out.body.length < n) throw new CaptureError(`the captured body has ${out.body.length} bytes, fewer than its Content-Length ${n}`);
    if (out.body.length > n) out.notes.push(`${out.body.length - n} bytes after the Content-Length of ${n} were ignored`);
    out.body = out.body.subarray(0, n);
  } else {
    out.notes.push(`no Content-Length: the body is the rest of the capture (${out.body.length} bytes)`);
  }
  return out;
}
