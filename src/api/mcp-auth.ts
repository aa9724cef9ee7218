// The MCP server auth methods: one declaration each, the one home of every
// fact about a method (service-api.md §2.1, §2.2): its request object (the
// auth oneof's member), the view's method and the view fields that report it,
// the configs that accept it, whether it can be PER_USER, its secret fields
// (their flags, environment variables and when they are needed) and the
// non-secret fields agctl sets from flags and prompts, with the labels of the
// walk-through and the summary. The rest is derived from here: the secret
// field names (sealing, redaction), the accepted kinds of each config, the
// server's rules on required fields, `mcp set-credentials`' --auth values, its
// secret inputs and their variables, the walk-through's questions and the
// summary's lines.
//
// Loads nothing: redaction (every command) and the declaration of
// `mcp set-credentials` (`agctl --help`) read it. The request field types are
// zod schemas in mcp-schema.ts (AUTH_FIELDS), which the typechecker makes
// follow this table; adding a method is the walk-through in src/cli/README.md.

export const AuthMethod = {
  UNSPECIFIED: 'MCP_SERVER_AUTH_METHOD_UNSPECIFIED',
  NONE: 'MCP_SERVER_AUTH_METHOD_NONE',
  BEARER_TOKEN: 'MCP_SERVER_AUTH_METHOD_BEARER_TOKEN',
  OAUTH2: 'MCP_SERVER_AUTH_METHOD_OAUTH2',
  CUSTOM_HEADER: 'MCP_SERVER_AUTH_METHOD_CUSTOM_HEADER',
  AWS_SIGV4: 'MCP_SERVER_AUTH_METHOD_AWS_SIGV4',
  BASIC_AUTH: 'MCP_SERVER_AUTH_METHOD_BASIC_AUTH',
} as const;
export const OAuth2Mode = {
  UNSPECIFIED: 'MCP_SERVER_AUTH_OAUTH2_MODE_UNSPECIFIED',
  SERVICE: 'MCP_SERVER_AUTH_OAUTH2_MODE_SERVICE',
  PASSTHROUGH: 'MCP_SERVER_AUTH_OAUTH2_MODE_PASSTHROUGH',
  CLIENT_CREDENTIALS: 'MCP_SERVER_AUTH_OAUTH2_MODE_CLIENT_CREDENTIALS',
  JWT_BEARER: 'MCP_SERVER_AUTH_OAUTH2_MODE_JWT_BEARER',
  GOOGLE_SERVICE_ACCOUNT: 'MCP_SERVER_AUTH_OAUTH2_MODE_GOOGLE_SERVICE_ACCOUNT',
  AUTHORIZATION_CODE: 'MCP_SERVER_AUTH_OAUTH2_MODE_AUTHORIZATION_CODE',
} as const;
export const OAuth2ClientIdMode = {
  UNSPECIFIED: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_UNSPECIFIED',
  DCR: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_DCR',
  CIMD: 'MCP_SERVER_AUTH_OAUTH2_CLIENT_ID_MODE_CIMD',
} as const;

type Values<E> = E[keyof E];
type Kind = 'external' | 'hosted';
/** When a field is needed: always, with SHARED token sharing, or in these OAuth2 modes. */
type Need = 'always' | 'shared' | readonly Values<typeof OAuth2Mode>[];

/** A secret field: never a plain flag value; `--X-stdin`, `--X-file`, its variable or a hidden prompt. */
interface SecretSpec {
  /** The flag stem X of `--X-stdin` and `--X-file`. */
  readonly flag: `--${string}`;
  readonly env: `AGCTL_MCP_${string}`;
  /** What it is, in messages, prompts, the summary and `agctl help environment`. */
  readonly name: string;
  /** The server refuses a result without it (service-api.md §7). */
  readonly required?: Exclude<Need, readonly string[]>;
  /** agctl asks for it (a usage error without a terminal) also in these cases. */
  readonly asked?: Need;
  /** Optional, and asked only after this yes-or-no question (a session token). */
  readonly askedIf?: string;
  /** Whitespace may mean something: kept as given (else a one-word token). */
  readonly text?: true;
  /** Multi-line (PEM, JSON): prompted for as a file path. */
  readonly multiline?: true;
  /** The view's boolean that reports it set. */
  readonly view?: string;
  /** Its name in the summary's `Secrets:` line, when not `name`. */
  readonly summary?: string;
}

