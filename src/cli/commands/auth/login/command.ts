// agctl login: the declaration.
import { Command, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';

export const command = () =>
  new Command('login')
    .description('Log in with OAuth2 client credentials and save them to a profile')
    .option('--client-secret-stdin', 'read the client secret from standard input')
    .option('--client-secret-file <path>', 'read the client secret from a file')
    .option('--no-switch', 'keep the current profile (by default the profile logged in to becomes the current one)')
    .option('--force', 'replace a profile logged in to another base URL or as another client without asking (needed without a terminal)')
    .option('--insecure-storage', 'seal the secret with the key file in the config directory instead of a key in the OS keyring')
    .addHelpText('after', () =>
      helpText(
        `
The client secret is never taken as a plain flag value: it comes from
AGCTL_CLIENT_SECRET, --client-secret-stdin, --client-secret-file, or a hidden
prompt on a terminal. A token is fetched to prove the credentials before the
profile is saved, and the profile becomes the current one (see \`agctl auth
list\` and \`agctl auth switch\`) unless --no-switch is given.

Spaces, tabs and line breaks around the secret are dropped; one with
whitespace inside is refused.

The secret is sealed in the config directory with a key kept in the OS keyring
(macOS Keychain, Windows Credential Manager, the Secret Service on Linux), so
a copy of the directory opens nowhere. Where no keyring answers (no D-Bus
session, a container, CI set), or with --insecure-storage, the key is a file
in the config directory (one warning line says so when no keyring answered).

A base URL without a scheme (acme.example.com) is taken as https://; write
http:// out for a local server. A plain secret goes over plain http only to
this machine (localhost, 127.0.0.0/8, ::1); for a lab server on another host
without TLS, --insecure-http allows it, the profile keeps that choice, and
every command warns. Without a terminal, the client ID and base URL of an
existing profile are used when not given (to log in again with a new secret).`,
        [
          'agctl login                                  # interactive',
          'agctl login --base-url https://acme.example.com --client-id ci-bot \\\n      --client-secret-stdin < secret.txt',
          "AGCTL_CLIENT_SECRET=... agctl login --client-id 'bot@acme.example.com/x' --profile ci --no-switch",
          'agctl login --profile ci --no-input --client-secret-stdin < new-secret.txt   # a new secret, same client',
          'agctl login --profile lab --insecure-http --base-url http://lab.internal:8080 ...   # a lab server without TLS',
        ],
      ),
    );

export type LoginInput = Input<ReturnType<typeof command>>;
