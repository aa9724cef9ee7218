// agctl mcp catalog list: the MCP catalog, every page followed.
import { listAllCatalogEntries } from '../../../../../client/mcp.js';
import { redactJson } from '../../../../../client/redact.js';
import type { CommandContext } from '../../../../context.js';
import { escapeControls } from '../../../../escape.js';
import { configFieldNames, entryText } from '../show.js';
import { COLUMNS, type ListInput } from './command.js';

export async function run({ opts }: ListInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const query = opts.query?.trim();
  const entries = await listAllCatalogEntries(api, { query, limit: opts.limit, pageSize: opts.pageSize });
  await ctx.out.list(entries, {
    // As received; a secret value sent by mistake is not passed on.
    json: redactJson,
    empty: query ? `No MCP catalog entries matching "${escapeControls(query)}"` : 'The MCP catalog is empty',
    columns: COLUMNS,
    row: (e) => ({
      ID: entryText(e.id),
      NAME: entryText(e.displayName),
      SERVICE: entryText(e.serviceName),
      'CONFIG FIELDS': configFieldNames(e) || '-',
      DESCRIPTION: entryText(e.description),
    }),
  });
  return 0;
}
