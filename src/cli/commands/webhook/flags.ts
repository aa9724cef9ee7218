// What the webhook commands' declarations share (cheap to import: commander only).
import type { JwtAlgorithm } from '../../../webhook/sign.js';
import { InvalidArgumentError, type EnvVar } from '../../declare.js';

/** Parses a Unix time in seconds. */
export const unixSeconds = (name: string) => (v: string): number => {
  if (!/^\d{1,12}$/.test(v)) throw new InvalidArgumentError(`${name} must be a Unix time in seconds`);
  return Number(v);
};

/**
 * The JWT algorithms a listener key can use, in the order help shows them: the
 * same set as JWT_ALGORITHMS of src/webhook/sign.ts (which loads jose), as the
 * compiler checks here.
 */
export const JWT_ALGS = ['ES256', 'RS256', 'EdDSA'] as const satisfies readonly JwtAlgorithm[];
const everyAlgorithm: Exclude<JwtAlgorithm, (typeof JWT_ALGS)[number]> extends never ? true : false = true;
void everyAlgorithm;

export const WEBHOOK_SECRET_ENV: EnvVar = { name: 'AGCTL_WEBHOOK_SECRET', meaning: 'HMAC signing secret for webhook send/verify' };
