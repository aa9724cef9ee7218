// Entitlement configuration rules endpoints (service-api.md §4.2, §4.3).
import type { EntitlementConfigurationRule, GetRuleResponse, ListRulesResponse } from '../api/rules.js';
import { type ApiClient } from './api.js';
import { isJsonObject, jsonKind } from '../lib/json.js';
import { checkPage, listAll, type PageRequest } from './paginate.js';
import { pathSegment } from './paths.js';

const rulesPath = (appId: string) => `/api/v1/apps/${pathSegment(appId, 'app ID')}/entitlement_configuration_rules`;

/** Types of the rule fields the CLI reads; each may be left out (proto3 JSON omits defaults), but not be of another type. */
const RULE_FIELDS: Record<string, 'string' | 'number' | 'boolean' | 'object'> = {
  displayName: 'string',
  description: 'string',
  condition: 'string',
  enabled: 'boolean',
  priority: 'number',
  settings: 'object',
};

function ruleProblem(r: unknown): string | undefined {
  if (!isJsonObject(r)) return `is ${jsonKind(r)}, expected a rule`;
  if (typeof r.id !== 'string' || r.id === '') return 'has no "id"';
  for (const [k, type] of Object.entries(RULE_FIELDS)) {
    const v = r[k];
    if (v === undefined || v === null) continue;
    if (type === 'object' ? !isJsonObject(v) : typeof v !== type) return `has "${k}" as ${jsonKind(v)}, expected ${type === 'object' ? 'an object' : `a ${type}`}`;
  }
  return undefined;
}

function listRulesPage(api: ApiClient, appId: string, req: PageRequest = {}): Promise<ListRulesResponse> {
  return api.call<ListRulesResponse>('GET', rulesPath(appId), { query: { page_size: req.pageSize, page_token: req.pageToken }, check: checkPage(ruleProblem, 'an array of rules') });
}

/**
 * Every rule of an app in evaluation order, or the first `limit`. The service's
 * List request has no paging parameters (service-notes.md §4), so `page_size`
 * is sent only when the caller gives `pageSize` (the embedded server honours
 * it); `limit` is applied here, whatever size the pages come in.
 */
export function listAllRules(api: ApiClient, appId: string, opts: { pageSize?: number; limit?: number } = {}): Promise<EntitlementConfigurationRule[]> {
  return listAll((req) => listRulesPage(api, appId, req), { ...opts, what: 'rules' });
}

/** GET .../entitlement_configuration_rules/{id} -> `{routingRule}` (service-notes.md §4). */
export async function getRule(api: ApiClient, appId: string, ruleId: string): Promise<EntitlementConfigurationRule> {
  const res = await api.call<GetRuleResponse>('GET', `${rulesPath(appId)}/${pathSegment(ruleId, 'rule ID')}`, {
    check: (b) => {
      const problem = b.routingRule === undefined ? 'is missing' : ruleProblem(b.routingRule);
      return problem && `"routingRule" ${problem}`;
    },
  });
  return res.routingRule;
}

/** DELETE answers `{}`; an empty body is taken as that. */
export function deleteRule(api: ApiClient, appId: string, ruleId: string): Promise<Record<string, never>> {
  return api.call('DELETE', `${rulesPath(appId)}/${pathSegment(ruleId, 'rule ID')}`, { body: {}, emptyOk: true });
}
