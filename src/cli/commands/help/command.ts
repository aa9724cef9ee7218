// agctl help: the declaration.
import { Command, type Input } from '../../declare.js';

/** `agctl help <topic>`: the topics that are not commands, with what they print (also offered by completions). */
export const HELP_TOPICS: readonly (readonly [name: string, description: string])[] = [
  ['exit-codes', 'the exit codes and what they mean'],
  ['environment', 'the environment variables agctl reads'],
];

/** The declaration; its run is ./run.ts, imported when it runs (see the group's file in src/cli/tree/). */
export const help = () =>
  new Command('help')
    .description(`Show help for a command, or a topic: ${HELP_TOPICS.map(([t]) => t).join(', ')}`)
    .argument('[topic...]', 'command path or topic');

export type HelpInput = Input<ReturnType<typeof help>>;
