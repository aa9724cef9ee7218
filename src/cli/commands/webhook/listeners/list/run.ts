// agctl webhook listeners list: the embedded server's listeners, no secret shown.
import { listListeners } from '../../../../../client/webhook-listeners.js';
import type { CommandContext } from '../../../../context.js';
import { withNotFoundHint } from '../../../../errors.js';
import { listenerShown, listenerAllowedFrom } from '../show.js';
import { COLUMNS, type ListInput } from './command.js';

export async function run({ opts }: ListInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  // A tenant has no such route: say whose route it is.
  const listeners = await withNotFoundHint(
    listListeners(api, { limit: opts.limit }),
    'webhook listeners are listed by the embedded server (agctl serve, or --embedded); a tenant shows them in its web app',
  );
  await ctx.out.list(listeners, {
    json: (all) => all.map(listenerShown),
    empty: 'No webhook listeners; create one with: agctl webhook listeners create',
    columns: COLUMNS,
    row: (l) => ({
      ID: l.id,
      NAME: l.automation.name || '-',
      AUTH: l.authMethod,
      'ALLOWED FROM': listenerAllowedFrom(l),
      RUNS: l.runCount ?? '-',
      URL: l.url,
    }),
  });
  return 0;
}
