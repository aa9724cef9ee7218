// agctl webhook: the group (its commands: ./subcommands.ts).
import { Command } from '../../declare.js';

export const command = () =>
  new Command('webhook').description('Send, verify and prepare keys for inbound webhooks (HMAC or JWT); list listeners and their runs');
