// agctl rules: the group (its commands: ./subcommands.ts).
import { Command } from '../../declare.js';

export const command = () => new Command('rules').description("Manage an app's entitlement configuration rules");
