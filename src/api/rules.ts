// Entitlement configuration rules (service-api.md §2.3, §4.2, §4.3), declared
// once as a table (src/api/shape.ts): the type, the client's check of an
// answer and the server's view come from it, without the schema library
// (`rules list` is on the start-up budget).
import { shape, type Infer, type ListPage } from './shape.js';

export const RULE_SETTINGS = shape({
  requestPolicyId: 'string',
  requestSchemaId: 'string',
  emergencyGrantEnabled: 'boolean',
  emergencyGrantPolicyId: 'string',
  /** A duration such as "86400s". */
  maxGrantDuration: 'string',
});

export const RULE = shape({
  id: { kind: 'string', required: true },
  appId: 'string',
  displayName: 'string',
  description: 'string',
  /** A CEL expression. */
  condition: 'string',
  enabled: 'boolean',
  /** Rules are evaluated by ascending priority, then ID. */
  priority: 'number',
  settings: { kind: 'object', of: RULE_SETTINGS },
  createdAt: 'string',
  updatedAt: 'string',
  deletedAt: { kind: 'string', nullable: true },
});
export type EntitlementConfigurationRule = Infer<typeof RULE>;

export type ListRulesResponse = ListPage<EntitlementConfigurationRule>;

/** GET .../entitlement_configuration_rules/{id} (service-notes.md §4: sdk-go `getappentitlementroutingruleresponse.md`). */
export interface GetRuleResponse {
  routingRule: EntitlementConfigurationRule;
}

export const RULES_PAGE_SIZE_DEFAULT = 50;
export const RULES_PAGE_SIZE_MAX = 250;
