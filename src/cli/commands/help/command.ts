// agctl help: the declaration.
import { Command, printsTextOnly, type Input } from '../../declare.js';

/** `agctl help <topic>`: the topics that are not commands, with what they print (also offered by completions). */
export const HELP_TOPICS: readonly (readonly [name: string, description: string])[] = [
  ['exit-codes', 'the exit codes and what they mean'],
  ['environment', 'the environment variables agctl reads'],
];

/** It prints no JSON (so --jq is refused). */
export const command = () =>
  printsTextOnly(
    new Command('help')
      .description(`Show help for a command, or a topic: ${HELP_TOPICS.map(([t]) => t).join(', ')}`)
      .argument('[topic...]', 'command path or topic'),
  );

export type HelpInput = Input<ReturnType<typeof command>>;
