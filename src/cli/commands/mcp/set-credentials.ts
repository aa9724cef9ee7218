// agctl mcp set-credentials <app-id> <connector-id>: replaces the auth config
// and/or config fields of an MCP server (service-api.md §4.1).
import { UsageError } from '../../../api/errors.js';
import {
  AUTH_KINDS,
  OAuth2Mode,
  isAuthKind,
  shortEnum,
  parseUpdateMask,
  validateCredentialsRequest,
  type AuthKind,
  type ConfigKind,
  type UpdateCredentialsRequest,
} from '../../../api/mcp.js';
import { mcpCredentialsPath, setMcpCredentials } from '../../../client/mcp.js';
import { checkPathId } from '../../../client/paths.js';
import { redactJson } from '../../../client/redact.js';
import type { CommandContext } from '../../context.js';
import { readFileBytes, readStdin } from '../../io.js';
import {
  AUTH_FLAG_VALUE,
  BUILDER_KEYS,
  SECRET_INPUTS,
  asUsage,
  checkStdinUse,
  draftFromFlags,
  flagForPath,
  flagName,
  inMask,
  isGiven,
  neededSecrets,
  obtainSecret,
  readConfigInputs,
  readFlagSecrets,
  toBody,
  type SetCredentialsOptions,
} from './draft.js';
import { printServerSummary } from './summary.js';

export type { SetCredentialsOptions } from './draft.js';

export async function run(opts: SetCredentialsOptions, ctx: CommandContext): Promise<number> {
  // Before any secret is read or prompted for.
  checkPathId(opts.appId, 'app ID');
  checkPathId(opts.connectorId, 'connector ID');
  const fromFile = opts.fromFile !== undefined;
  const body = fromFile ? await readRequestFile(opts, ctx) : await buildRequest(opts, ctx);

  // The same validation as the server's, before anything is sent. Enum values
  // this version does not list are sent as they are: a newer service may know them (§9).
  asUsage(
    () => validateCredentialsRequest(body, (path, value) => ctx.out.warn(`${path}: ${value} is not a value this version of agctl knows; sending it as is (the service decides)`)),
    (message) => validationHint(message, body, fromFile),
  );

  if (opts.dryRun) {
    ctx.out.info(`Dry run: would send POST ${mcpCredentialsPath(opts.appId, opts.connectorId)} (secrets redacted; nothing was sent)`);
    ctx.out.printJson(redactJson(body));
    return 0;
  }
  if (opts.interactive && !(await confirmInteractive(body, opts, ctx))) {
    ctx.out.info('Nothing sent');
    return 0;
  }

  const api = await ctx.api();
  const { mcpServer } = await setMcpCredentials(api, opts.appId, opts.connectorId, body);
  if (ctx.out.json) {
    ctx.out.printJson(mcpServer);
    return 0;
  }
  ctx.out.success(`Updated the credentials of MCP server ${opts.connectorId} in app ${opts.appId}`);
  if (mcpServer) printServerSummary(ctx, mcpServer);
  return 0;
}

/**
 * The walk-through ends with the request it built (secrets redacted) and a
 * question: without an update mask it replaces the server's whole config,
 * stored authentication included, so nothing is sent on a mere Enter.
 */
async function confirmInteractive(body: UpdateCredentialsRequest, opts: SetCredentialsOptions, ctx: CommandContext): Promise<boolean> {
  ctx.io.stderr.write(`${JSON.stringify(redactJson(body), null, 2)}\n`);
  return ctx.prompt.confirm(`Replace the config of MCP server ${opts.connectorId} in app ${opts.appId} with this?`, { default: false });
}

/** --from-file FILE|-: the whole request body as JSON. */
async function readRequestFile(opts: SetCredentialsOptions, ctx: CommandContext): Promise<UpdateCredentialsRequest> {
  const conflicting = BUILDER_KEYS.filter((k) => isGiven(opts[k]));
  if (conflicting.length) {
    throw new UsageError(`--from-file sends the file as the whole request; it cannot be combined with ${[...new Set(conflicting)].map(flagName).join(', ')}`);
  }
  const src = opts.fromFile!;
  let text: string;
  if (src === '-') {
    if (ctx.io.isStdinTTY) throw new UsageError('--from-file - expects the request on a pipe, not a terminal', 'agctl mcp set-credentials APP CONNECTOR --from-file - < request.json');
    text = await readStdin(ctx.io, 'request body');
  } else {
    text = readFileBytes(src, '--from-file').toString('utf8');
  }
  let body: UpdateCredentialsRequest;
  try {
    // A byte order mark (some editors write one) is not part of the JSON.
    body = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as UpdateCredentialsRequest;
  } catch {
    // Never quote the content: it holds secrets.
    throw new UsageError(`--from-file: ${src === '-' ? 'stdin' : src} is not valid JSON`);
  }
  warnIfAuthDropped(body, ctx);
  return body;
}

/**
 * A whole-config request (no updateMask) that names no auth method replaces
 * the stored authentication with none, secrets included: legal, so only a
 * warning, but rarely meant when a file simply left it out.
 */
function warnIfAuthDropped(body: UpdateCredentialsRequest, ctx: CommandContext): void {
  if (!body || typeof body !== 'object' || body.updateMask) return;
  const config = body.externalConfig ?? body.hostedConfig;
  if (!config || typeof config !== 'object' || Object.keys(config).some(isAuthKind)) return;
  ctx.out.warn('the request names no auth method and has no updateMask: the stored authentication and its secrets will be removed (add "none": {} to say so, or an updateMask to change only some fields)');
}

