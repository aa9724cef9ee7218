// help topics and shell completion.
import type { Command } from 'commander';
import { lazyAction } from './util.js';

/** `agctl help <topic>`: the topics that are not commands, with what they print (also offered by completions). */
export const HELP_TOPICS: readonly (readonly [name: string, description: string])[] = [
  ['exit-codes', 'the exit codes and what they mean'],
  ['environment', 'the environment variables agctl reads'],
];

export function register(program: Command): void {
  program
    .command('help')
    .description(`Show help for a command, or a topic: ${HELP_TOPICS.map(([t]) => t).join(', ')}`)
    .argument('[topic...]', 'command path or topic')
    .action(lazyAction(() => import('../commands/help.js'), ([topic], _o, cmd) => ({ topic: (topic as string[]) ?? [], program: cmd.parent as Command })));

  program
    .command('completion')
    .description('Print a shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      `
Examples:
  $ agctl completion bash > /etc/bash_completion.d/agctl
  $ agctl completion zsh > "\${fpath[1]}/_agctl"
  $ agctl completion fish > ~/.config/fish/completions/agctl.fish`,
    )
    .action(lazyAction(() => import('../commands/completion.js'), ([shell], _o, cmd) => ({ shell: shell as string, program: cmd.parent as Command })));
}
