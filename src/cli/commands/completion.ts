import type { Command } from 'commander';
import { UsageError } from '../../api/errors.js';
import { SHELLS, type Shell } from '../completion.js';
import type { CommandContext } from '../context.js';

export async function run(opts: { shell: string; program: Command }, ctx: CommandContext): Promise<number> {
  if (!(opts.shell in SHELLS)) throw new UsageError(`unsupported shell "${opts.shell}"`, 'use bash, zsh or fish');
  ctx.io.stdout.write(SHELLS[opts.shell as Shell](opts.program));
  return 0;
}
