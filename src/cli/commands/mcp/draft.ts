// Building an UpdateCredentialsRequest from `agctl mcp set-credentials` flags:
// the options object, the secret inputs, the draft the flags (and prompts) fill,
// and the request body it becomes. Secrets never come from a plain flag value.
import { accessSync, constants } from 'node:fs';
import { ApiError } from '../../../api/errors.js';
import { UsageError } from '../../../lib/exit.js';
import { AUTH_KIND_LIST, authMethod, needed, optionKey } from '../../../api/mcp-auth.js';
import {
  AUTH_KINDS,
  OPTIONAL_BOOLS,
  TOKEN_SHARING,
  TRANSPORT_TYPES,
  TokenSharing,
  isUnlistedEnumValue,
  shortEnum,
  type ConfigKind,
  type UpdateCredentialsRequest,
} from '../../../api/mcp-schema.js';
import type { AuthKind } from '../../../api/secret-fields.js';
import { rootOf } from '../../../api/mcp-config.js';
import { parseUpdateMask, relativeUpdateMask } from '../../../api/mcp-mask.js';
import type { CommandContext } from '../../context.js';
import { missingSecret, promptProblem, readSecret, type SecretSource } from '../../secrets.js';
import { cleanSecret } from '../../../lib/secret-text.js';
import type { SetCredentialsInput } from './set-credentials/command.js';

/** The flags of `mcp set-credentials`, typed by its declaration, and its two arguments. */
export type SetCredentialsOptions = SetCredentialsInput['opts'] & { appId: string; connectorId: string };

/** A secret the command can take: from `<flag>-stdin`, `<flag>-file`, an env var, or a prompt (the auth method table's `secrets`). */
interface SecretInput {
  /** The option key of the flag stem (`bearerToken` for --bearer-token). */
  key: string;
  kind: AuthKind;
  field: string;
  name: string;
  flag: string;
  env: string;
  /** Multi-line (PEM, JSON): prompted for as a file path, not typed into a hidden prompt. */
  multiline?: boolean;
  /**
   * Whitespace may mean something (a password, a header value, an OAuth2 client
   * secret, which RFC 6749 lets hold spaces, PEM, JSON): the
   * value is kept as given, less one trailing line break from a file or a pipe.
   * Otherwise it is a one-word token: whitespace around it is dropped, inside it refused.
   */
  text?: boolean;
}

export const SECRET_INPUTS: readonly SecretInput[] = AUTH_KIND_LIST.flatMap((kind) =>
  Object.entries(authMethod(kind).secrets).map(([field, s]) => ({
    key: optionKey(s.flag),
    kind,
    field,
    name: s.name,
    flag: s.flag,
    env: s.env,
    multiline: s.multiline,
    text: s.text,
  })),
);
export const secretInput = (kind: string, field: string) => SECRET_INPUTS.find((s) => s.kind === kind && s.field === field);

type OptKey = keyof SetCredentialsOptions;
const stdinKey = (s: SecretInput) => `${s.key}Stdin` as OptKey;
const fileKey = (s: SecretInput) => `${s.key}File` as OptKey;

/** The option names that select (or belong to) each auth method: its own value flags and its secrets' inputs. */
const AUTH_OPTION_KEYS = Object.fromEntries(
  AUTH_KIND_LIST.map((kind) => [
    kind,
    [
      ...Object.values(authMethod(kind).values).flatMap((v) => (v.flag && !v.shared ? [optionKey(v.flag) as OptKey] : [])),
      ...SECRET_INPUTS.filter((s) => s.kind === kind).flatMap((s) => [stdinKey(s), fileKey(s)]),
    ],
  ]),
) as Record<AuthKind, OptKey[]>;
/** Methods only hosted configs have. */
const HOSTED_ONLY = AUTH_KIND_LIST.filter((k) => !(authMethod(k).configs as readonly string[]).includes('external'));

const EXTERNAL_KEYS: OptKey[] = ['url', 'transport'];
const HOSTED_KEYS: OptKey[] = [
  'catalogId',
  'sourceAppId',
  'config',
  'configFile',
  'configStdin',
  'configSecret',
  ...HOSTED_ONLY.flatMap((k) => AUTH_OPTION_KEYS[k]),
];
/** Options that build the request body (all of them conflict with --from-file). */
export const BUILDER_KEYS: OptKey[] = [
  'external',
  'hosted',
  'tokenSharing',
  'requireToolApproval',
  'auth',
  'scopes',
  'updateMask',
  'interactive',
  ...EXTERNAL_KEYS,
  ...HOSTED_KEYS,
  ...Object.values(AUTH_OPTION_KEYS).flat(),
];

