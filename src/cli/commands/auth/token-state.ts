// What `auth status` and `auth list` say about a cached token: read from the
// token cache, never printed.
import { isFresh, tokenUrlFor } from '../../../client/auth.js';
import type { Vault } from '../../../config/vault.js';

export interface TokenState {
  state: 'valid' | 'expiring' | 'expired' | 'none' | 'unknown';
  expiresAt?: string;
  /** Seconds left (0 once expired). */
  expiresIn?: number;
  source?: string;
}

/**
 * The state of the token a profile cached for a client ID at a base URL (a
 * profile kept in the keyring is unlocked first). With `secret`, only a token
 * that secret fetched counts, as for every command.
 */
export function cachedTokenState(
  vault: Vault,
  profile: string,
  baseUrl: string,
  clientId: string,
  nowMs: number,
  secret?: string,
): TokenState {
  const t = vault.loadToken(profile, tokenUrlFor(baseUrl), clientId, secret);
  if (!t) return { state: 'none' };
  const left = t.expiresAt - Math.floor(nowMs / 1000);
  return {
    state: left <= 0 ? 'expired' : isFresh(t, nowMs) ? 'valid' : 'expiring',
    expiresAt: new Date(t.expiresAt * 1000).toISOString(),
    expiresIn: Math.max(0, left),
  };
}

function humanDuration(seconds: number): string {
  if (seconds < 90) return `${seconds}s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

/** The token state in words ("valid until ... (in 59m)"). */
export function describeToken(token: TokenState): string {
  switch (token.state) {
    case 'unknown':
      return 'from AGCTL_ACCESS_TOKEN (expiry not known)';
    case 'none':
      return 'none cached';
    case 'expired':
      return `expired at ${token.expiresAt}`;
    default:
      return `${token.state} until ${token.expiresAt} (in ${humanDuration(token.expiresIn!)})`;
  }
}
