import { listAllRules } from '../../../../client/rules.js';
import type { CommandContext } from '../../../context.js';
import type { ListInput } from './command.js';

export async function run({ args: [appId], opts }: ListInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const rules = await listAllRules(api, appId, { limit: opts.limit, pageSize: opts.pageSize });
  if (ctx.out.json) {
    ctx.out.printJson(rules);
    return 0;
  }
  if (rules.length === 0) {
    ctx.out.info(`No entitlement configuration rules in app ${appId}`);
    return 0;
  }
  const s = ctx.out.s;
  await ctx.out.table(
    ['PRIORITY', 'ID', 'NAME', 'ENABLED', 'CONDITION', 'REQUEST POLICY'],
    rules.map((r) => [r.priority ?? 0, r.id, r.displayName ?? '', r.enabled ? s.green('yes') : s.dim('no'), r.condition ?? '', r.settings?.requestPolicyId || '-']),
  );
  return 0;
}
