// A test certificate authority and a server certificate it signs, made at
// test time with node:crypto alone (P-256 keys, ECDSA with SHA-256; the X.509
// DER written here, as node:crypto reads certificates but does not make them).
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';

// --- DER ------------------------------------------------------------------

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...content: Buffer[]) => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
};
const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
const explicit = (n: number, ...c: Buffer[]) => tlv(0xa0 + n, ...c);
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer) => tlv(0x03, Buffer.from([0]), b);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const integer = (b: Buffer) => tlv(0x02, b[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [a! * 40 + b!];
  for (const n of rest) {
    const enc: number[] = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) enc.unshift((v & 0x7f) | 0x80);
    out.push(...enc);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime YYMMDDHHMMSSZ (years 1950 to 2049). */
function utcTime(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  return tlv(0x17, Buffer.from(s, 'ascii'));
}

const name = (cn: string) => seq(set(seq(oid('2.5.4.3'), utf8(cn))));
const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
const extension = (id: string, critical: boolean, value: Buffer) => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

function certificate(o: { subject: string; issuer: string; publicKey: KeyObject; signer: KeyObject; extensions: Buffer[] }): string {
  const now = Date.now();
  const tbs = seq(
    explicit(0, tlv(0x02, Buffer.from([2]))),
    integer(randomBytes(12)),
    ecdsaSha256,
    name(o.issuer),
    seq(utcTime(new Date(now - 3600_000)), utcTime(new Date(now + 86400_000))),
    name(o.subject),
    o.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, seq(...o.extensions)),
  );
  const der = seq(tbs, ecdsaSha256, bits(sign('sha256', tbs, o.signer)));
  return `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END CERTIFICATE-----\n`;
}

export interface TestPki {
  /** The authority's certificate (PEM): what a client trusts (NODE_EXTRA_CA_CERTS). */
  caCert: string;
  /** The server's certificate (PEM) for `hostname`, and its private key (PEM). */
  cert: string;
  key: string;
}

/** A new authority and a certificate it signs for `hostname` (a DNS name), valid from an hour ago for a day. */
export function testPki(hostname: string): TestPki {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const leaf = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caName = `agctl test authority ${randomBytes(4).toString('hex')}`;
  const caCert = certificate({
    subject: caName,
    issuer: caName,
    publicKey: ca.publicKey,
    signer: ca.privateKey,
    extensions: [
      extension('2.5.29.19', true, seq(bool(true))), // basicConstraints: CA
      extension('2.5.29.15', true, bits(Buffer.from([0x06]))), // keyUsage: keyCertSign, cRLSign
    ],
  });
  const cert = certificate({
    subject: hostname,
    issuer: caName,
    publicKey: leaf.publicKey,
    signer: ca.privateKey,
    extensions: [
      extension('2.5.29.19', true, seq()), // not a CA
      extension('2.5.29.15', true, bits(Buffer.from([0x80]))), // keyUsage: digitalSignature
      extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
      extension('2.5.29.17', false, seq(tlv(0x82, Buffer.from(hostname, 'ascii')))), // subjectAltName: dNSName
    ],
  });
  // Both parse, and the server's is signed by the authority.
  if (!new X509Certificate(cert).verify(new X509Certificate(caCert).publicKey)) throw new Error('test certificate does not verify');
  const key = createPrivateKey(leaf.privateKey.export({ type: 'pkcs8', format: 'pem' })).export({ type: 'pkcs8', format: 'pem' }) as string;
  return { caCert, cert, key };
}
