// Entitlement configuration rules (service-api.md §2.3, §4.2, §4.3).

export interface RuleSettings {
  requestPolicyId: string;
  requestSchemaId: string;
  emergencyGrantEnabled: boolean;
  emergencyGrantPolicyId: string;
  maxGrantDuration: string;
}

export interface EntitlementConfigurationRule {
  id: string;
  appId: string;
  displayName: string;
  description: string;
  condition: string;
  enabled: boolean;
  priority: number;
  settings: RuleSettings;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface ListRulesResponse {
  list: EntitlementConfigurationRule[];
  nextPageToken: string;
}

/** GET .../entitlement_configuration_rules/{id} (service-notes.md §4: sdk-go `getappentitlementroutingruleresponse.md`). */
export interface GetRuleResponse {
  routingRule: EntitlementConfigurationRule;
}

export const RULES_PAGE_SIZE_DEFAULT = 50;
export const RULES_PAGE_SIZE_MAX = 250;