/** A non-secret field of the request object that a flag or the walk-through sets. */
interface ValueSpec {
  /** The flag that sets it (`--header-name <name>`'s long form). */
  readonly flag?: `--${string}`;
  /** A flag several methods share (`--scopes`) does not by itself choose the method. */
  readonly shared?: true;
  /** How the flag's text becomes the value: a list (comma or space separated), key=value pairs, an enum. */
  readonly parse?: 'list' | 'pairs' | { readonly values: readonly string[]; readonly aliases?: Readonly<Record<string, string>> };
  /** The walk-through's question and the summary's label; asked by the generic walk-through when `ask` is set. */
  readonly label: string;
  /** The server refuses a result without it (service-api.md §7). */
  readonly required?: Exclude<Need, readonly string[]>;
  /** Asked in the walk-through: required (always or with SHARED token sharing), else optional. */
  readonly ask?: 'required' | 'shared' | 'optional';
  /** A value the field must match, and what the walk-through says when it does not. */
  readonly pattern?: { readonly re: RegExp; readonly hint: string };
  /** The view member that reports it. */
  readonly view?: string;
}

interface AuthMethodSpec {
  /** The view's `authMethod` for it. */
  readonly method: Values<typeof AuthMethod>;
  /** The view's `oauth2Mode` when two methods share `method` (a Google service account is OAUTH2). */
  readonly viewMode?: Values<typeof OAuth2Mode>;
  /** `--auth` value, and the other spellings it accepts. */
  readonly flag: string;
  readonly aliases: readonly string[];
  /** The walk-through's choice. */
  readonly label: string;
  /** The configs whose auth oneof has it. */
  readonly configs: readonly Kind[];
  /** PER_USER token sharing: supported, or only in these OAuth2 modes. */
  readonly perUser: boolean | readonly Values<typeof OAuth2Mode>[];
  readonly secrets: Readonly<Record<string, SecretSpec>>;
  readonly values: Readonly<Record<string, ValueSpec>>;
  /** Summary lines from view members that no request field sets (derived by the service). */
  readonly viewRows?: readonly (readonly [label: string, member: string])[];
}

/** The values of --oauth2-mode. (The OAuth2 walk-through and summary depend on the mode: prompts.ts, summary.ts.) */
const OAUTH2_MODE_FLAG = { values: Object.values(OAuth2Mode) } as const;

