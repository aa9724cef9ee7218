// agctl serve: the declaration.
import { Command, InvalidArgumentError, Option, printsTextOnly, type Input } from '../../declare.js';
import { helpText } from '../../help-text.js';
import { positiveInt } from '../../tree/util.js';

const port = (v: string): number => {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError('--port must be an integer from 0 to 65535');
  return Number(v);
};

/** It prints no JSON (so --jq is refused). */
export const command = () =>
  printsTextOnly(
    new Command('serve')
      .description('Run the embedded server: the same API on this machine, with demo data')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .addOption(
        new Option(
          '--port <port>',
          'port to listen on (default: the one this data directory used last when free, else a free one; 0: any free one)',
        ).argParser(port),
      )
      .option('--data-dir <dir>', 'data directory (default: the user data directory, or AGCTL_DATA_DIR)')
      .option('--ready-file <file>', 'write {baseUrl, clients, demo} as JSON (mode 0600) once listening')
      .option('--token-ttl <seconds>', 'lifetime of issued access tokens', positiveInt('--token-ttl', 86400 * 30), 3600)
      .option('--frontend-url <url>', 'admin UI URL used for deep links (credentialsSetupUrl)')
      .option('--trust-proxy', 'take the client address from X-Forwarded-For (webhook allowlists)')
      .option('--allow-insecure-jwks', 'allow webhook JWKS URLs over plain http on loopback addresses')
      .option('--quiet', 'do not log requests (without it: one line per request, or one a second with counts under load)')
      .addHelpText('after', () =>
        helpText(
          'Without --port, serve listens on the port it used last with the same data directory (kept in the data directory), so a profile logged in to it keeps working after a restart; when another process holds that port, it takes a free one for this run and says so.',
          ['agctl serve --port 8080', 'agctl serve --data-dir ./data --ready-file ready.json'],
        ),
      ),
  );

export type ServeInput = Input<ReturnType<typeof command>>;
