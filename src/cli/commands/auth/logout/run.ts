import type { CommandContext } from '../../../context.js';
import type { LogoutInput } from './command.js';

export async function run(_input: LogoutInput, ctx: CommandContext): Promise<number> {
  const s = ctx.settings;
  // Holding the config lock: a login of the same profile at the same time comes wholly before or after.
  const { removedSecret, removedTokens } = await ctx.config.locked(() => {
    // Never unseals: a secret that no longer opens (another key) must still be removable.
    const storedClientId = ctx.vault.storedClientId(s.profile);
    const profile = ctx.config.profiles.get(s.profile);
    const clientIds = new Set([storedClientId, profile?.clientId, s.clientId].filter((v): v is string => Boolean(v)));
    const removedSecret = ctx.vault.removeCredential(s.profile);
    // Every cached token of these client IDs, whatever base URL it was issued for.
    let removedTokens = 0;
    for (const id of clientIds) removedTokens += ctx.vault.removeTokensOf(id);
    return { removedSecret, removedTokens };
  });
  if (ctx.out.json) {
    ctx.out.printJson({ profile: s.profile, removedSecret, removedTokens });
  } else if (removedSecret || removedTokens) {
    ctx.out.success(`Logged out of profile "${s.profile}": removed ${removedSecret ? 'the stored client secret' : 'no secret'} and ${removedTokens} cached token${removedTokens === 1 ? '' : 's'}`);
  } else {
    ctx.out.info(`Nothing to remove: profile "${s.profile}" has no stored secret or cached token`);
  }
  return 0;
}