export const AUTH_METHOD_TABLE = {
  none: {
    method: AuthMethod.NONE,
    flag: 'none',
    aliases: [],
    label: 'No authentication',
    configs: ['external', 'hosted'],
    perUser: false,
    secrets: {},
    values: {},
  },
  bearerToken: {
    method: AuthMethod.BEARER_TOKEN,
    flag: 'bearer',
    aliases: ['bearer-token'],
    label: 'Bearer token',
    configs: ['external', 'hosted'],
    perUser: true,
    secrets: {
      token: {
        flag: '--bearer-token',
        env: 'AGCTL_MCP_BEARER_TOKEN',
        name: 'bearer token',
        required: 'shared',
        view: 'bearerTokenConfigured',
      },
    },
    values: {},
  },
  oauth2: {
    method: AuthMethod.OAUTH2,
    flag: 'oauth2',
    aliases: [],
    label: 'OAuth2',
    configs: ['external', 'hosted'],
    perUser: [OAuth2Mode.AUTHORIZATION_CODE, OAuth2Mode.PASSTHROUGH],
    secrets: {
      clientSecret: {
        flag: '--oauth2-client-secret',
        env: 'AGCTL_MCP_OAUTH2_CLIENT_SECRET',
        name: 'OAuth2 client secret',
        summary: 'OAuth2 client credentials',
        asked: [OAuth2Mode.CLIENT_CREDENTIALS],
        text: true,
        view: 'oauth2CredentialsConfigured',
      },
      jwtPrivateKey: {
        flag: '--jwt-private-key',
        env: 'AGCTL_MCP_JWT_PRIVATE_KEY',
        name: 'JWT private key (PEM)',
        summary: 'JWT private key',
        asked: [OAuth2Mode.JWT_BEARER],
        text: true,
        multiline: true,
        view: 'oauth2JwtPrivateKeyConfigured',
      },
    },
    values: {
      mode: { flag: '--oauth2-mode', parse: OAUTH2_MODE_FLAG, label: 'OAuth2 mode', view: 'oauth2Mode' },
      clientId: { flag: '--oauth2-client-id', label: 'Client ID', view: 'oauth2ClientId' },
      clientIdMode: {
        flag: '--oauth2-client-id-mode',
        parse: { values: Object.values(OAuth2ClientIdMode), aliases: { manual: OAuth2ClientIdMode.UNSPECIFIED } },
        label: 'Client ID mode',
      },
      authorizeUrl: { flag: '--oauth2-authorize-url', label: 'Authorize URL', view: 'oauth2AuthorizeUrl' },
      tokenUrl: { flag: '--oauth2-token-url', label: 'Token URL', view: 'oauth2TokenUrl' },
      issuerUrl: { flag: '--oauth2-issuer-url', label: 'Issuer URL', view: 'oauth2IssuerUrl' },
      scopes: { flag: '--scopes', shared: true, parse: 'list', label: 'Scopes' },
      scopesSupported: { flag: '--oauth2-scopes-supported', parse: 'list', label: 'Scopes supported' },
      codeChallengeMethodsSupported: { flag: '--oauth2-code-challenge-methods', parse: 'list', label: 'PKCE methods supported' },
      pkce: { flag: '--oauth2-pkce', label: 'PKCE' },
      extraAuthorizeParams: { flag: '--oauth2-authorize-param', parse: 'pairs', label: 'Extra authorize parameters' },
      extraTokenParams: { flag: '--oauth2-token-param', parse: 'pairs', label: 'Extra token parameters' },
      jwtIssuer: { flag: '--jwt-issuer', label: 'JWT issuer', view: 'oauth2JwtIssuer' },
      jwtSubject: { flag: '--jwt-subject', label: 'JWT subject', view: 'oauth2JwtSubject' },
      jwtAudience: { flag: '--jwt-audience', label: 'JWT audience', view: 'oauth2JwtAudience' },
    },
  },
  customHeader: {
    method: AuthMethod.CUSTOM_HEADER,
    flag: 'custom-header',
    aliases: ['header'],
    label: 'Custom header',
    configs: ['external', 'hosted'],
    perUser: true,
    secrets: {
      headerValue: {
        flag: '--header-value',
        env: 'AGCTL_MCP_HEADER_VALUE',
        name: 'custom header value',
        summary: 'header value',
        required: 'shared',
        text: true,
        view: 'customHeaderValueConfigured',
      },
    },
    values: {
      headerName: {
        flag: '--header-name',
        label: 'Header name',
        required: 'always',
        ask: 'required',
        // An HTTP header field name (RFC 9110 token); HTTP_TOKEN in src/lib/net.ts, which the server's check uses.
        pattern: { re: /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, hint: 'a valid HTTP header name, e.g. X-Api-Key' },
        view: 'customHeaderName',
      },
    },
  },
  googleServiceAccount: {
    method: AuthMethod.OAUTH2,
    viewMode: OAuth2Mode.GOOGLE_SERVICE_ACCOUNT,
    flag: 'google-service-account',
    aliases: ['google'],
    label: 'Google service account',
    configs: ['hosted'],
    perUser: false,
    secrets: {
      credentialsJson: {
        flag: '--google-credentials',
        env: 'AGCTL_MCP_GOOGLE_CREDENTIALS',
        name: 'Google service account key (JSON)',
        summary: 'service account key',
        required: 'always',
        text: true,
        multiline: true,
        view: 'oauth2JwtPrivateKeyConfigured',
      },
    },
    values: {
      scopes: { flag: '--scopes', shared: true, parse: 'list', label: 'Scopes (comma-separated)', ask: 'optional', view: 'oauth2Scopes' },
    },
    viewRows: [
      ['OAuth2 mode', 'oauth2Mode'],
      ['Service account', 'oauth2JwtIssuer'],
      ['Token URL', 'oauth2TokenUrl'],
    ],
  },
  awsSigv4: {
    method: AuthMethod.AWS_SIGV4,
    flag: 'aws-sigv4',
    aliases: ['aws'],
    label: 'AWS SigV4',
    configs: ['hosted'],
    perUser: false,
    secrets: {
      secretAccessKey: {
        flag: '--aws-secret-access-key',
        env: 'AGCTL_MCP_AWS_SECRET_ACCESS_KEY',
        name: 'AWS secret access key',
        required: 'always',
        view: 'awsSecretAccessKeyConfigured',
      },
      sessionToken: {
        flag: '--aws-session-token',
        env: 'AGCTL_MCP_AWS_SESSION_TOKEN',
        name: 'AWS session token',
        askedIf: 'Are these temporary credentials (with a session token)?',
        view: 'awsSessionTokenConfigured',
      },
    },
    values: {
      accessKeyId: { flag: '--aws-access-key-id', label: 'AWS access key ID', required: 'always', ask: 'required', view: 'awsAccessKeyId' },
    },
  },
  basicAuth: {
    method: AuthMethod.BASIC_AUTH,
    flag: 'basic',
    aliases: ['basic-auth'],
    label: 'Basic auth (username and password)',
    configs: ['external', 'hosted'],
    perUser: true,
    secrets: {
      password: {
        flag: '--password',
        env: 'AGCTL_MCP_PASSWORD',
        name: 'basic auth password',
        summary: 'password',
        asked: 'shared',
        text: true,
        view: 'basicAuthPasswordConfigured',
      },
    },
    values: {
      username: { flag: '--username', label: 'Username', required: 'shared', ask: 'shared', view: 'basicAuthUsername' },
    },
  },
} as const satisfies Readonly<Record<string, AuthMethodSpec>>;

