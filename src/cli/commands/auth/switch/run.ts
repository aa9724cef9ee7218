import { UnknownProfileError, isValidProfileName } from '../../../../config/profiles.js';
import { UsageError } from '../../../../lib/exit.js';
import type { CommandContext } from '../../../context.js';
import type { SwitchInput } from './command.js';

export async function run({ args: [name] }: SwitchInput, ctx: CommandContext): Promise<number> {
  const store = ctx.config.profiles;
  if (!isValidProfileName(name)) throw new UsageError(`invalid profile name "${name}"`, 'see `agctl auth list` for the saved profiles');
  if (!store.has(name)) throw new UnknownProfileError(name, undefined, store.names());
  // Holding the config lock: the previous profile is the one this switch replaced.
  const previous = await ctx.config.locked(async () => {
    const before = store.currentName();
    await store.setCurrent(name);
    return before;
  });
  const p = store.get(name) ?? {};
  if (ctx.out.json) {
    ctx.out.printJson({ profile: name, previous: previous ?? null, baseUrl: p.baseUrl ?? null, clientId: p.clientId ?? null });
  } else {
    ctx.out.success(`Switched to profile "${name}"${p.baseUrl ? ` (${p.baseUrl}${p.clientId ? ` as ${p.clientId}` : ''})` : ''}`);
  }
  const envProfile = ctx.env.AGCTL_PROFILE;
  if (envProfile && envProfile !== name)
    ctx.out.warn(`AGCTL_PROFILE=${envProfile} is set: it still wins in this environment (unset it to use "${name}")`);
  return 0;
}
