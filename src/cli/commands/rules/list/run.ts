import { listAllRules } from '../../../../client/rules.js';
import type { CommandContext } from '../../../context.js';
import { styled } from '../../../output.js';
import { COLUMNS, type ListInput } from './command.js';

export async function run({ args: [appId], opts }: ListInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const rules = await listAllRules(api, appId, { limit: opts.limit, pageSize: opts.pageSize });
  await ctx.out.list(rules, {
    empty: `No entitlement configuration rules in app ${appId}`,
    columns: COLUMNS,
    row: (r) => ({
      PRIORITY: r.priority ?? 0,
      ID: r.id,
      NAME: r.displayName ?? '',
      ENABLED: r.enabled ? styled('yes', 'green') : styled('no', 'dim'),
      CONDITION: r.condition ?? '',
      'REQUEST POLICY': r.settings?.requestPolicyId || '-',
    }),
  });
  return 0;
}
