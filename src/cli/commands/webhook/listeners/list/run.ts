// agctl webhook listeners list: the embedded server's listeners, no secret shown.
import { ApiError } from '../../../../../api/errors.js';
import { CliError, Exit } from '../../../../../lib/exit.js';
import { listListeners, type WebhookListener } from '../../../../../client/webhook-listeners.js';
import type { CommandContext } from '../../../../context.js';
import { listenerShown, listenerAllowedFrom } from '../show.js';
import type { ListInput } from './command.js';

export async function run({ opts }: ListInput, ctx: CommandContext): Promise<number> {
  const api = await ctx.api();
  let listeners: WebhookListener[];
  try {
    listeners = await listListeners(api, { limit: opts.limit });
  } catch (err) {
    // A tenant has no such route: say whose route it is.
    if (err instanceof ApiError && err.status === 404) {
      throw new CliError(`${err.message} (HTTP 404)`, Exit.NotFound, {
        status: 404,
        code: err.code,
        hint: 'webhook listeners are listed by the embedded server (agctl serve, or --embedded); a tenant shows them in its web app',
      });
    }
    throw err;
  }
  if (ctx.out.json) {
    ctx.out.printJson(listeners.map(listenerShown));
    return 0;
  }
  if (listeners.length === 0) {
    ctx.out.info('No webhook listeners; create one with: agctl webhook listeners create');
    return 0;
  }
  await ctx.out.table(
    ['ID', 'NAME', 'AUTH', 'ALLOWED FROM', 'RUNS', 'URL'],
    listeners.map((l) => [l.id, l.automation.name ?? '-', l.authMethod, listenerAllowedFrom(l), l.runCount ?? '-', l.url]),
  );
  return 0;
}
