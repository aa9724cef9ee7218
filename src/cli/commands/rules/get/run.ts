// agctl rules get <app-id> <rule-id>: one rule, as fields or as the API's object.
import { getRule } from '../../../../client/rules.js';
import type { CommandContext } from '../../../context.js';
import type { GetInput } from './command.js';

export async function run({ args: [appId, ruleId] }: GetInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const r = await getRule(api, appId, ruleId);
  if (ctx.out.json) {
    ctx.out.printJson(r);
    return 0;
  }
  const s = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  const settings = r.settings ?? {};
  ctx.out.fields([
    ['Rule', `${s(r.id)}${r.displayName ? ` (${s(r.displayName)})` : ''}`],
    ['App', s(r.appId) || appId],
    ['Priority', r.priority ?? 0],
    ['Enabled', r.enabled ? 'yes' : 'no'],
    ['Condition', s(r.condition)],
    ['Description', s(r.description)],
    ['Request policy', s(settings.requestPolicyId)],
    ['Request schema', s(settings.requestSchemaId)],
    [
      'Emergency grant',
      settings.emergencyGrantEnabled
        ? `yes${settings.emergencyGrantPolicyId ? ` (policy ${s(settings.emergencyGrantPolicyId)})` : ''}`
        : 'no',
    ],
    ['Max grant duration', s(settings.maxGrantDuration)],
    ['Created', s(r.createdAt)],
    ['Updated', s(r.updatedAt)],
  ]);
  return 0;
}
