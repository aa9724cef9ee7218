// agctl mcp catalog get <catalog-id>: one catalog entry.
import { getCatalogEntry } from '../../../../../client/mcp.js';
import { redactJson } from '../../../../../client/redact.js';
import type { CommandContext } from '../../../../context.js';
import { authModeNames, configFieldNames, entryText } from '../show.js';
import type { GetInput } from './command.js';

/** Members shown in their own row; other text members the server sends (channel, scope, maturity, ...) follow as they are. */
const SHOWN = new Set(['id', 'displayName', 'serviceName', 'description', 'configSchema', 'authModes']);

export async function run({ args: [catalogId] }: GetInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const e = await getCatalogEntry(api, catalogId);
  // As received; a secret value sent by mistake is not passed on (a field's `secret` mark is about a server's value, not this entry).
  if (ctx.out.json) {
    ctx.out.printJson(redactJson(e));
    return 0;
  }
  const extra = Object.entries(redactJson(e) as Record<string, unknown>)
    .filter(([k, v]) => !SHOWN.has(k) && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') && v !== '')
    .map(([k, v]): [string, string] => [k, String(v)]);
  ctx.out.fields([
    ['Catalog entry', entryText(e.id)],
    ['Name', entryText(e.displayName)],
    ['Service', entryText(e.serviceName)],
    ['Description', entryText(e.description)],
    ...extra,
    ['Auth modes', authModeNames(e) || 'none listed'],
    ['Config fields', configFieldNames(e, true) ?? 'no schema sent'],
  ]);
  return 0;
}
