// agctl mcp: the group (its commands: ./subcommands.ts).
import { Command } from '../../declare.js';

export const command = () => new Command('mcp').description('Manage MCP servers: credentials and config fields');