export const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`)}`;
export const isGiven = (v: unknown) => v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0);
const given = (opts: SetCredentialsOptions, keys: OptKey[]) => [...new Set(keys)].filter((k) => isGiven(opts[k]));

/** `--auth` values, their other spellings, and the request's own names. */
const AUTH_NAMES: Record<string, AuthKind> = Object.fromEntries(
  AUTH_KIND_LIST.flatMap((k) => [k, authMethod(k).flag, ...authMethod(k).aliases].map((name) => [name.toLowerCase(), k])),
);
const AUTH_FLAG_VALUE = (k: AuthKind) => authMethod(k).flag;

/** The draft request the flags and prompts fill. */
export interface Draft {
  kind?: ConfigKind;
  settings: {
    url?: string;
    transportType?: string;
    tokenSharing?: string;
    requireToolApproval?: string;
    mcpServerCatalogId?: string;
    sourceAppId?: string;
  };
  configFields?: Record<string, string>;
  auth?: AuthKind;
  values: Record<string, unknown>;
  secrets: Record<string, string>;
  mask?: string;
  maskPaths: string[] | null;
  /** The config fields given replace the stored ones (--replace-config-fields, or every field asked in the walk-through). */
  replaceConfigFields?: boolean;
}

const kebab = (v: string) => shortEnum(v).toLowerCase().replace(/_/g, '-');

/** Parses an enum flag: the short form in any case (`per-user`, `SSE`) or the full name. */
export function parseEnumFlag(flag: string, raw: string, values: readonly string[], aliases: Record<string, string> = {}): string {
  // A full-form value this version does not list is passed on (service-api.md §9); validation warns about it.
  if (values.includes(raw) || isUnlistedEnumValue(values, raw)) return raw;
  const norm = raw.trim().toLowerCase().replace(/_/g, '-');
  if (aliases[norm]) return aliases[norm]!;
  const hit = values.find((v) => kebab(v) === norm);
  if (hit) return hit;
  throw new UsageError(
    `${flag}: unknown value "${raw}"; expected one of ${[...Object.keys(aliases), ...values.map(kebab)].filter((v, i, a) => a.indexOf(v) === i).join(', ')}`,
  );
}

export const splitList = (s: string) => s.split(/[\s,]+/).filter(Boolean);

/** Parses repeated `key=value` flags into a map; messages never quote a value. */
export function parsePairs(flag: string, items: string[] | undefined): Record<string, string> | undefined {
  if (!items || items.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const item of items) {
    const i = item.indexOf('=');
    const key = i < 0 ? '' : item.slice(0, i).trim();
    if (i <= 0 || key === '') throw new UsageError(`${flag}: expected key=value${i > 0 ? '' : ` (got an argument without "=")`}`);
    if (Object.hasOwn(out, key)) throw new UsageError(`${flag}: ${key} is given twice`);
    out[key] = item.slice(i + 1);
  }
  return out;
}

