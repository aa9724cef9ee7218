// agctl auth: the group (its commands: ./subcommands.ts).
import { Command } from '../../declare.js';

export const command = () => new Command('auth').description('Inspect authentication state and manage profiles');