/** Names that usually hold a secret. */
const SECRET_LIKE = /secret|passw|token|api[-_]?key|private|credential/i;

/**
 * Plain flag values under names that look secret: the CLI cannot know which
 * catalog config fields are secret (the server seals them by the catalog
 * schema) and OAuth2 extra parameters are stored as they are, so it warns
 * rather than refuses, naming the flags that keep a value off the command line.
 */
function warnPlainSecrets(d: ReturnType<typeof draftFromFlags>, ctx: CommandContext): void {
  for (const k of Object.keys(d.configFields ?? {}).filter((k) => SECRET_LIKE.test(k))) {
    ctx.out.warn(`--config ${k}=...: a value on the command line stays in shell history and process lists; for a secret field use --config-file ${k}=PATH, --config-stdin ${k} or --config-secret ${k}`);
  }
  const v = d.values as { extraAuthorizeParams?: Record<string, string>; extraTokenParams?: Record<string, string> };
  for (const [flag, params] of [['--oauth2-authorize-param', v.extraAuthorizeParams], ['--oauth2-token-param', v.extraTokenParams]] as const) {
    for (const k of Object.keys(params ?? {}).filter((k) => SECRET_LIKE.test(k))) {
      ctx.out.warn(`${flag} ${k}=...: extra parameters are stored and shown as they are, not sealed; a client secret belongs in --oauth2-client-secret-file or --oauth2-client-secret-stdin`);
    }
  }
}

/**
 * OAuth2 extra parameters given for a mode that does not use them: token
 * parameters are sent in client-credentials mode only, authorize parameters in
 * authorization-code mode only (service-api.md §2.2). They are still sent and
 * stored; the warning says why the view will not show them.
 */
function warnIgnoredParams(d: ReturnType<typeof draftFromFlags>, ctx: CommandContext): void {
  const v = d.values as { mode?: string; extraAuthorizeParams?: Record<string, string>; extraTokenParams?: Record<string, string> };
  if (d.auth !== 'oauth2' || v.mode === undefined) return;
  const uses = [
    ['--oauth2-token-param', v.extraTokenParams, OAuth2Mode.CLIENT_CREDENTIALS],
    ['--oauth2-authorize-param', v.extraAuthorizeParams, OAuth2Mode.AUTHORIZATION_CODE],
  ] as const;
  for (const [flag, params, mode] of uses) {
    if (params && v.mode !== mode) {
      ctx.out.warn(`${flag}: used only in ${shortEnum(mode)} mode; the service ignores it in ${shortEnum(v.mode)} mode`);
    }
  }
}

/** Builds the request from flags, env vars and (on a terminal) prompts. */
export async function buildRequest(opts: SetCredentialsOptions, ctx: CommandContext): Promise<UpdateCredentialsRequest> {
  checkStdinUse(opts);
  const d = draftFromFlags(opts);
  warnPlainSecrets(d, ctx);
  warnIgnoredParams(d, ctx);
  await readFlagSecrets(opts, d, ctx);
  await readConfigInputs(opts, d, ctx);

  if (opts.interactive) {
    if (!ctx.canPrompt) throw new UsageError('--interactive needs a terminal (stdin and stdout), CI unset and no --no-input');
    if (d.mask !== undefined) throw new UsageError('--interactive builds a whole config; it cannot be combined with --update-mask');
    const { walkThrough } = await import('./prompts.js');
    await walkThrough(d, ctx);
  }

  if (!d.kind) {
    if (!ctx.canPrompt) throw new UsageError('cannot tell whether the server is external or hosted: pass --external or --hosted');
    d.kind = await ctx.prompt.select<ConfigKind>('What kind of MCP server is it?', [
      { value: 'external', name: 'External' },
      { value: 'hosted', name: 'Hosted' },
    ]);
  }
  if (d.maskPaths === null && d.mask !== undefined) d.maskPaths = asUsage(() => parseUpdateMask(d.mask, d.kind!));
  if (!d.auth && d.maskPaths === null) {
    // Without a mask the request replaces the stored auth config: never drop it by omission.
    if (!ctx.canPrompt) {
      throw new UsageError(
        `choose an authentication method with --auth (${AUTH_KINDS[d.kind].map((k) => AUTH_FLAG_VALUE[k]).join(', ')})`,
        'or name the fields to change with --update-mask to keep the stored auth config',
      );
    }
    d.auth = await ctx.prompt.select<AuthKind>('Authentication method', AUTH_KINDS[d.kind].map((k) => ({ value: k, name: AUTH_FLAG_VALUE[k] })));
  }

  // Secrets the method needs and no flag gave: env var, else a prompt, else a usage error naming the inputs.
  for (const s of neededSecrets(d)) await obtainSecret(d, s, ctx, { required: true });
  // Optional secrets of the method (an AWS session token, ...) may still come from their env vars.
  for (const s of SECRET_INPUTS) {
    if (s.kind === d.auth && inMask(d, s) && d.secrets[s.field] === undefined && ctx.env[s.env]) d.secrets[s.field] = ctx.env[s.env]!;
  }
  return toBody(d);
}

function validationHint(message: string, body: UpdateCredentialsRequest, fromFile: boolean): string | undefined {
  const path = message.split(':')[0] ?? '';
  if (/^externalConfig\.url: required/.test(message) && !body.updateMask) {
    return fromFile
      ? 'without an updateMask the request replaces the whole config, so it needs the url'
      : 'without --update-mask the request replaces the whole config: pass --url, or name the fields to change with --update-mask';
  }
  if (fromFile) return undefined;
  const flag = flagForPath(path);
  return flag ? `set it with ${flag}` : undefined;
}

