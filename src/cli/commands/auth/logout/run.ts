import type { CommandContext } from '../../../context.js';
import type { LogoutInput } from './command.js';

export async function run(_input: LogoutInput, ctx: CommandContext): Promise<number> {
  const s = ctx.settings;
  // Holding the config lock: a login of the same profile at the same time comes wholly before or after.
  const { removedSecret, removedTokens, keyringProblem } = await ctx.config.locked(async () => {
    // Never unseals: a secret that no longer opens (another key) must still be removable.
    const storedClientIds = ctx.vault.storedRecords(s.profile).map((r) => r.clientId);
    const profile = ctx.config.profiles.get(s.profile);
    const clientIds = new Set([...storedClientIds, profile?.clientId, s.clientId].filter((v): v is string => Boolean(v)));
    const { removed: removedSecret, keyringProblem } = await ctx.vault.removeCredential(s.profile);
    // Every cached token of this profile, whatever base URL it was issued for; other profiles keep theirs.
    const removedTokens = ctx.vault.removeTokensOf(s.profile, clientIds);
    return { removedSecret, removedTokens, keyringProblem };
  });
  if (keyringProblem !== undefined)
    ctx.out.warn(
      `the key of profile "${s.profile}" could not be removed from the OS keyring (${keyringProblem}): remove the entry "${ctx.vault.keyringAccount(s.profile)}" of service "agctl" by hand`,
    );
  if (ctx.out.json) {
    ctx.out.printJson({ profile: s.profile, removedSecret, removedTokens });
  } else if (removedSecret || removedTokens) {
    ctx.out.success(
      `Logged out of profile "${s.profile}": removed ${removedSecret ? 'the stored client secret' : 'no secret'} and ${removedTokens} cached token${removedTokens === 1 ? '' : 's'}`,
    );
  } else {
    ctx.out.info(`Nothing to remove: profile "${s.profile}" has no stored secret or cached token`);
  }
  return 0;
}
