// agctl completion: the declaration (its run is in ./run.ts, loaded when it runs).
import { Argument, Command, completeWith, helpText, lazyRun, type Input } from '../../declare.js';

/** The shells `agctl completion` writes a script for. */
export const SHELL_NAMES = ['bash', 'zsh', 'fish'] as const;
export type ShellName = (typeof SHELL_NAMES)[number];

const declare = () =>
  new Command('completion')
    .description('Print a shell completion script')
    .addArgument(completeWith(new Argument('<shell>', 'bash, zsh or fish'), SHELL_NAMES))
    .addHelpText(
      'after',
      helpText('', [
        'agctl completion bash > /etc/bash_completion.d/agctl',
        'agctl completion zsh > "${fpath[1]}/_agctl"',
        'agctl completion fish > ~/.config/fish/completions/agctl.fish',
      ]),
    );

export type CompletionInput = Input<ReturnType<typeof declare>>;

export const completion = () => lazyRun(declare(), () => import('./run.js'));
