// agctl mcp catalog list: the MCP catalog, every page followed.
import { listAllCatalogEntries } from '../../../../../client/mcp.js';
import { redactJson } from '../../../../../client/redact.js';
import type { CommandContext } from '../../../../context.js';
import { escapeControls } from '../../../../escape.js';
import { configFieldNames, entryText } from '../show.js';
import type { ListInput } from './command.js';

export async function run({ opts }: ListInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const query = opts.query?.trim();
  const entries = await listAllCatalogEntries(api, { query, limit: opts.limit, pageSize: opts.pageSize });
  await ctx.out.list(entries, {
    // As received; a secret value sent by mistake is not passed on.
    json: redactJson,
    empty: query ? `No MCP catalog entries matching "${escapeControls(query)}"` : 'The MCP catalog is empty',
    head: ['ID', 'NAME', 'SERVICE', 'CONFIG FIELDS', 'DESCRIPTION'],
    row: (e) => [entryText(e.id), entryText(e.displayName), entryText(e.serviceName), configFieldNames(e) || '-', entryText(e.description)],
  });
  return 0;
}
