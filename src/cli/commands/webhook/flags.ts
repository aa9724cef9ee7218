// What the webhook commands' declarations share (cheap to import: commander only).
import type { AUTH_METHODS } from '../../../api/webhook-listeners.js';
import type { JwtAlgorithm } from '../../../webhook/sign.js';
import { InvalidArgumentError, type EnvVar } from '../../declare.js';

/** Parses a Unix time in seconds. */
export const unixSeconds =
  (name: string) =>
  (v: string): number => {
    if (!/^\d{1,12}$/.test(v)) throw new InvalidArgumentError(`${name} must be a Unix time in seconds`);
    return Number(v);
  };

/**
 * Load mode takes the listener as down, and stops, when DOWN_ATTEMPTS
 * attempts in a row, or every attempt for DOWN_MS, got no HTTP answer
 * (refused, reset, timed out, unreachable): from the start of the run, or
 * since the listener last answered.
 */
export const DOWN_ATTEMPTS = 20;
export const DOWN_MS = 1000;

/** Parses a positive number of seconds (decimals allowed: 0.5), at most `max`. */
export const positiveSeconds =
  (name: string, max: number) =>
  (v: string): number => {
    const n = Number(v);
    if (!/^\d+(?:\.\d+)?$/.test(v.trim()) || !(n >= 0.001) || n > max)
      throw new InvalidArgumentError(`${name} must be a number of seconds from 0.001 to ${max}`);
    return n;
  };

/**
 * The JWT algorithms a listener key can use, in the order help shows them: the
 * same set as JWT_ALGORITHMS of src/webhook/sign.ts (which loads jose), as the
 * compiler checks here.
 */
export const JWT_ALGS = ['ES256', 'RS256', 'EdDSA'] as const satisfies readonly JwtAlgorithm[];
const everyAlgorithm: Exclude<JwtAlgorithm, (typeof JWT_ALGS)[number]> extends never ? true : false = true;
void everyAlgorithm;

export const WEBHOOK_SECRET_ENV: EnvVar = {
  name: 'AGCTL_WEBHOOK_SECRET',
  meaning: 'HMAC signing secret for webhook send and verify, and for webhook listeners create',
};

/**
 * Parses a flag whose values are `choices` in any case (es256, ES256), giving
 * the canonical spelling; declare the choices with completeWith so that
 * completion offers the canonical spellings.
 */
export const anyCase =
  <T extends string>(choices: readonly T[]) =>
  (v: string): T => {
    const hit = choices.find((c) => c.toLowerCase() === v.trim().toLowerCase());
    if (hit === undefined) throw new InvalidArgumentError(`Allowed choices are ${choices.join(', ')} (in any case).`);
    return hit;
  };

/** Said in the help of the commands that use the embedded server's own listener routes. */
export const EMBEDDED_ONLY = `Listeners are managed through routes of the embedded server (agctl serve, or
--embedded) under /_embedded/v1/, not routes of the service: on a tenant,
listeners are set up with the automation's webhook trigger in its web app.`;

/**
 * The authentication methods of a listener, in the order help shows them: the
 * same set as AUTH_METHODS of src/api/webhook-listeners.ts (not imported at run
 * time: this file is on the path of --help), as the compiler checks here.
 */
export const LISTENER_AUTH = ['HMAC', 'JWT'] as const satisfies readonly (typeof AUTH_METHODS)[number][];
const everyAuthMethod: Exclude<(typeof AUTH_METHODS)[number], (typeof LISTENER_AUTH)[number]> extends never ? true : false = true;
void everyAuthMethod;
