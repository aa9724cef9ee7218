import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Command } from 'commander';
import { EXIT_CODE_TABLE, EXIT_NAMES, UsageError } from '../../../lib/exit.js';
import type { CommandContext } from '../../context.js';
import { environment, environmentLine, wrapWords } from '../../environment.js';
import { HELP_TOPICS, type HelpInput } from './command.js';

/** How an error reads with -o json (the shape is `JsonError` in src/lib/exit.ts). */
const JSON_ERRORS = [
  'With -o json (or --jq) an error is one JSON object on stderr, and the exit code as above:',
  '  {"error":{"code":"not_found","message":"...","hint":null,"exitCode":5,"status":404,"details":[]}}',
  "  code     a string: the service's error code when it sent one (a gRPC code name such as",
  '           not_found or failed_precondition, or an OAuth error such as invalid_client),',
  '           else the kind of exit code:',
  ...wrapWords(Object.values(EXIT_NAMES).join(', '), 80, 11),
  '  hint     what to do next, or null',
  '  status   the HTTP status that caused the error, or null',
  '  details  the error details the service sent (an array)',
];

export async function run({ args: [topic = []] }: HelpInput, ctx: CommandContext, cmd: CommandUnknownOpts): Promise<number> {
  const program = cmd.parent!;
  const [first] = topic;
  if (first === 'exit-codes') {
    ctx.out.print('Exit codes:');
    const width = Math.max(...EXIT_CODE_TABLE.map(([code]) => String(code).length));
    for (const [code, meaning] of EXIT_CODE_TABLE) ctx.out.print(`  ${String(code).padStart(width)}  ${meaning}`);
    ctx.out.print();
    for (const line of JSON_ERRORS) ctx.out.print(line);
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
    if (!next)
      throw new UsageError(
        `no help topic or command "${topic.join(' ')}"`,
        `topics: ${HELP_TOPICS.map(([t]) => t).join(', ')}; or a command such as \`agctl help rules list\``,
      );
    shown = next;
  }
  shown.outputHelp();
  return 0;
}
