// agctl completion: the declaration.
import { Argument, Command, completeWith, readsEnv, printsTextOnly, type Input } from '../../declare.js';
import { helpText } from '../../help-text.js';

/** The shells `agctl completion` writes a script for. */
export const SHELL_NAMES = ['bash', 'zsh', 'fish'] as const;
export type ShellName = (typeof SHELL_NAMES)[number];

/** It prints no JSON (so --jq is refused). */
export const command = () =>
  printsTextOnly(
    readsEnv(
      new Command('completion')
        .description('Print a shell completion script')
        .addArgument(completeWith(new Argument('<shell>', 'bash, zsh or fish'), SHELL_NAMES))
        .addHelpText('after', () =>
          helpText(
            `The scripts complete commands, flags and fixed values themselves, and ask
agctl for the rest: profile names (--profile, auth switch), rule IDs and MCP
connector IDs after an app ID, open task IDs, and the webhook listener IDs of
an embedded server, read with the profile's cached token only (no login, no
prompt). An answer that would take more than 0.3 s from agctl's start offers
nothing (AGCTL_COMPLETE_BUDGET_MS widens that on a slow machine). An ID is
inserted quoted, never run by the shell; one with a control, bidi or invisible
character, or starting with -, is not offered.`,
            [
              'agctl completion bash > /etc/bash_completion.d/agctl',
              // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's own expansion, printed for the user to run
              'agctl completion zsh > "${fpath[1]}/_agctl"',
              'agctl completion fish > ~/.config/fish/completions/agctl.fish',
            ],
          ),
        ),
      {
        name: 'AGCTL_COMPLETE_BUDGET_MS',
        meaning:
          'completion scripts: ms from start within which agctl answers with IDs from the service, else offers nothing (default 300, at most 60000)',
      },
    ),
  );

export type CompletionInput = Input<ReturnType<typeof command>>;
