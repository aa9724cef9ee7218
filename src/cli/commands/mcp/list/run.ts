// agctl mcp list <app-id>: the MCP servers of an app, every page followed.
import { AUTH_METHODS, SERVER_TYPES } from '../../../../api/mcp-schema.js';
import { listAllMcpServers } from '../../../../client/mcp.js';
import { redactJson } from '../../../../client/redact.js';
import type { CommandContext } from '../../../context.js';
import { escapeControls } from '../../../escape.js';
import { enumLabel } from '../summary.js';
import { COLUMNS, type ListInput } from './command.js';

export async function run({ args: [appId], opts }: ListInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const servers = await listAllMcpServers(api, appId, { limit: opts.limit, pageSize: opts.pageSize });
  const t = (v: unknown) => (typeof v === 'string' && v ? v : '-');
  await ctx.out.list(servers, {
    // A view holds no secret; one sent by mistake is not passed on.
    json: redactJson,
    empty: `No MCP servers in app ${escapeControls(appId)}`,
    columns: COLUMNS,
    row: (v) => ({
      'CONNECTOR ID': t(v.connectorId),
      NAME: t(v.displayName),
      KIND: t(enumLabel(v.serverType, SERVER_TYPES).toLowerCase()),
      'AUTH METHOD': t(enumLabel(v.authMethod, AUTH_METHODS)),
      'URL OR CATALOG ENTRY': v.serverType === 'MCP_SERVER_TYPE_HOSTED' ? `catalog ${t(v.mcpServerCatalogId)}` : t(v.endpointUrl),
      UPDATED: t(v.updatedAt),
    }),
  });
  return 0;
}