/** Builds the draft from the flags alone (no I/O). */
export function draftFromFlags(opts: SetCredentialsOptions): Draft {
  if (opts.external && opts.hosted) throw new UsageError('use either --external or --hosted, not both');
  const d: Draft = { settings: {}, values: {}, secrets: {}, maskPaths: null };

  // The kind: explicit, or implied by kind-specific flags.
  const ext = given(opts, EXTERNAL_KEYS);
  const hosted = given(opts, HOSTED_KEYS);
  if (opts.external && hosted.length)
    throw new UsageError(
      `${hosted.map(flagName).join(', ')} ${hosted.length > 1 ? 'apply' : 'applies'} to hosted servers only, not with --external`,
    );
  if (opts.hosted && ext.length)
    throw new UsageError(
      `${ext.map(flagName).join(', ')} ${ext.length > 1 ? 'apply' : 'applies'} to external servers only, not with --hosted`,
    );
  if (ext.length && hosted.length)
    throw new UsageError(
      `${ext.map(flagName).join(', ')} (external) and ${hosted.map(flagName).join(', ')} (hosted) cannot be combined; pass --external or --hosted`,
    );
  d.kind = opts.external || ext.length ? 'external' : opts.hosted || hosted.length ? 'hosted' : undefined;

  // The auth method: explicit, or implied by method-specific flags.
  const implied = (Object.keys(AUTH_OPTION_KEYS) as AuthKind[]).filter((k) => given(opts, AUTH_OPTION_KEYS[k]).length > 0);
  if (opts.auth !== undefined) {
    // Every request name is in AUTH_NAMES too (lower case): `bearerToken` is `bearertoken`.
    const name = opts.auth.trim().toLowerCase();
    const kind = Object.hasOwn(AUTH_NAMES, name) ? AUTH_NAMES[name] : undefined;
    if (!kind)
      throw new UsageError(`--auth: unknown method "${opts.auth}"; expected one of ${AUTH_KIND_LIST.map(AUTH_FLAG_VALUE).join(', ')}`);
    const other = implied.filter((k) => k !== kind);
    if (other.length) {
      throw new UsageError(
        `${given(opts, AUTH_OPTION_KEYS[other[0]!]).map(flagName).join(', ')} belong${given(opts, AUTH_OPTION_KEYS[other[0]!]).length > 1 ? '' : 's'} to --auth ${AUTH_FLAG_VALUE(other[0]!)}, not --auth ${AUTH_FLAG_VALUE(kind)}`,
      );
    }
    d.auth = kind;
  } else if (implied.length > 1) {
    throw new UsageError(
      `flags for more than one authentication method: ${implied.map((k) => `${given(opts, AUTH_OPTION_KEYS[k]).map(flagName).join(', ')} (${AUTH_FLAG_VALUE(k)})`).join('; ')}; at most one may be set`,
    );
  } else if (implied.length === 1) {
    d.auth = implied[0];
  }
  if (d.auth && d.kind && !AUTH_KINDS[d.kind].includes(d.auth)) {
    throw new UsageError(`--auth ${AUTH_FLAG_VALUE(d.auth)} is available for hosted servers only`);
  }
  if (d.auth && HOSTED_ONLY.includes(d.auth)) d.kind ??= 'hosted';

  // Settings.
  if (opts.url !== undefined) d.settings.url = opts.url;
  if (opts.transport !== undefined) d.settings.transportType = parseEnumFlag('--transport', opts.transport, TRANSPORT_TYPES);
  if (opts.tokenSharing !== undefined) d.settings.tokenSharing = parseEnumFlag('--token-sharing', opts.tokenSharing, TOKEN_SHARING);
  if (opts.requireToolApproval !== undefined) {
    d.settings.requireToolApproval = parseEnumFlag('--require-tool-approval', opts.requireToolApproval, OPTIONAL_BOOLS, {
      yes: 'OPTIONAL_BOOL_TRUE',
      no: 'OPTIONAL_BOOL_FALSE',
    });
  }
  if (opts.catalogId !== undefined) d.settings.mcpServerCatalogId = opts.catalogId;
  if (opts.sourceAppId !== undefined) d.settings.sourceAppId = opts.sourceAppId;
  const plainConfig = parsePairs('--config', opts.config);
  if (plainConfig) d.configFields = plainConfig;
  // --replace-config-fields alone: the set given is empty, so every stored field is cleared.
  if (opts.replaceConfigFields && opts.fromFile === undefined) {
    if (d.kind === 'external') throw new UsageError('--replace-config-fields applies to hosted servers only, not with --external');
    d.kind = 'hosted';
    d.configFields ??= {};
  }

  // Non-secret auth fields, as the method declares their flags.
  const scoped = AUTH_KIND_LIST.filter((k) => Object.values(authMethod(k).values).some((v) => v.flag === '--scopes'));
  if (opts.scopes !== undefined && !(d.auth && scoped.includes(d.auth))) {
    throw new UsageError(`--scopes applies to ${scoped.map((k) => `--auth ${AUTH_FLAG_VALUE(k)}`).join(' and ')}`);
  }
  if (d.auth) {
    for (const [field, spec] of Object.entries(authMethod(d.auth).values)) {
      const raw = spec.flag ? (opts as Record<string, unknown>)[optionKey(spec.flag)] : undefined;
      if (raw === undefined) continue;
      const flag = spec.flag!;
      const p = spec.parse;
      if (Array.isArray(raw) && raw.length === 0) continue;
      if (p === 'list') d.values[field] = splitList(raw as string);
      else if (p === 'pairs') d.values[field] = parsePairs(flag, raw as string[]);
      else if (p) d.values[field] = parseEnumFlag(flag, raw as string, p.values, p.aliases);
      else d.values[field] = raw;
    }
  }

  // The mask: put in the request as given (paths under the config's name are
  // made relative before it is sent); parsed here to decide which secrets are needed.
  if (opts.updateMask !== undefined) {
    d.mask = opts.updateMask;
    if (!d.kind) d.kind = kindFromMask(opts.updateMask);
    if (d.kind) d.maskPaths = maskPaths(opts.updateMask, d.kind);
  }
  return d;
}

