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
  // As received; a secret value sent by mistake is not passed on.
  if (ctx.out.json) {
    ctx.out.printJson(redactJson(entries));
    return 0;
  }
  if (entries.length === 0) {
    ctx.out.info(query ? `No MCP catalog entries matching "${escapeControls(query)}"` : 'The MCP catalog is empty');
    return 0;
  }
  await ctx.out.table(
    ['ID', 'NAME', 'SERVICE', 'CONFIG FIELDS', 'DESCRIPTION'],
    entries.map((e) => [entryText(e.id), entryText(e.displayName), entryText(e.serviceName), configFieldNames(e) || '-', entryText(e.description)]),
  );
  return 0;
}
