// agctl __complete: the declaration. Hidden (from help and from completion
// itself): the completion scripts call `agctl __complete -- <words...>` for the
// values only the program knows (after `--`, every word reaches it as typed,
// flags included). Unlike other commands it runs without a command context,
// which would report a bad setting as an error: a completion stays silent.
import { Command, type Input } from '../../declare.js';

export const COMPLETE_COMMAND = '__complete';

export const command = () =>
  new Command(COMPLETE_COMMAND)
    .description('Print the completions of a command line (for the completion scripts)')
    .argument('[words...]', 'the words after the program name; the last is the one being completed')
    .allowUnknownOption()
    .allowExcessArguments();

export type CompleteInput = Input<ReturnType<typeof command>>;
