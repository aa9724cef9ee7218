// agctl mcp catalog: the sub-group (its commands are added in src/cli/tree/mcp.ts).
import { Command } from '../../../declare.js';

export const catalog = () => new Command('catalog').description('Browse the MCP server catalog: the entries hosted MCP servers are created from');
