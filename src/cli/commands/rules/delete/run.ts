import { ApiError } from '../../../../api/errors.js';
import { CliError, Exit, UsageError, exitCodeForStatus } from '../../../../lib/exit.js';
import { checkPathId } from '../../../../client/paths.js';
import { deleteRule } from '../../../../client/rules.js';
import type { CommandContext } from '../../../context.js';
import { renderError } from '../../../errors.js';
import type { DeleteInput } from './command.js';

interface Result {
  id: string;
  deleted: boolean;
  error?: { status: number | null; code: number | string | null; message: string };
}

export async function run({ args: [appId, ruleIds], opts }: DeleteInput, ctx: CommandContext): Promise<number> {
  const ids = [...new Set(ruleIds)];
  // Every ID is checked before the prompt and before the first delete.
  checkPathId(appId, 'app ID');
  for (const id of ids) checkPathId(id, 'rule ID');
  if (!opts.yes) {
    if (!ctx.canPrompt) throw new UsageError('refusing to delete without confirmation: pass --yes', 'on a terminal agctl asks instead');
    const what = ids.length === 1 ? `rule ${ids[0]}` : `${ids.length} rules (${ids.join(', ')})`;
    if (!(await ctx.prompt.confirm(`Delete ${what} from app ${appId}?`, { default: false }))) {
      ctx.out.info('Nothing deleted');
      return 0;
    }
  }
  const api = await ctx.api();
  const results: Result[] = [];
  let worst = 0;
  for (const id of ids) {
    try {
      await deleteRule(api, appId, id);
      results.push({ id, deleted: true });
      if (!ctx.out.json) ctx.out.success(`Deleted rule ${id}`);
    } catch (err) {
      if (!(err instanceof ApiError) && !(err instanceof CliError)) throw err;
      const code = err instanceof ApiError ? exitCodeForStatus(err.status) : err.exitCode;
      // Without valid credentials every other rule would fail the same way.
      if (code === Exit.Unauthenticated) throw err;
      const r = renderError(err);
      worst = Math.max(worst, code);
      results.push({ id, deleted: false, error: { status: r.json.error.status, code: r.json.error.code, message: r.json.error.message } });
      if (!ctx.out.json) ctx.out.failure(`rule ${id}: ${r.line}`);
    }
  }
  if (ctx.out.json) ctx.out.printJson(results);
  return worst;
}
