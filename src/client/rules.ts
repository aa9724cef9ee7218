// Entitlement configuration rules endpoints (service-api.md §4.2, §4.3).
import type { ListRulesResponse, EntitlementConfigurationRule } from '../api/rules.js';
import type { ApiClient } from './api.js';
import { pathSegment } from './paths.js';

const rulesPath = (appId: string) => `/api/v1/apps/${pathSegment(appId, 'app ID')}/entitlement_configuration_rules`;

export function listRulesPage(api: ApiClient, appId: string, pageSize?: number, pageToken?: string): Promise<ListRulesResponse> {
  return api.call<ListRulesResponse>('GET', rulesPath(appId), { query: { page_size: pageSize, page_token: pageToken } });
}

/** Follows nextPageToken until the end (or `limit` rules). */
export async function listAllRules(api: ApiClient, appId: string, opts: { pageSize?: number; limit?: number } = {}): Promise<EntitlementConfigurationRule[]> {
  const out: EntitlementConfigurationRule[] = [];
  let token: string | undefined;
  const seen = new Set<string>();
  do {
    const want = opts.limit !== undefined ? Math.min(opts.pageSize ?? Infinity, opts.limit - out.length) : opts.pageSize;
    const page = await listRulesPage(api, appId, Number.isFinite(want) ? want : undefined, token);
    out.push(...(page.list ?? []));
    token = page.nextPageToken || undefined;
    if (token && seen.has(token)) break; // a server that repeats a token would loop forever
    if (token) seen.add(token);
  } while (token && (opts.limit === undefined || out.length < opts.limit));
  return opts.limit !== undefined ? out.slice(0, opts.limit) : out;
}

export function deleteRule(api: ApiClient, appId: string, ruleId: string): Promise<Record<string, never>> {
  return api.call('DELETE', `${rulesPath(appId)}/${pathSegment(ruleId, 'rule ID')}`, { body: {} });
}
