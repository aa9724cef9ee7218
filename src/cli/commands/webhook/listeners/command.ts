// agctl webhook listeners: the sub-group (its commands: ./subcommands.ts).
import { Command } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { EMBEDDED_ONLY } from '../flags.js';

export const command = () =>
  new Command('listeners')
    .helpCommand(false)
    .description("List and create the embedded server's webhook listeners (embedded-server routes, not the service's)")
    .addHelpText('after', () =>
      helpText(EMBEDDED_ONLY, [
        'agctl --embedded webhook listeners list',
        'agctl webhook listeners create --auth-method hmac --secret-out listener.secret',
      ]),
    );
