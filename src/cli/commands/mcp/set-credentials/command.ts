// agctl mcp set-credentials: the declaration.
import { AUTH_KIND_LIST, authMethod, type AuthKind, type AuthOptionKey } from '../../../../api/mcp-auth.js';
import { Argument, Command, completeWith, Option, readsEnv, type EnvVar, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { collect, once } from '../../../tree/util.js';

const env = (name: string, meaning: string): EnvVar => ({ name, meaning: `mcp set-credentials: ${meaning}` });

/**
 * A flag whose value the command parses itself (enum names, kebab-case and
 * aliases are all accepted, so commander's `.choices()` would refuse some):
 * it completes to the short forms its help lists.
 */
const spelled = <F extends string>(flags: F, description: string, values: readonly string[]) =>
  completeWith(new Option(flags, description), values);

/** The auth methods' secret inputs, each with the variable it reads (the auth method table, src/api/mcp-auth.ts). */
const SECRETS = AUTH_KIND_LIST.flatMap((k) => Object.values(authMethod(k).secrets));
const envOf = (flag: string) => SECRETS.find((s) => s.flag === flag)!.env;
const AUTH_VALUES = AUTH_KIND_LIST.map((k) => authMethod(k).flag);
const hostedOnly = (k: AuthKind) => !(authMethod(k).configs as readonly string[]).includes('external');

export const command = () =>
  readsEnv(new Command('set-credentials'), ...SECRETS.map((x): EnvVar => env(x.env, `${x.name} (like ${x.flag}-stdin)`)))
    .description('Replace the authentication config and/or config fields of an MCP server')
    .argument('<app-id>', 'app ID')
    .addArgument(completeWith(new Argument('<connector-id>', 'MCP server (connector) ID'), { dynamic: 'connector-ids' }))

    .optionsGroup('Server:')
    .option('--external', 'the server is external (reached over HTTP)')
    .option('--hosted', 'the server is hosted (from an MCP catalog entry)')
    .option('--url <url>', 'external: endpoint URL (https)')
    .addOption(spelled('--transport <type>', 'external: streamable-http, sse or unspecified', ['streamable-http', 'sse', 'unspecified']))
    .addOption(
      spelled('--token-sharing <mode>', 'shared or per-user (per-user: OAuth2 authorization code, bearer, custom header, basic)', [
        'shared',
        'per-user',
      ]),
    )
    .addOption(
      spelled('--require-tool-approval <value>', 'true, false or unspecified (the tenant default)', ['true', 'false', 'unspecified']),
    )
    .option('--catalog-id <ksuid>', 'hosted: MCP catalog entry ID (27-character KSUID; default: read from the server)')
    .option('--source-app-id <id>', 'hosted: source app ID')
    .option(
      '--config <key=value>',
      'hosted: a non-secret config field (repeatable; secret fields: --config-file, --config-stdin, --config-secret)',
      collect,
    )
    .option('--config-file <key=path>', 'hosted: a config field read from a file, for secret fields (repeatable)', collect)
    .option(
      '--config-stdin <key>',
      'hosted: a config field read from stdin',
      once('--config-stdin', 'standard input holds one value (use --config-file or --config-secret for more)'),
    )
    .option('--config-secret <key>', 'hosted: a config field asked for with a hidden prompt (repeatable)', collect)
    .option(
      '--replace-config-fields',
      'hosted: the config fields given replace the stored ones; every field not given is cleared, secrets included',
    )

    .optionsGroup('Authentication (secrets: --X-stdin, --X-file, an env var, or a hidden prompt):')
    .addOption(
      spelled(
        '--auth <method>',
        AUTH_KIND_LIST.map((k) => `${authMethod(k).flag}${hostedOnly(k) ? ' (hosted)' : ''}`).join(', '),
        AUTH_VALUES,
      ),
    )
    .option('--bearer-token-stdin', `bearer token from stdin (env ${envOf('--bearer-token')})`)
    .option('--bearer-token-file <path>', 'bearer token from a file')
    .option('--header-name <name>', 'custom header name')
    .option('--header-value-stdin', `custom header value from stdin (env ${envOf('--header-value')})`)
    .option('--header-value-file <path>', 'custom header value from a file')
    .option('--username <name>', 'basic auth username')
    .option('--password-stdin', `basic auth password from stdin (env ${envOf('--password')})`)
    .option('--password-file <path>', 'basic auth password from a file')
    .option('--aws-access-key-id <id>', 'AWS SigV4 access key ID')
    .option('--aws-secret-access-key-stdin', `AWS secret access key from stdin (env ${envOf('--aws-secret-access-key')})`)
    .option('--aws-secret-access-key-file <path>', 'AWS secret access key from a file')
    .option('--aws-session-token-stdin', `AWS session token from stdin (env ${envOf('--aws-session-token')})`)
    .option('--aws-session-token-file <path>', 'AWS session token from a file')
    .option('--google-credentials-file <path>', 'Google service account key file (JSON)')
    .option('--google-credentials-stdin', `Google service account key from stdin (env ${envOf('--google-credentials')})`)
    .option('--scopes <list>', 'OAuth2 / Google scopes, comma-separated')

    .optionsGroup('OAuth2:')
    .addOption(
      spelled('--oauth2-mode <mode>', 'authorization-code, client-credentials, jwt-bearer, service or passthrough (legacy)', [
        'authorization-code',
        'client-credentials',
        'jwt-bearer',
        'service',
        'passthrough',
      ]),
    )
    .option('--oauth2-client-id <id>', 'client ID')
    .option('--oauth2-client-secret-stdin', `client secret from stdin (env ${envOf('--oauth2-client-secret')})`)
    .option('--oauth2-client-secret-file <path>', 'client secret from a file')
    .addOption(spelled('--oauth2-client-id-mode <mode>', 'authorization code: manual, dcr or cimd', ['manual', 'dcr', 'cimd']))
    .option('--oauth2-authorize-url <url>', 'authorization endpoint')
    .option('--oauth2-token-url <url>', 'token endpoint (required when OAuth2 credentials are created or rotated)')
    .option('--oauth2-issuer-url <url>', 'OIDC issuer, no path (service and passthrough modes)')
    .option('--oauth2-scopes-supported <list>', 'scopes the identity provider advertises (at most 256)')
    .option('--oauth2-code-challenge-methods <list>', 'PKCE methods advertised (at most 8)')
    .addOption(spelled('--oauth2-pkce <value>', 'authorization code: discover, s256 or disabled', ['discover', 's256', 'disabled']))
    .option('--oauth2-authorize-param <key=value>', 'extra authorize URL parameter (repeatable)', collect)
    .option('--oauth2-token-param <key=value>', 'extra token request parameter, client credentials (repeatable)', collect)
    .option('--jwt-private-key-file <path>', 'JWT bearer: PEM RSA private key file')
    .option('--jwt-private-key-stdin', `JWT bearer: PEM RSA private key from stdin (env ${envOf('--jwt-private-key')})`)
    .option('--jwt-issuer <iss>', 'JWT bearer: issuer claim')
    .option('--jwt-subject <sub>', 'JWT bearer: subject claim')
    .option('--jwt-audience <aud>', 'JWT bearer: audience claim (default: the token URL)')

    .optionsGroup('Request:')
    .option(
      '--update-mask <paths>',
      'the comma-separated fields to change, relative to the config (e.g. bearerToken.token,tokenSharing; default: the fields given)',
    )
    .option('--from-file <file>', 'send this JSON file (or - for stdin) as the whole request body')
    .option('--dry-run', 'list what would change, and send nothing (-o json: the request, every secret redacted)')
    .option('-i, --interactive', 'walk through the choices with prompts, starting from the current values (terminal only)')
    .addHelpText('after', () =>
      helpText(
        `
Only the fields given change; every other field keeps its stored value. The
request always carries an update mask naming them, relative to the config, as
the service keys it: --url masks url, an auth method masks its whole object
(bearerToken, oauth2, ...: replaced, a rotation), any --config masks
configFields. --update-mask names the fields instead (e.g. bearerToken.token
to change only the token); a path given as externalConfig.X or hostedConfig.X
is sent as X, with a note. A hosted request always carries the catalog ID:
without --catalog-id it is read from the server (GET .../mcp_servers/ID) and
sent outside the mask. Without --external or --hosted, the server's view says
which it is. A new auth method keeps the server's token sharing and tool
approval (sent with it, in the mask) unless --token-sharing or
--require-tool-approval name new ones; when it cannot keep PER_USER, nothing is
sent (exit 2). After the update, a warning names any asked-for change the
returned view does not show, and a line names each setting that changed.

The service replaces config fields as a whole (a field not sent is cleared,
secrets included), so agctl re-sends the stored values of the non-secret
fields you do not change (read from the server's view) and sends
configFields.NAME paths as configFields. Secret values cannot be read back:
when the catalog entry has a secret field you do not give again, agctl stops
(exit 2, nothing sent) unless --replace-config-fields says to clear it.

Secrets are never taken from a plain flag value (--config is for non-secret
catalog fields; it warns when a name looks secret); on a terminal a missing
secret is asked for with a hidden prompt. The request is checked with the
server's own rules before it is sent (exit 2 on a mistake).`,
        [
          'echo "$TOKEN" | agctl mcp set-credentials ai-tools wiki-mcp --url https://wiki-mcp.example.com/mcp --bearer-token-stdin',
          'agctl mcp set-credentials ai-tools wiki-mcp --external --update-mask bearerToken.token --bearer-token-file token.txt',
          'agctl mcp set-credentials ai-tools datadog-mcp --hosted --aws-access-key-id AKIA... --aws-secret-access-key-file aws.key',
          'agctl mcp set-credentials ai-tools tickets-mcp --external --username svc --password-file pw.txt --update-mask basicAuth',
          'agctl mcp set-credentials ai-tools datadog-mcp --hosted --config-file apiKey=dd.key',
          'agctl mcp set-credentials ai-tools datadog-mcp --hosted --config site=datadoghq.eu --config-file apiKey=dd.key --replace-config-fields',
          'agctl mcp set-credentials ai-tools crm-mcp --url https://crm-mcp.example.com/mcp --oauth2-mode client-credentials \\\n      --oauth2-token-url https://idp.example.com/token --oauth2-client-id crm --oauth2-client-secret-stdin < secret.txt',
          'agctl mcp set-credentials ai-tools wiki-mcp --from-file request.json --dry-run',
          'agctl mcp set-credentials ai-tools wiki-mcp --interactive',
        ],
      ),
    );

export type SetCredentialsInput = Input<ReturnType<typeof command>>;

// Every flag the auth method table names is declared above: one missing fails the typecheck here, naming its option key.
[] as Exclude<AuthOptionKey, keyof SetCredentialsInput['opts']>[] satisfies never[];
