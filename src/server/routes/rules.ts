// Entitlement configuration rules: list in evaluation order with keyset
// pagination, get, and soft delete.
import { invalidArgument, notFound } from '../../api/errors.js';
import { RULE, RULES_PAGE_SIZE_DEFAULT, RULES_PAGE_SIZE_MAX, RULE_SETTINGS, type EntitlementConfigurationRule } from '../../api/rules.js';
import { viewOf } from '../../api/shape.js';
import { isJsonObject } from '../../lib/json.js';
import type { ServerModule } from '../module.js';
import { jsonColumn } from '../store/json.js';
import type { RequestContext } from '../router.js';
import { DEMO_APPS, requireApp } from './apps.js';
import { decodePageToken, pageOf, parsePageSize } from '../paging.js';

interface RuleRow {
  id: string;
  app_id: string;
  display_name: string;
  description: string;
  condition: string;
  enabled: number;
  priority: number;
  /** JSON of RULE_SETTINGS (SETTINGS). */
  settings: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The `settings` column. */
const SETTINGS = jsonColumn(RULE_SETTINGS);

const toRule = (r: RuleRow): EntitlementConfigurationRule =>
  viewOf(RULE, {
    id: r.id,
    appId: r.app_id,
    displayName: r.display_name,
    description: r.description,
    condition: r.condition,
    enabled: r.enabled === 1,
    priority: r.priority,
    settings: SETTINGS.value(r.settings),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  });

const isRuleKey = (v: unknown): v is { p: number; i: string } =>
  isJsonObject(v) && Number.isSafeInteger(v.p) && typeof v.i === 'string' && v.i !== '';

function listRules(ctx: RequestContext) {
  const app = requireApp(ctx.store, ctx.params.app_id!);
  const size = parsePageSize(ctx.query.get('page_size'), RULES_PAGE_SIZE_DEFAULT, RULES_PAGE_SIZE_MAX);
  const token = ctx.query.get('page_token');
  const after = token ? decodePageToken(token, isRuleKey, 'page_token') : null;
  const rows = (
    after
      ? ctx.store.db
          .prepare(
            `SELECT * FROM rules WHERE app_id = ? AND deleted_at IS NULL AND (priority > ? OR (priority = ? AND id > ?))
             ORDER BY priority, id LIMIT ?`,
          )
          .all(app.id, after.p, after.p, after.i, size + 1)
      : ctx.store.db
          .prepare('SELECT * FROM rules WHERE app_id = ? AND deleted_at IS NULL ORDER BY priority, id LIMIT ?')
          .all(app.id, size + 1)
  ) as RuleRow[];
  const { page, nextPageToken } = pageOf(rows, size, (r) => ({ p: r.priority, i: r.id }));
  return { body: { list: page.map(toRule), nextPageToken } };
}

/** GET .../entitlement_configuration_rules/{id} -> `{routingRule}` (service-notes.md §4); a deleted rule is not found. */
function getRule(ctx: RequestContext) {
  const app = requireApp(ctx.store, ctx.params.app_id!);
  const row = ctx.store.db.prepare('SELECT * FROM rules WHERE app_id = ? AND id = ? AND deleted_at IS NULL').get(app.id, ctx.params.id!) as
    | RuleRow
    | undefined;
  if (!row) throw notFound(`entitlement configuration rule ${ctx.params.id} not found in app ${app.id}`);
  return { body: { routingRule: toRule(row) } };
}

async function deleteRule(ctx: RequestContext) {
  const body = await ctx.json();
  if (!isJsonObject(body)) throw invalidArgument('request body must be a JSON object');
  const app = requireApp(ctx.store, ctx.params.app_id!);
  const now = new Date(ctx.clock.now()).toISOString();
  const res = ctx.store.db
    .prepare('UPDATE rules SET deleted_at = ?, updated_at = ? WHERE app_id = ? AND id = ? AND deleted_at IS NULL')
    .run(now, now, app.id, ctx.params.id!);
  if (res.changes === 0) throw notFound(`entitlement configuration rule ${ctx.params.id} not found in app ${app.id}`);
  return { body: {} };
}

const CONDITIONS = [
  'subject.department == "Sales"',
  'subject.department == "Engineering" && entitlement.risk == "high"',
  'entitlement.appId == "crm-app" && subject.manager != ""',
  'subject.email.endsWith("@contractors.example.com")',
  'entitlement.displayName.startsWith("Admin")',
  'subject.title in ["VP", "Director"]',
  'true',
];

export const rulesModule: ServerModule = {
  name: 'rules',
  migrate(store) {
    store.db.exec(`
      CREATE TABLE IF NOT EXISTS rules (
        id TEXT PRIMARY KEY,
        app_id TEXT NOT NULL REFERENCES apps(id),
        display_name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        condition TEXT NOT NULL DEFAULT '',
        enabled INTEGER NOT NULL DEFAULT 1,
        priority INTEGER NOT NULL,
        settings TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        deleted_at TEXT
      );
      CREATE INDEX IF NOT EXISTS rules_order ON rules (app_id, priority, id) WHERE deleted_at IS NULL;
    `);
  },
  seed({ store, clock }) {
    const ins = store.db.prepare(
      `INSERT INTO rules (id, app_id, display_name, description, condition, enabled, priority, settings, created_at, updated_at, deleted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const base = clock.now() - 30 * 86400_000;
    const ids: string[] = [];
    // 26 live rules; priorities repeat (10, 10, 10, 20, 20, 30, ...) so ties are broken by id.
    // IDs are inserted out of order so the listing order is visibly the evaluation order.
    for (let n = 0; n < 26; n++) {
      const k = (n * 7) % 26;
      const id = `ecr-${String(k + 1).padStart(3, '0')}`;
      const priority = 10 * (Math.floor(k / 3) + 1);
      const at = new Date(base + n * 3600_000).toISOString();
      const settings = {
        requestPolicyId: `policy-${(k % 4) + 1}`,
        requestSchemaId: k % 5 === 0 ? `schema-${(k % 3) + 1}` : '',
        emergencyGrantEnabled: k % 6 === 0,
        emergencyGrantPolicyId: k % 6 === 0 ? 'policy-emergency' : '',
        maxGrantDuration: `${((k % 4) + 1) * 86400}s`,
      };
      ins.run(
        id,
        DEMO_APPS.crm.id,
        `Route ${k + 1}: ${['Sales', 'Engineering', 'Managers', 'Contractors', 'Admins', 'Leadership', 'Default'][k % 7]}`,
        `Routes matching requests to ${settings.requestPolicyId}`,
        CONDITIONS[k % CONDITIONS.length]!,
        k % 9 === 8 ? 0 : 1,
        priority,
        SETTINGS.text(settings),
        at,
        at,
        null,
      );
      ids.push(id);
    }
    const deletedAt = new Date(base + 40 * 3600_000).toISOString();
    ins.run(
      'ecr-900',
      DEMO_APPS.crm.id,
      'Retired route',
      'Deleted before the demo started',
      'false',
      1,
      5,
      SETTINGS.text({
        requestPolicyId: 'policy-1',
        requestSchemaId: '',
        emergencyGrantEnabled: false,
        emergencyGrantPolicyId: '',
        maxGrantDuration: '3600s',
      }),
      new Date(base).toISOString(),
      deletedAt,
      deletedAt,
    );
    ids.sort();
    return { rules: { appId: DEMO_APPS.crm.id, count: ids.length, ids, deletedId: 'ecr-900' } };
  },
  routes(router) {
    router.get('/api/v1/apps/:app_id/entitlement_configuration_rules', listRules);
    router.get('/api/v1/apps/:app_id/entitlement_configuration_rules/:id', getRule);
    router.delete('/api/v1/apps/:app_id/entitlement_configuration_rules/:id', deleteRule);
  },
};
