// agctl auth switch: the declaration.
import { Argument, Command, completeWith, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';

export const command = () =>
  new Command('switch')
    .description('Make a saved profile the current one')
    .addArgument(completeWith(new Argument('<profile>', 'name of a saved profile (see `agctl auth list`)'), { dynamic: 'profiles' }))
    .addHelpText('after', () =>
      helpText(
        `
The current profile is used by every command run without --profile or
AGCTL_PROFILE (which still win). An unknown name is a usage error (exit 2)
listing the saved profiles; \`agctl login --profile NAME\` creates one.`,
        ['agctl auth switch ci', 'agctl auth switch default'],
      ),
    );

export type SwitchInput = Input<ReturnType<typeof command>>;