/** The relative paths of a user's mask (null when empty); a mistake is a usage error. */
export const maskPaths = (mask: string, kind: ConfigKind) => asUsage(() => parseUpdateMask(relativeUpdateMask(mask).mask, kind));

/** The kind an updateMask implies, if any (`url` -> external, `configFields` -> hosted, ...). */
function kindFromMask(mask: string): ConfigKind | undefined {
  const heads = mask.split(',').map((p) => p.trim().split('.')[0]!);
  if (heads.some((h) => h === 'externalConfig' || h === 'url' || h === 'transportType')) return 'external';
  if (heads.some((h) => ['hostedConfig', 'mcpServerCatalogId', 'sourceAppId', 'configFields', ...HOSTED_ONLY].includes(h))) return 'hosted';
  return undefined;
}

/** Runs shared validation code and turns its ApiError into a usage error (exit 2) with the same message. */
export function asUsage<T>(fn: () => T, hint?: (message: string) => string | undefined): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ApiError) throw new UsageError(err.message, hint?.(err.message));
    throw err;
  }
}

/** Only one input can come from stdin. */
export function checkStdinUse(opts: SetCredentialsOptions): void {
  const users = [
    ...SECRET_INPUTS.filter((s) => opts[stdinKey(s)]).map((s) => `${s.flag}-stdin`),
    ...(opts.configStdin !== undefined ? ['--config-stdin'] : []),
    ...(opts.fromFile === '-' ? ['--from-file -'] : []),
  ];
  if (users.length > 1) throw new UsageError(`only one input can come from stdin, but ${users.join(' and ')} both read it`);
}

/** Is the secret's field covered by the mask (always, without a mask)? */
export function inMask(d: Draft, s: SecretInput): boolean {
  return !d.maskPaths || d.maskPaths.includes(s.kind) || d.maskPaths.includes(`${s.kind}.${s.field}`);
}

/** Secrets the chosen method cannot do without (the server's rules, and what agctl asks for), within the mask. */
export function neededSecrets(d: Draft): SecretInput[] {
  if (!d.auth) return [];
  const shared = d.settings.tokenSharing !== TokenSharing.PER_USER;
  const mode = (d.values.mode as string | undefined) ?? '';
  const secrets = authMethod(d.auth).secrets;
  const need = (f: string) => needed(secrets[f]!.required, shared, mode) || needed(secrets[f]!.asked, shared, mode);
  return SECRET_INPUTS.filter((s) => s.kind === d.auth && need(s.field) && inMask(d, s));
}

/** Reads the secrets given through their -stdin/-file flags (for the chosen method). */
export async function readFlagSecrets(opts: SetCredentialsOptions, d: Draft, ctx: CommandContext): Promise<void> {
  for (const s of SECRET_INPUTS) {
    if (s.kind !== d.auth) continue;
    const stdin = Boolean(opts[stdinKey(s)]);
    const file = opts[fileKey(s)] as string | undefined;
    if (!stdin && file === undefined) continue;
    const value = await readSecret(ctx, { name: s.name, flag: s.flag, stdin, file, text: s.text });
    if (value !== undefined) d.secrets[s.field] = value;
  }
}

/**
 * A secret not given by flag: from its env var, else a prompt on a terminal
 * (a hidden prompt, or a file path for multi-line keys). Returns undefined when
 * none is available and it is optional; throws the usage error naming the
 * flags and env var when it is required.
 */
