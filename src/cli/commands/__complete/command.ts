// agctl __complete: the declaration. Hidden (from help and from completion
// itself): the completion scripts call `agctl __complete -- <words...>` for the
// values only the program knows (after `--`, every word reaches it as typed,
// flags included). Unlike other commands it runs without a command context,
// which would report a bad setting as an error: a completion stays silent.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { Command } from '../../declare.js';

export const COMPLETE_COMMAND = '__complete';

/** What run.ts exports. */
export interface CompleteRun {
  run(words: string[], cmd: CommandUnknownOpts): Promise<void>;
}

/** The declaration, running `load()`'s run (imported only when it runs). */
export const complete = (load: () => Promise<CompleteRun>) =>
  new Command(COMPLETE_COMMAND)
    .description('Print the completions of a command line (for the completion scripts)')
    .argument('[words...]', 'the words after the program name; the last is the one being completed')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (words, _opts, cmd) => (await load()).run(words, cmd));
