import type { Command } from 'commander';
import { UsageError } from '../../../lib/exit.js';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { SHELLS } from '../../completion.js';
import type { CommandContext } from '../../context.js';
import { SHELL_NAMES, type CompletionInput, type ShellName } from './command.js';

const isShell = (s: string): s is ShellName => (SHELL_NAMES as readonly string[]).includes(s);

export async function run({ args: [shell] }: CompletionInput, ctx: CommandContext, cmd: CommandUnknownOpts): Promise<number> {
  if (!isShell(shell))
    throw new UsageError(`unsupported shell "${shell}"`, `use ${SHELL_NAMES.slice(0, -1).join(', ')} or ${SHELL_NAMES.at(-1)}`);
  ctx.io.stdout.write(SHELLS[shell](cmd.parent as unknown as Command));
  return 0;
}
