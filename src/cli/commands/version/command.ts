// agctl version: the declaration.
import { Command, type Input } from '../../declare.js';
import { helpText } from '../../help-text.js';

export const command = () =>
  new Command('version')
    .description('Show the version of agctl, Node.js and the platform')
    .addHelpText('after', () => helpText('`agctl --version` prints the version alone.', ['agctl version', 'agctl version -o json']));

export type VersionInput = Input<ReturnType<typeof command>>;