export async function obtainSecret(
  d: Draft,
  s: SecretInput,
  ctx: CommandContext,
  opts: { required: boolean; message?: string },
): Promise<void> {
  if (d.secrets[s.field] !== undefined) return;
  const fromEnv = ctx.env[s.env];
  if (fromEnv) {
    d.secrets[s.field] = s.text ? fromEnv : cleanSecret(fromEnv, s.name, s.env);
    return;
  }
  const src: SecretSource = {
    name: s.name,
    flag: s.flag,
    env: s.env,
    prompt: opts.message ?? `${s.name[0]!.toUpperCase()}${s.name.slice(1)}`,
  };
  if (!ctx.canPrompt) {
    if (opts.required) throw missingSecret(src);
    return;
  }
  if (s.multiline) {
    const path = await ctx.prompt.input(`Path to the file holding the ${s.name}${opts.required ? '' : ' (empty to skip)'}`, {
      validate: (p) => {
        if (!p.trim()) return opts.required ? 'a file path is required' : true;
        try {
          accessSync(p.trim(), constants.R_OK);
          return true;
        } catch (err) {
          return `cannot read ${p.trim()}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
        }
      },
    });
    const value = path.trim() ? await readSecret(ctx, { name: s.name, flag: s.flag, file: path.trim(), text: s.text }) : undefined;
    if (value !== undefined) d.secrets[s.field] = value;
    return;
  }
  const value = await ctx.prompt.password(`${src.prompt}${opts.required ? '' : ' (empty to skip)'}`, {
    validate: (x) => (!opts.required && !x.trim()) || (promptProblem(x, s) ?? true),
  });
  const typed = s.text ? value : cleanSecret(value, s.name, 'the prompt');
  if (typed !== '') d.secrets[s.field] = typed;
}

/** Reads --config-file, --config-stdin and --config-secret into the draft's config fields. */
export async function readConfigInputs(opts: SetCredentialsOptions, d: Draft, ctx: CommandContext): Promise<void> {
  const set = (flag: string, key: string, value: string) => {
    d.configFields ??= {};
    if (Object.hasOwn(d.configFields, key)) throw new UsageError(`${flag}: config field ${key} is given twice`);
    d.configFields[key] = value;
  };
  for (const [key, file] of Object.entries(parsePairs('--config-file', opts.configFile) ?? {})) {
    set('--config-file', key, (await readSecret(ctx, { name: `value of config field ${key}`, flag: '--config', file, text: true }))!);
  }
  if (opts.configStdin !== undefined) {
    const key = opts.configStdin.trim();
    if (!key) throw new UsageError('--config-stdin: name the config field, e.g. --config-stdin apiKey');
    set(
      '--config-stdin',
      key,
      (await readSecret(ctx, { name: `value of config field ${key}`, flag: '--config', stdin: true, text: true }))!,
    );
  }
  for (const key of opts.configSecret ?? []) {
    if (!ctx.canPrompt)
      throw new UsageError(
        `--config-secret ${key} prompts on a terminal; otherwise use --config-file ${key}=PATH or --config-stdin ${key}`,
      );
    set('--config-secret', key, await ctx.prompt.password(`Value of config field ${key}`));
  }
}

/** The request body of a draft. */
export function toBody(d: Draft): UpdateCredentialsRequest {
  const kind = d.kind ?? 'external';
  const cfg: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d.settings)) if (v !== undefined) cfg[k] = v;
  if (kind === 'hosted' && d.configFields) cfg.configFields = d.configFields;
  if (d.auth) cfg[d.auth] = { ...d.values, ...d.secrets };
  return { [rootOf(kind)]: cfg, ...(d.mask !== undefined ? { updateMask: d.mask } : {}) } as UpdateCredentialsRequest;
}

/** The flag that sets a request field, for hints (`externalConfig.oauth2.tokenUrl` -> `--oauth2-token-url`). */
export function flagForPath(path: string): string | undefined {
  const rel = path.replace(/^(externalConfig|hostedConfig)\.?/, '');
  const fixed: Record<string, string> = {
    url: '--url',
    transportType: '--transport',
    tokenSharing: '--token-sharing',
    requireToolApproval: '--require-tool-approval',
    mcpServerCatalogId: '--catalog-id',
    sourceAppId: '--source-app-id',
  };
  for (const k of AUTH_KIND_LIST) for (const [f, v] of Object.entries(authMethod(k).values)) if (v.flag) fixed[`${k}.${f}`] = v.flag;
  if (fixed[rel]) return fixed[rel];
  if (rel.startsWith('configFields')) return '--config';
  const [kind, field] = rel.split('.');
  const s = kind && field ? secretInput(kind, field) : undefined;
  if (s) return `${s.flag}-stdin, ${s.flag}-file or ${s.env}`;
  return undefined;
}
