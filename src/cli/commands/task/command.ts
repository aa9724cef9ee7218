// agctl task: the group (its commands: ./subcommands.ts).
import { Command } from '../../declare.js';

export const command = () => new Command('task').description('Act on access request tasks');
