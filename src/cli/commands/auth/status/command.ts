// agctl auth status: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';

export const command = () =>
  new Command('status')
    .description('Check the credentials with the server and show the profile, base URL, client ID and token expiry (never the token)')
    .option('--offline', 'only show what is saved: no request to the server')
    .addHelpText('after', () =>
      helpText(
        `
Like \`gh auth status\`, it proves the credentials: it fetches a new token with
the client secret (stored, or from AGCTL_CLIENT_SECRET) and asks the server who
the token belongs to (GET /api/v1/auth/introspect). Exit 3 when there are no
credentials or the server refuses them (a stored secret that no longer works),
9 when the server cannot be reached.

With -o json: \`loggedIn\` is true when there are credentials the server did
not refuse; \`token.state\` is valid, expiring, expired, none, unknown (from
AGCTL_ACCESS_TOKEN) or refused (the server refuses it or its credentials);
\`server.state\` is accepted, refused, unreachable, failed or not-checked.`,
        ['agctl auth status', 'agctl auth status --profile ci -o json', 'agctl auth status --offline'],
      ),
    );

export type StatusInput = Input<ReturnType<typeof command>>;
