// agctl version: the declaration.
import { Command, helpText, type Input } from '../../declare.js';

/** The declaration; its run is ./run.ts, imported when it runs (see the group's file in src/cli/tree/). */
export const versionCommand = () =>
  new Command('version')
    .description('Show the version of agctl, Node.js and the platform')
    .addHelpText('after', () => helpText('`agctl --version` prints the version alone.', ['agctl version', 'agctl version -o json']));

export type VersionInput = Input<ReturnType<typeof versionCommand>>;
