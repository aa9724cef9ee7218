// agctl webhook listeners: the group (its commands are list/ and create/).
import { Command, helpText } from '../../../declare.js';
import { EMBEDDED_ONLY } from '../flags.js';

export const listeners = () =>
  new Command('listeners')
    .helpCommand(false)
    .description("List and create the embedded server's webhook listeners (embedded-server routes, not the service's)")
    .addHelpText('after', () => helpText(EMBEDDED_ONLY, ['agctl --embedded webhook listeners list', 'agctl webhook listeners create --auth-method hmac --secret-out listener.secret']));
