// agctl mcp list <app-id>: the MCP servers of an app, every page followed.
import { AUTH_METHODS, SERVER_TYPES } from '../../../../api/mcp-schema.js';
import { listAllMcpServers } from '../../../../client/mcp.js';
import { redactJson } from '../../../../client/redact.js';
import type { CommandContext } from '../../../context.js';
import { escapeControls } from '../../../escape.js';
import { enumLabel } from '../summary.js';
import type { ListInput } from './command.js';

export async function run({ args: [appId], opts }: ListInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const servers = await listAllMcpServers(api, appId, { limit: opts.limit, pageSize: opts.pageSize });
  if (ctx.out.json) {
    // A view holds no secret; one sent by mistake is not passed on.
    ctx.out.printJson(redactJson(servers));
    return 0;
  }
  if (servers.length === 0) {
    ctx.out.info(`No MCP servers in app ${escapeControls(appId)}`);
    return 0;
  }
  const t = (v: unknown) => (typeof v === 'string' && v ? v : '-');
  await ctx.out.table(
    ['CONNECTOR ID', 'NAME', 'KIND', 'AUTH METHOD', 'URL OR CATALOG ENTRY', 'UPDATED'],
    servers.map((v) => [
      t(v.connectorId),
      t(v.displayName),
      t(enumLabel(v.serverType, SERVER_TYPES).toLowerCase()),
      t(enumLabel(v.authMethod, AUTH_METHODS)),
      v.serverType === 'MCP_SERVER_TYPE_HOSTED' ? `catalog ${t(v.mcpServerCatalogId)}` : t(v.endpointUrl),
      t(v.updatedAt),
    ]),
  );
  return 0;
}
