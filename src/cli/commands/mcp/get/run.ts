// agctl mcp get <app-id> <connector-id>: shows an MCP server's view.
import { CliError, Exit } from '../../../../lib/exit.js';
import { getMcpServer } from '../../../../client/mcp.js';
import { redactJson } from '../../../../client/redact.js';
import type { CommandContext } from '../../../context.js';
import { catalogSecretFields, printServerSummary } from '../summary.js';
import type { GetInput } from './command.js';

export async function run({ args: [appId, connectorId] }: GetInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const { mcpServer } = await getMcpServer(api, appId, connectorId);
  if (!mcpServer) throw new CliError(`the server returned no view of MCP server ${connectorId}`, Exit.Server);
  // A view holds no secret; one sent by mistake is not passed on.
  if (ctx.out.json) ctx.out.printJson(redactJson(mcpServer));
  else {
    // The view never reports secret config fields: the catalog entry names them.
    const catalogId = typeof mcpServer.mcpServerCatalogId === 'string' ? mcpServer.mcpServerCatalogId : '';
    const names = catalogId ? await catalogSecretFields(ctx, catalogId) : undefined;
    printServerSummary(ctx, mcpServer, { appId, connectorId }, names && { names });
  }
  return 0;
}
