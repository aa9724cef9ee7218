// agctl webhook runs: what a listener's events ran (embedded server).
import { listRuns } from '../../../../client/webhook-listeners.js';
import { checkJsonDepth } from '../../../../lib/json-depth.js';
import type { CommandContext } from '../../../context.js';
import { withNotFoundHint } from '../../../errors.js';
import { COLUMNS, type RunsInput } from './command.js';

export async function run({ args: [listenerId], opts }: RunsInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  const page = await withNotFoundHint(
    listRuns(api, listenerId, { limit: opts.limit, eventId: opts.eventId }),
    'listener IDs: agctl webhook listeners list (runs are kept by the embedded server: agctl serve, or --embedded)',
  );
  // A trigger is shown as JSON in the table: one nested too deep to print is refused, as it is with -o json.
  checkJsonDepth(page.runs);
  const drawn = await ctx.out.list(page.runs, {
    empty: opts.eventId ? `No run of event ${opts.eventId} for listener ${listenerId}` : `No runs yet for listener ${listenerId}`,
    columns: COLUMNS,
    // The trigger is the event's body, as its sender wrote it (the table escapes it like every cell).
    row: (r) => ({
      RUN: r.number,
      ID: r.id,
      'EVENT ID': r.eventId,
      CREATED: r.createdAt,
      TRIGGER: typeof r.context?.trigger === 'string' ? r.context.trigger : JSON.stringify(r.context?.trigger),
    }),
  });
  if (drawn && page.total > page.runs.length)
    ctx.out.info(`Showing the newest ${page.runs.length} of ${page.total} runs; see more with --limit (up to 1000)`);
  return 0;
}
