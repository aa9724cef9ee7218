// The listener's answer to a single send, as shown: its body decoded when the
// listener compressed it. agctl sends no Accept-Encoding, but a server may
// compress anyway (RFC 9110 §12.5.3): gzip, deflate and br are decoded, each
// step stopping at the answer cap (AGCTL_MAX_RESPONSE_BYTES) counted in
// decoded bytes, so a decompression bomb ends at the cap (exit 9); any other
// encoding is named, its bytes not shown.
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';
import type { HttpResponse } from '../../../../client/http.js';
import { CliError, Exit } from '../../../../lib/exit.js';

/** The body to show, or what it was when it is not shown. */
type ShownAnswer = { body: Buffer } | { encoding: string; bytes: number };

const DECODERS: Record<string, (buf: Buffer, opts: ZlibOptions) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  // "deflate" is the zlib format (RFC 9110 §8.4.1.2); some servers send raw deflate, which this tells apart by the zlib header.
  deflate: (buf, opts) => (isZlibHeader(buf) ? inflateSync(buf, opts) : inflateRawSync(buf, opts)),
  br: brotliDecompressSync,
};

/** A zlib stream starts with CMF/FLG: method 8 (deflate) and a check that makes them a multiple of 31. */
const isZlibHeader = (buf: Buffer) => buf.length >= 2 && (buf[0]! & 0x0f) === 8 && ((buf[0]! << 8) | buf[1]!) % 31 === 0;

/** The codings of Content-Encoding, in the order they were applied, lower case, without `identity`. */
function codings(res: HttpResponse): string[] {
  const raw = res.headers['content-encoding'];
  const value = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  return value
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/**
 * The answer's body decoded (the codings undone last first), or, when a
 * coding is not one agctl decodes, the codings and the size of the body as
 * received. A body that grows past `cap` bytes while decoded, or that does not
 * decode, is an error (exit 9).
 */
export function shownAnswer(res: HttpResponse, cap: number, url: string): ShownAnswer {
  const applied = codings(res);
  if (!applied.every((c) => Object.hasOwn(DECODERS, c))) {
    const named = applied.join(', ');
    return { encoding: named.length > 40 ? `${named.slice(0, 39)}…` : named, bytes: res.body.length };
  }
  let body = res.body;
  for (const coding of applied.reverse()) {
    try {
      body = DECODERS[coding]!(body, { maxOutputLength: cap });
    } catch (err) {
      const u = new URL(url);
      if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new CliError(
          `the answer from ${u.origin}${u.pathname} is too large: decoded (Content-Encoding: ${coding}) it goes on past ${cap} bytes, and agctl reads at most that`,
          Exit.Server,
          {
            code: 'response_too_large',
            hint: 'if so large an answer is expected, raise AGCTL_MAX_RESPONSE_BYTES',
          },
        );
      }
      throw new CliError(
        `the answer from ${u.origin}${u.pathname} says Content-Encoding: ${coding}, but its body does not decode as that`,
        Exit.Server,
      );
    }
  }
  return { body };
}

/** What a body not shown is, in words: "answer encoded with zstd, 312 bytes, not shown". */
export const notShown = (a: { encoding: string; bytes: number }) => `answer encoded with ${a.encoding}, ${a.bytes} bytes, not shown`;
