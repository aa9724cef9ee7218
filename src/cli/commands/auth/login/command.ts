// agctl login: the declaration.
import { Command, helpText, type Input } from '../../../declare.js';

/** The declaration; its run is ./run.ts, imported when it runs (see the group's file in src/cli/tree/). */
export const login = () =>
  new Command('login')
    .description('Log in with OAuth2 client credentials and save them to a profile')
    .option('--client-secret-stdin', 'read the client secret from standard input')
    .option('--client-secret-file <path>', 'read the client secret from a file')
    .addHelpText(
      'after',
      helpText(
        `
The client secret is never taken as a plain flag value: it comes from
AGCTL_CLIENT_SECRET, --client-secret-stdin, --client-secret-file, or a hidden
prompt on a terminal. A token is fetched to prove the credentials before the
profile is saved.`,
        [
          'agctl login                                  # interactive',
          'agctl login --base-url https://acme.example.com --client-id ci-bot \\\n      --client-secret-stdin < secret.txt',
          "AGCTL_CLIENT_SECRET=... agctl login --client-id 'bot@acme.example.com/x' --profile ci",
        ],
      ),
    );

export type LoginInput = Input<ReturnType<typeof login>>;