/** The auth objects of an MCP config (`bearerToken`, `oauth2`, ...): the request's oneof members. */
export type AuthKind = keyof typeof AUTH_METHOD_TABLE;
/** A method's declaration, read without its literal types. */
export const authMethod = (kind: AuthKind): AuthMethodSpec => AUTH_METHOD_TABLE[kind];
export const AUTH_KIND_LIST = Object.keys(AUTH_METHOD_TABLE) as AuthKind[];
export const isAuthKind = (s: string): s is AuthKind => Object.hasOwn(AUTH_METHOD_TABLE, s);

/**
 * The request auth object a view's `authMethod` stands for (`oauth2Mode` tells
 * apart methods that share one: a Google service account is OAUTH2); undefined
 * for none set or a method this version does not know.
 */
export function authKindOfView(method: unknown, oauth2Mode?: unknown): AuthKind | undefined {
  const same = AUTH_KIND_LIST.filter((k) => authMethod(k).method === method);
  return (
    same.find((k) => authMethod(k).viewMode !== undefined && authMethod(k).viewMode === oauth2Mode) ??
    same.find((k) => authMethod(k).viewMode === undefined)
  );
}

/** True when `kind` (for OAuth2: in `oauth2Mode`) supports PER_USER token sharing. */
export function perUserSupported(kind: string, oauth2Mode: string): boolean {
  if (!isAuthKind(kind)) return false;
  const p = authMethod(kind).perUser;
  return typeof p === 'boolean' ? p : (p as readonly string[]).includes(oauth2Mode);
}

/** The methods that can be PER_USER, in words (`bearerToken, customHeader, basicAuth and oauth2 in AUTHORIZATION_CODE or PASSTHROUGH mode`). */
export function perUserMethods(): string {
  const words = AUTH_KIND_LIST.flatMap((k) => {
    const p = authMethod(k).perUser;
    if (p === true) return [k];
    if (p === false) return [];
    return [`${k} in ${p.map((m) => m.replace('MCP_SERVER_AUTH_OAUTH2_MODE_', '')).join(' or ')} mode`];
  });
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
}

/** Is a field with this need needed, with this token sharing and OAuth2 mode? */
export function needed(need: Need | undefined, shared: boolean, mode: string): boolean {
  if (need === undefined) return false;
  if (need === 'always') return true;
  if (need === 'shared') return shared;
  return (need as readonly string[]).includes(mode);
}

/** `--bearer-token` -> `bearerToken`: the key commander reads a flag under. */
export const optionKey = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type KeyOf<F> = F extends `--${infer N}` ? Camel<N> : never;
type Table = typeof AUTH_METHOD_TABLE;
type SecretFlags = {
  [K in AuthKind]: {
    [S in keyof Table[K]['secrets']]: Table[K]['secrets'][S] extends { flag: infer F } ? F : never;
  }[keyof Table[K]['secrets']];
}[AuthKind];
type ValueFlags = {
  [K in AuthKind]: {
    [V in keyof Table[K]['values']]: Table[K]['values'][V] extends { flag: infer F } ? F : never;
  }[keyof Table[K]['values']];
}[AuthKind];
/** The option keys `mcp set-credentials` must declare for the table's flags (checked in its command.ts). */
export type AuthOptionKey = KeyOf<ValueFlags> | `${KeyOf<SecretFlags>}${'Stdin' | 'File'}`;
type ViewOf<T> = T extends { view: infer V extends string } ? V : never;
type RowsOf<T> = T extends { viewRows: readonly (readonly [string, infer M extends string])[] } ? M : never;
/** The view members the table names (checked against the view's schema in mcp-schema.ts). */
export type AuthViewMember = {
  [K in AuthKind]:
    | ViewOf<Table[K]['secrets'][keyof Table[K]['secrets']]>
    | ViewOf<Table[K]['values'][keyof Table[K]['values']]>
    | RowsOf<Table[K]>;
}[AuthKind];
