import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Command } from 'commander';
import { EXIT_CODE_TABLE, UsageError } from '../../../lib/exit.js';
import type { CommandContext } from '../../context.js';
import { environment, environmentLine } from '../../environment.js';
import { HELP_TOPICS, type HelpInput } from './command.js';

export async function run({ args: [topic = []] }: HelpInput, ctx: CommandContext, cmd: CommandUnknownOpts): Promise<number> {
  const program = cmd.parent!;
  const [first] = topic;
  if (first === 'exit-codes') {
    ctx.out.print('Exit codes:');
    for (const [code, meaning] of EXIT_CODE_TABLE) ctx.out.print(`  ${String(code).padStart(2)}  ${meaning}`);
    return 0;
  }
  if (first === 'environment') {
    ctx.out.print('Environment variables (precedence: flag > env > profile > default):');
    const vars = environment(program as unknown as Command);
    const width = Math.max(...vars.map((v) => v.name.length)) + 2;
    for (const e of vars) ctx.out.print(`  ${e.name.padEnd(width)}${environmentLine(e)}`);
    return 0;
  }
  let shown = program;
  for (const name of topic) {
    const next = shown.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!next) throw new UsageError(`no help topic or command "${topic.join(' ')}"`, `topics: ${HELP_TOPICS.map(([t]) => t).join(', ')}; or a command such as \`agctl help rules list\``);
    shown = next;
  }
  shown.outputHelp();
  return 0;
}
