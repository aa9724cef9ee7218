// Small network helpers shared by the CLI and the server.
import { isIP } from 'node:net';

/** True for `localhost`, 127.0.0.0/8 and ::1 (also IPv4-mapped), with or without IPv6 brackets. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (h.toLowerCase() === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:(127\.|7f[0-9a-f]{2}:)/i.test(h);
  return false;
}

/** An HTTP token (RFC 9110 §5.6.2): what a header name must be. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
