// agctl mcp catalog: the sub-group (its commands: ./subcommands.ts).
import { Command } from '../../../declare.js';

export const command = () =>
  new Command('catalog').description('Browse the MCP server catalog: the entries hosted MCP servers are created from');
