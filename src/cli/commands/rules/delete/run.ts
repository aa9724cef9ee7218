import { ApiError } from '../../../../api/errors.js';
import type { EntitlementConfigurationRule } from '../../../../api/rules.js';
import { CliError, EXIT_INTERRUPTED, Exit, UsageError } from '../../../../lib/exit.js';
import type { ApiClient } from '../../../../client/api.js';
import { checkPathId } from '../../../../client/paths.js';
import { deleteRule, getRule } from '../../../../client/rules.js';
import type { CommandContext } from '../../../context.js';
import { jsonErrorLine, renderError } from '../../../errors.js';
import { noPromptHint } from '../../../io.js';
import type { DeleteInput } from './command.js';

/** What -o json prints on stdout for a deleted rule (a failed one is an error object on stderr). */
interface Deleted {
  id: string;
  deleted: true;
}

export async function run({ args: [appId, ruleIds], opts }: DeleteInput, ctx: CommandContext): Promise<number> {
  const ids = [...new Set(ruleIds)];
  // Every ID is checked before the prompt and before the first request.
  checkPathId(appId, 'app ID');
  for (const id of ids) checkPathId(id, 'rule ID');
  if (opts.dryRun) return dryRun(appId, ids, ctx);
  if (!opts.yes) {
    if (!ctx.canPrompt)
      throw new UsageError('refusing to delete without confirmation: pass --yes', noPromptHint(ctx.io, ctx.env, ctx.flags.input));
    const what = ids.length === 1 ? `rule ${ids[0]}` : `${ids.length} rules (${ids.join(', ')})`;
    if (!(await ctx.prompt.confirm(`Delete ${what} from app ${appId}?`, { default: false }))) {
      // Declined: scripts see that nothing was done, as after Ctrl-C at the prompt.
      ctx.out.info('Nothing deleted');
      return EXIT_INTERRUPTED;
    }
  }
  const api = await client(ctx);
  const deleted: Deleted[] = [];
  const worst = await eachRule(ids, ctx, async (id) => {
    await deleteRule(api, appId, id);
    deleted.push({ id, deleted: true });
    if (!ctx.out.json) ctx.out.success(`Deleted rule ${id}`);
  });
  if (ctx.out.json) ctx.out.printJson(deleted);
  return worst;
}

/**
 * --dry-run: reads each rule and shows it; deletes nothing. A rule that is not
 * there fails as a delete would (with -o json: the rules found on stdout, an
 * error object for each one not found on stderr).
 */
async function dryRun(appId: string, ids: string[], ctx: CommandContext): Promise<number> {
  const api = await client(ctx);
  const rules: EntitlementConfigurationRule[] = [];
  const worst = await eachRule(ids, ctx, async (id) => {
    rules.push(await getRule(api, appId, id));
  });
  if (ctx.out.json) {
    ctx.out.printJson(rules);
    return worst;
  }
  if (rules.length)
    await ctx.out.table(
      ['ID', 'NAME', 'PRIORITY', 'CONDITION'],
      rules.map((r) => [r.id, r.displayName ?? '', r.priority ?? 0, r.condition ?? '']),
    );
  const what = rules.length === 1 ? 'rule' : 'rules';
  ctx.out.info(`Dry run: would delete ${rules.length} ${what} from app ${appId}; nothing was deleted`);
  return worst;
}

/**
 * The API client, with its token: failing to get one (a wrong secret, a base
 * URL that is not the service's) is the same for every rule, so it is one
 * error, with its hint, before the first rule.
 */
async function client(ctx: CommandContext): Promise<ApiClient> {
  const api = await ctx.api();
  await api.tokens.token();
  return api;
}

/**
 * Runs `action` for each rule. A failure is reported and the next rule is
 * tried: as one line on stderr (`✗ rule ID: ...`), or with -o json as one
 * error object a line on stderr, `{"error":{..., "id": ID}}`, the form of every
 * error agctl prints (stdout keeps the results alone). Returns the worst exit
 * code.
 */
async function eachRule(ids: string[], ctx: CommandContext, action: (id: string) => Promise<void>): Promise<number> {
  let worst = 0;
  for (const id of ids) {
    try {
      await action(id);
    } catch (err) {
      if (!(err instanceof ApiError) && !(err instanceof CliError)) throw err;
      const r = renderError(err);
      // Without valid credentials every other rule would fail the same way.
      if (r.exitCode === Exit.Unauthenticated) throw err;
      worst = Math.max(worst, r.exitCode);
      if (ctx.out.json) ctx.io.stderr.write(jsonErrorLine(r.json, { id }));
      else ctx.out.failure(`rule ${id}: ${r.line}`);
    }
  }
  return worst;
}
