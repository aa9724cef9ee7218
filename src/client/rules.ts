// Entitlement configuration rules endpoints (service-api.md §4.2, §4.3).
import { RULE, type EntitlementConfigurationRule, type GetRuleResponse, type ListRulesResponse } from '../api/rules.js';
import { itemProblem } from '../api/shape.js';
import type { ApiClient } from './api.js';
import { checkPage, listAll, type PageRequest } from './paginate.js';
import { checkAnswerId } from './answer-id.js';
import { pathSegment } from './paths.js';

const rulesPath = (appId: string) => `/api/v1/apps/${pathSegment(appId, 'app ID')}/entitlement_configuration_rules`;

const ruleProblem = (r: unknown) => itemProblem(RULE, r, 'a rule');

function listRulesPage(api: ApiClient, appId: string, req: PageRequest = {}): Promise<ListRulesResponse> {
  return api.call<ListRulesResponse>('GET', rulesPath(appId), {
    query: { page_size: req.pageSize, page_token: req.pageToken },
    check: checkPage(ruleProblem, 'an array of rules'),
  });
}

/**
 * Every rule of an app in evaluation order, or the first `limit`. The service's
 * List request has no paging parameters (service-notes.md §4), so `page_size`
 * is sent only when the caller gives `pageSize` (the embedded server honours
 * it); `limit` is applied here, whatever size the pages come in.
 */
export function listAllRules(
  api: ApiClient,
  appId: string,
  opts: { pageSize?: number; limit?: number } = {},
): Promise<EntitlementConfigurationRule[]> {
  return listAll((req) => listRulesPage(api, appId, req), { ...opts, what: 'rules' });
}

/** GET .../entitlement_configuration_rules/{id} -> `{routingRule}` (service-notes.md §4), checked to be that rule of that app. */
export async function getRule(api: ApiClient, appId: string, ruleId: string): Promise<EntitlementConfigurationRule> {
  const res = await api.call<GetRuleResponse>('GET', `${rulesPath(appId)}/${pathSegment(ruleId, 'rule ID')}`, {
    check: (b) => {
      const problem = b.routingRule === undefined ? 'is missing' : ruleProblem(b.routingRule);
      return problem && `"routingRule" ${problem}`;
    },
  });
  // The answer must be about the rule asked for (its `id`, which the shape requires), of the app asked for (`appId`, when given).
  checkAnswerId('rule', ruleId, res.routingRule.id);
  checkAnswerId('app', appId, res.routingRule.appId, { missingOk: true });
  return res.routingRule;
}

/** DELETE answers `{}`; an empty body is taken as that. */
export function deleteRule(api: ApiClient, appId: string, ruleId: string): Promise<Record<string, never>> {
  return api.call('DELETE', `${rulesPath(appId)}/${pathSegment(ruleId, 'rule ID')}`, { body: {}, emptyOk: true });
}
