import { profileTenant } from '../../../../config/resolve.js';
import type { CommandContext } from '../../../context.js';
import { cachedTokenState, type TokenState } from '../token-state.js';
import { COLUMNS, type ListInput } from './command.js';

export async function run(_input: ListInput, ctx: CommandContext): Promise<number> {
  const store = ctx.config.profiles;
  const current = store.currentName();
  const now = ctx.clock.now();
  // Listing works whatever profile the environment names (that is how one finds the right name).
  const rows = [];
  for (const name of store.names()) {
    const p = store.get(name) ?? {};
    const baseUrl = profileTenant(p);
    // Never unseals the secret: whether one is stored for the profile's base URL and client is enough.
    const record =
      baseUrl && p.clientId && URL.canParse(baseUrl)
        ? ctx.vault.storedRecord({ profile: name, baseUrl: new URL(baseUrl).origin, clientId: p.clientId })
        : undefined;
    const secretStored = record !== undefined;
    const keptIn = record?.keptIn;
    // The cached token's expiry is read through the profile's key (the keyring's, when kept there).
    if (keptIn === 'keyring' && baseUrl) await ctx.vault.unlock(name);
    const token: TokenState = baseUrl && p.clientId ? cachedTokenState(ctx.vault, name, baseUrl, p.clientId, now) : { state: 'none' };
    rows.push({
      name,
      current: name === current,
      baseUrl: baseUrl ?? null,
      clientId: p.clientId ?? null,
      secretStored,
      secretKeptIn: keptIn ?? null,
      token,
    });
  }
  const drawn = await ctx.out.list(rows, {
    empty: 'No profiles yet: run `agctl login` (or `agctl login --profile NAME`) to create one',
    // The expiry is a column of its own, a time like any other: its age on a terminal ("in 59m"), ISO 8601 on a pipe.
    columns: COLUMNS,
    row: (r) => ({
      CURRENT: r.current ? '*' : '',
      NAME: r.name,
      'BASE URL': r.baseUrl ?? '-',
      'CLIENT ID': r.clientId ?? '-',
      SECRET: r.secretKeptIn ?? '-',
      TOKEN: r.secretStored ? tokenState(r.token) : 'logged out',
      EXPIRES: (r.secretStored && r.token.expiresAt) || '-',
    }),
  });
  if (!drawn) return 0;
  const s = ctx.settingsWithoutProfileCheck;
  if (s.profileSource === 'env' && s.profile !== current) {
    ctx.out.info(
      `note: AGCTL_PROFILE=${s.profile} overrides the current profile in this environment${store.has(s.profile) ? '' : ', and names no saved profile'}`,
    );
  }
  return 0;
}

/** The token's state in a word or two (its expiry is a column of its own). */
function tokenState(token: TokenState): string {
  return token.state === 'none' ? 'none cached' : token.state === 'unknown' ? 'expiry not known' : token.state;
}
