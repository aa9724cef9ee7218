import type { Command } from 'commander';
import { lazyAction } from './util.js';

export function register(program: Command): void {
  program
    .command('login')
    .description('Log in with OAuth2 client credentials and save them to a profile')
    .option('--client-secret-stdin', 'read the client secret from standard input')
    .option('--client-secret-file <path>', 'read the client secret from a file')
    .addHelpText(
      'after',
      `
The client secret is never taken as a plain flag value: it comes from
AGCTL_CLIENT_SECRET, --client-secret-stdin, --client-secret-file, or a hidden
prompt on a terminal. A token is fetched to prove the credentials before the
profile is saved.

Examples:
  $ agctl login                                  # interactive
  $ agctl login --base-url https://acme.example.com --client-id ci-bot \\
      --client-secret-stdin < secret.txt
  $ AGCTL_CLIENT_SECRET=... agctl login --client-id 'bot@acme.example.com/x' --profile ci`,
    )
    .action(lazyAction(() => import('../commands/auth/login.js'), (_a, o) => ({ secretStdin: Boolean(o.clientSecretStdin), secretFile: o.clientSecretFile as string | undefined })));

  program
    .command('logout')
    .description("Remove the profile's stored client secret and cached tokens")
    .action(lazyAction(() => import('../commands/auth/logout.js'), () => ({})));

  const auth = program.command('auth').description('Inspect authentication state');
  auth
    .command('status')
    .description('Show the profile, base URL, client ID and token expiry (never the token)')
    .action(lazyAction(() => import('../commands/auth/status.js'), () => ({})));
  auth
    .command('token')
    .description('Print a valid access token (for scripts: curl -H "Authorization: Bearer $(agctl auth token)")')
    .action(lazyAction(() => import('../commands/auth/token.js'), () => ({})));
}
