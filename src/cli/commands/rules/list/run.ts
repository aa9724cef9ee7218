import { listAllRules } from '../../../../client/rules.js';
import type { CommandContext } from '../../../context.js';
import { styled } from '../../../output.js';
import type { ListInput } from './command.js';

export async function run({ args: [appId], opts }: ListInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const rules = await listAllRules(api, appId, { limit: opts.limit, pageSize: opts.pageSize });
  await ctx.out.list(rules, {
    empty: `No entitlement configuration rules in app ${appId}`,
    head: ['PRIORITY', 'ID', 'NAME', 'ENABLED', 'CONDITION', 'REQUEST POLICY'],
    row: (r) => [r.priority ?? 0, r.id, r.displayName ?? '', r.enabled ? styled('yes', 'green') : styled('no', 'dim'), r.condition ?? '', r.settings?.requestPolicyId || '-'],
  });
  return 0;
}
