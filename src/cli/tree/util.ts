// Flag parsers every declaration may use (they import commander only).
import { InvalidArgumentError } from 'commander';

/** Parses a positive integer option value. */
export function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max}`);
    return Number(v);
  };
}

/** Collects a repeatable option into an array. */
export function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}
