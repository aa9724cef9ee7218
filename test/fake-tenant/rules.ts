// Entitlement configuration (routing) rules (service-api.md §2.3, §4.2, §4.3;
// service-notes.md §4). The list request has no paging parameters: the list
// pages by its own fixed size whatever `page_size` says, and follows only its
// own `page_token`. Get answers {routingRule}; delete answers {}. A rule that
// does not exist is a 404 whose body has a code and no message.
import { invalidArgument, notFound, pageToken, type Router } from './http.js';
import { iso, type FakeClock } from './ids.js';

/** A rule with the fields of service-api.md §2.3 (deletedAt set once deleted). */
function newRule(appId: string, r: { id: string; priority: number; displayName: string; enabled?: boolean }, now: string) {
  return {
    id: r.id,
    appId,
    displayName: r.displayName,
    description: '',
    condition: 'subject.department == "Engineering"',
    enabled: r.enabled ?? true,
    priority: r.priority,
    settings: {
      requestPolicyId: 'pol-standard',
      requestSchemaId: '',
      emergencyGrantEnabled: false,
      emergencyGrantPolicyId: '',
      maxGrantDuration: '86400s',
    },
    createdAt: now,
    updatedAt: now,
    deletedAt: undefined as string | undefined,
  };
}

export type Rule = ReturnType<typeof newRule>;

export interface RulesOptions {
  /** Rules per page, whatever the client asks for; 'all' answers everything in one page. Default 2. */
  pageSize?: number | 'all';
  /** Misbehave: hand out the first page's token again on the second page (a client must not loop or print twice). */
  repeatToken?: boolean;
}

type Cursor = { p: number; id: string };
const isCursor = (v: unknown): v is Cursor =>
  typeof v === 'object' && v !== null && typeof (v as Cursor).p === 'number' && typeof (v as Cursor).id === 'string';

/** Evaluation order: priority ascending, then ID ascending. */
const byOrder = (a: Rule, b: Rule) => a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const after = (r: Rule, c: Cursor) => r.priority > c.p || (r.priority === c.p && r.id > c.id);

export class RuleStore {
  readonly rules: Rule[] = [];

  constructor(private readonly clock: FakeClock) {}

  add(appId: string, r: Parameters<typeof newRule>[1]): Rule {
    const rule = newRule(appId, r, iso(this.clock.now()));
    this.rules.push(rule);
    return rule;
  }

  /** The app's rules not deleted, in evaluation order. */
  active(appId: string): Rule[] {
    return this.rules.filter((r) => r.appId === appId && !r.deletedAt).sort(byOrder);
  }

  find(appId: string, id: string): Rule | undefined {
    return this.rules.find((r) => r.appId === appId && r.id === id && !r.deletedAt);
  }
}

export function registerRules(router: Router, store: RuleStore, clock: FakeClock, opts: RulesOptions): void {
  const size = opts.pageSize ?? 2;
  const base = '/api/v1/apps/{app}/entitlement_configuration_rules';
  let firstToken: string | undefined;

  router.add('GET', base, (req, [app]) => {
    const token = req.query.get('page_token') ?? '';
    const cursor = token ? pageToken.decode(token, isCursor) : undefined;
    const rest = store.active(app!).filter((r) => !cursor || after(r, cursor));
    const page = size === 'all' ? rest : rest.slice(0, size);
    const last = page.at(-1);
    let next = last && page.length < rest.length ? pageToken.encode({ p: last.priority, id: last.id }) : '';
    if (opts.repeatToken && next) {
      if (!token) firstToken = next;
      else next = firstToken ?? next;
    }
    return { list: page, nextPageToken: next };
  });

  router.add('GET', `${base}/{id}`, (_req, [app, id]) => {
    const rule = store.find(app!, id!);
    if (!rule) throw notFound();
    return { routingRule: rule };
  });

  router.add('DELETE', `${base}/{id}`, (req, [app, id]) => {
    const body = req.json();
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
      throw invalidArgument('the request body must be a JSON object');
    const rule = store.find(app!, id!);
    if (!rule) throw notFound();
    rule.deletedAt = rule.updatedAt = iso(clock.now());
    return {};
  });
}
