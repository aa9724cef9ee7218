// What the webhook commands' declarations share (cheap to import: commander only).
import { InvalidArgumentError, type EnvVar } from '../../declare.js';

/** Parses a Unix time in seconds. */
export const unixSeconds = (name: string) => (v: string): number => {
  if (!/^\d{1,12}$/.test(v)) throw new InvalidArgumentError(`${name} must be a Unix time in seconds`);
  return Number(v);
};

/** The JWT algorithms a listener key can use. */
export const JWT_ALGS = ['ES256', 'RS256', 'EdDSA'] as const;

export const WEBHOOK_SECRET_ENV: EnvVar = { name: 'AGCTL_WEBHOOK_SECRET', meaning: 'HMAC signing secret for webhook send/verify' };
