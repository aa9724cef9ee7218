// Flag parsers every declaration may use, and the paging flags of list commands
// (they import commander only).
import { InvalidArgumentError } from 'commander';
import { Option } from '../declare.js';

/**
 * Parses a positive whole number option value, at most `max`. The error names
 * the bound a person would: "from 1 to 250", or "1 or more" for a flag with no
 * bound of its own (a number past what JavaScript holds exactly is refused as
 * too large, not with that number spelt out).
 */
export function positiveInt(name: string, max?: number) {
  const limit = max ?? Number.MAX_SAFE_INTEGER;
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1)
      throw new InvalidArgumentError(`${name} must be a whole number ${max === undefined ? '1 or more' : `from 1 to ${max}`}`);
    if (Number(v) > limit)
      throw new InvalidArgumentError(max === undefined ? `${name} is too large` : `${name} must be a whole number from 1 to ${max}`);
    return Number(v);
  };
}

/** Collects a repeatable option into an array. */
export function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

/** An option that may be given once (`why`: what a second one could not mean); a second is refused, not silently kept over the first. */
export function once(name: string, why: string) {
  return (v: string, prev: string | undefined): string => {
    if (prev !== undefined) throw new InvalidArgumentError(`${name} may be given once: ${why}`);
    return v;
  };
}

/** `--limit <n>`: a list command stops after this many `things` (every page followed until then). */
export const limitOption = (things: string) =>
  new Option('--limit <n>', `stop after this many ${things}`).argParser(positiveInt('--limit'));

/** `--page-size <n>`: how many `things` a list command asks for in one request, 1 to `max`. */
export const pageSizeOption = (things: string, max: number) =>
  new Option('--page-size <n>', `${things} per request, 1 to ${max}`).argParser(positiveInt('--page-size', max));
