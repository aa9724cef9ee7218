// agctl mcp set-credentials <app-id> <connector-id>: replaces the auth config
// and/or config fields of an MCP server (service-api.md §4.1).
import { EXIT_INTERRUPTED, UsageError } from '../../../../lib/exit.js';
import {
  OAuth2Mode,
  OPTIONAL_BOOLS,
  ServerType,
  TOKEN_SHARING,
  TokenSharing,
  shortEnum,
  type ConfigKind,
  type McpServerView,
  type UpdateCredentialsRequest,
} from '../../../../api/mcp-schema.js';
import { isAuthKind, kindOfServerType, perUserSupported, rootOf } from '../../../../api/mcp-config.js';
import { perUserMethods } from '../../../../api/mcp-auth.js';
import { deriveUpdateMask, relativeUpdateMask } from '../../../../api/mcp-mask.js';
import { validateCredentialsRequest } from '../../../../api/mcp.js';
import { isJsonObject } from '../../../../lib/json.js';
import { getMcpServer, mcpCredentialsPath, setMcpCredentials } from '../../../../client/mcp.js';
import { checkPathId } from '../../../../client/paths.js';
import { redactJson } from '../../../../client/redact.js';
import type { CommandContext } from '../../../context.js';
import { noPromptHint, readFileBytes, readStdin } from '../../../io.js';
import { unappliedChanges } from '../applied.js';
import {
  BUILDER_KEYS,
  SECRET_INPUTS,
  asUsage,
  checkStdinUse,
  draftFromFlags,
  flagForPath,
  flagName,
  inMask,
  isGiven,
  maskPaths,
  neededSecrets,
  obtainSecret,
  parsePairs,
  readConfigInputs,
  readFlagSecrets,
  toBody,
  type SetCredentialsOptions,
} from '../draft.js';
import { completeConfigFields } from '../config-fields.js';
import { describeChanges, viewChanges } from '../changes.js';
import { catalogSecretFields, printServerSummary } from '../summary.js';
import { escapeControls } from '../../../escape.js';
import { shellCommand } from '../../../shell-quote.js';
import { looksSecret } from './secret-name.js';
import type { SetCredentialsInput } from './command.js';

export async function run({ args: [appId, connectorId], opts: flags }: SetCredentialsInput, ctx: CommandContext): Promise<number> {
  const opts: SetCredentialsOptions = { ...flags, appId, connectorId };
  // Before any secret is read or prompted for.
  checkPathId(opts.appId, 'app ID');
  checkPathId(opts.connectorId, 'connector ID');
  const fromFile = opts.fromFile !== undefined;
  const view = storedView(opts, ctx);
  const built = fromFile ? { body: await readRequestFile(opts, ctx), replace: false } : await buildRequest(opts, ctx, view);
  const body = built.body;
  if (opts.interactive && !deriveUpdateMask(configOf(body)?.config ?? {})) return nothingChanged(ctx);
  settleUpdateMask(body, fromFile, ctx);
  await addStoredCatalogId(body, opts, view);
  const before = await view();
  checkServerKind(body, before, opts);
  const kept = keepAuthSettings(body, before, opts);
  const fields = await completeConfigFields(body, ctx, {
    connectorId: opts.connectorId,
    replace: Boolean(opts.replaceConfigFields) || built.replace,
    fromFile,
    view,
  });
  if (!fromFile) warnPlainConfigSecrets(opts, fields.secret, ctx);

  // The same validation as the server's, before anything is sent. Enum values
  // this version does not list are sent as they are: a newer service may know them (§9).
  const req = asUsage(
    () =>
      validateCredentialsRequest(body, (path, value) =>
        ctx.out.warn(`${path}: ${value} is not a value this version of agctl knows; sending it as is (the service decides)`),
      ),
    (message) => validationHint(message, fromFile),
  );

  if (opts.dryRun) {
    if (ctx.out.json) {
      ctx.out.info(`Dry run: would send POST ${mcpCredentialsPath(opts.appId, opts.connectorId)} (secrets redacted; nothing was sent)`);
      ctx.out.printJson(redactRequest(body, fields.secret));
      return 0;
    }
    ctx.out.info(
      `Dry run: would send POST ${mcpCredentialsPath(opts.appId, opts.connectorId)} (nothing was sent; -o json prints the request, secrets redacted)`,
    );
    const lines = describeChanges(body, before, fields.secret, kept);
    ctx.out.print(
      escapeControls(lines.length ? `Changes to MCP server ${opts.connectorId}:` : `No change to MCP server ${opts.connectorId}`),
    );
    for (const line of lines) ctx.out.print(`  ${escapeControls(line)}`);
    ctx.out.print(`Update mask: ${escapeControls(String(body.updateMask ?? ''))}`);
    return 0;
  }
  if (opts.interactive && !(await confirmInteractive(body, opts, ctx, before, fields.secret, kept))) {
    // Declined: scripts see that nothing was done, as after Ctrl-C at the prompt.
    ctx.out.info('Nothing sent');
    return EXIT_INTERRUPTED;
  }

  if (kept.length && !opts.interactive && !ctx.out.json) {
    const cfg = configOf(body)!.config;
    ctx.out.info(
      `note: keeping ${kept.map((k) => `${k}=${escapeControls(String(cfg[k]))}`).join(', ')}: sent with the new authentication, which the service could otherwise reset`,
    );
  }
  const api = await ctx.api();
  const { mcpServer } = await setMcpCredentials(api, opts.appId, opts.connectorId, body);
  if (mcpServer === null) {
    // The contract allows a success without a view: nothing to show or compare.
    const see = shellCommand(['agctl', 'mcp', 'get', opts.appId, opts.connectorId]);
    ctx.out.info(
      `note: the service returned no view of MCP server ${opts.connectorId}; see it with ${'line' in see ? see.line : 'agctl mcp get'}`,
    );
    if (ctx.out.json) ctx.out.printJson(null);
    else ctx.out.success(`Updated the credentials of MCP server ${opts.connectorId} in app ${opts.appId}`);
    return 0;
  }
  const unseen = unappliedChanges(req, mcpServer);
  if (unseen.length) {
    ctx.out.warn(
      `the server answered success, but its view of ${opts.connectorId} does not show ${unseen.join(', ')}: that change may not have been made`,
    );
  }
  if (ctx.out.json) {
    ctx.out.printJson(mcpServer);
    return 0;
  }
  ctx.out.success(`Updated the credentials of MCP server ${opts.connectorId} in app ${opts.appId}`);
  // Every setting the write changed, as the views before and after it show (a side effect of the service included).
  const changed = before ? viewChanges(before, mcpServer) : [];
  for (const line of changed) ctx.out.info(`  changed: ${escapeControls(line)}`);
  const secretFields = await configSecretNames(body, fields.secret, ctx);
  printServerSummary(ctx, mcpServer, opts, secretFields && { names: secretFields, sent: sentConfigFields(body) });
  return 0;
}

/** The config fields a hosted request sends (their values are not kept here). */
function sentConfigFields(body: UpdateCredentialsRequest): ReadonlySet<string> {
  const cfg = body.hostedConfig;
  return new Set(
    isJsonObject(cfg) &&
      isJsonObject(cfg.configFields) &&
      typeof body.updateMask === 'string' &&
      body.updateMask.split(',').includes('configFields')
      ? Object.keys(cfg.configFields)
      : [],
  );
}

/** The secret config field names of a hosted server's catalog entry (read when the write did not), for the summary; undefined when unknown. */
async function configSecretNames(
  body: UpdateCredentialsRequest,
  known: ReadonlySet<string> | undefined,
  ctx: CommandContext,
): Promise<string[] | undefined> {
  if (known) return [...known];
  const cfg = body.hostedConfig;
  if (!isJsonObject(cfg) || typeof cfg.mcpServerCatalogId !== 'string' || !cfg.mcpServerCatalogId) return undefined;
  return catalogSecretFields(ctx, cfg.mcpServerCatalogId);
}

/**
 * A request whose kind is not the server's (hosted flags for an external
 * server): stopped before anything is sent, naming the server's kind.
 */
function checkServerKind(body: UpdateCredentialsRequest, view: McpServerView | null, opts: SetCredentialsOptions): void {
  const c = configOf(body);
  const kind = kindOfServerType(view?.serverType);
  if (!c || !kind || kind === c.kind) return;
  throw new UsageError(
    `MCP server ${opts.connectorId} in app ${opts.appId} is ${kind === 'external' ? 'an external' : 'a hosted'} server, but the request sets ${rootOf(c.kind)}`,
    opts.fromFile !== undefined ? `send ${rootOf(kind)} instead` : `use the flags for ${kind} servers (agctl mcp set-credentials --help)`,
  );
}

/** The settings that live with the auth config, and the flag that names each. */
const AUTH_SETTINGS = [
  ['tokenSharing', '--token-sharing', TOKEN_SHARING],
  ['requireToolApproval', '--require-tool-approval', OPTIONAL_BOOLS],
] as const;

/**
 * A request that replaces the auth object (or its OAuth2 mode) keeps the
 * server's token sharing and tool approval unless it names them: the service
 * may reset them with the auth config (and a legacy OAuth2 mode reports a
 * token sharing that is not stored), so their current values are sent, in the mask. When the new method
 * cannot keep PER_USER token sharing, nothing is sent (exit 2) and the message
 * names the flag that accepts the change. Returns the settings kept.
 */
function keepAuthSettings(body: UpdateCredentialsRequest, view: McpServerView | null, opts: SetCredentialsOptions): string[] {
  const c = configOf(body);
  if (!c || !view || typeof body.updateMask !== 'string') return [];
  const mask = body.updateMask
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  // The auth object replaced (named whole), or its OAuth2 mode changed; a change of other fields of it keeps the auth config.
  const kind = mask.find((p) => isAuthKind(p) || p === 'oauth2.mode')?.split('.')[0];
  if (!kind || !isAuthKind(kind)) return [];
  const kept: string[] = [];
  for (const [key, flag, values] of AUTH_SETTINGS) {
    if (mask.includes(key)) continue;
    // UNSPECIFIED needs no keeping; a value this version does not know is not sent back for it.
    const current = view[key];
    if (typeof current !== 'string' || !(values as readonly string[]).includes(current) || current === values[0]) continue;
    if (key === 'tokenSharing' && current === TokenSharing.PER_USER) {
      const auth = isJsonObject(c.config[kind]) ? c.config[kind] : {};
      const whole = mask.includes(kind);
      const mode = typeof auth.mode === 'string' ? auth.mode : whole ? '' : view.oauth2Mode;
      if (!perUserSupported(kind, mode ?? '')) {
        const method = kind === 'oauth2' ? `oauth2${mode ? ` mode ${shortEnum(mode)}` : ''}` : kind;
        throw new UsageError(
          `MCP server ${opts.connectorId} has PER_USER token sharing, which ${method} does not support (PER_USER: ${perUserMethods()}); nothing was sent`,
          opts.fromFile !== undefined
            ? `set ${rootOf(c.kind)}.tokenSharing and name it in updateMask to change it`
            : `pass ${flag} shared to change it with this write`,
        );
      }
    }
    c.config[key] = current;
    mask.push(key);
    kept.push(key);
  }
  body.updateMask = mask.join(',');
  return kept;
}

/** A walk-through that changed nothing sends nothing. */
function nothingChanged(ctx: CommandContext): number {
  ctx.out.info('Nothing changed; nothing sent');
  return 0;
}

/** The server's view, read at most once (GET .../mcp_servers/ID), for the catalog ID, the stored config fields and the walk-through. */
function storedView(opts: SetCredentialsOptions, ctx: CommandContext): () => Promise<McpServerView | null> {
  let p: Promise<McpServerView | null> | undefined;
  return () =>
    (p ??= ctx
      .api()
      .then((api) => getMcpServer(api, opts.appId, opts.connectorId))
      .then((r) => r.mcpServer));
}

/**
 * The request with every secret redacted: auth secrets by name, config fields
 * by the catalog schema's secret marks (all of them when no schema is known).
 */
function redactRequest(body: UpdateCredentialsRequest, secret: ReadonlySet<string> | undefined): unknown {
  const out = redactJson(body) as { hostedConfig?: { configFields?: Record<string, unknown> } };
  const given =
    isJsonObject(body.hostedConfig) && isJsonObject(body.hostedConfig.configFields) ? body.hostedConfig.configFields : undefined;
  if (secret && given && out.hostedConfig?.configFields) {
    for (const [k, v] of Object.entries(given)) if (!secret.has(k)) out.hostedConfig.configFields[k] = v;
  }
  return out;
}

/**
 * A plain `--config` value for a field the catalog schema marks secret (or,
 * without a schema, whose name looks secret): warned about, naming the flags
 * that keep a value off the command line.
 */
function warnPlainConfigSecrets(opts: SetCredentialsOptions, secret: ReadonlySet<string> | undefined, ctx: CommandContext): void {
  for (const k of Object.keys(parsePairs('--config', opts.config) ?? {})) {
    if (secret ? secret.has(k) : looksSecret(k)) {
      ctx.out.warn(
        `--config ${k}=...: ${secret ? `${k} is a secret field of the catalog entry, and ` : ''}a value on the command line stays in shell history and process lists; use --config-file ${k}=PATH, --config-stdin ${k} or --config-secret ${k}`,
      );
    }
  }
}

/**
 * The walk-through ends with what would change, as a plain list of
 * "Label: current → new" lines (secrets never shown), and a question; nothing
 * is sent on a mere Enter.
 */
async function confirmInteractive(
  body: UpdateCredentialsRequest,
  opts: SetCredentialsOptions,
  ctx: CommandContext,
  view: McpServerView | null,
  secret: ReadonlySet<string> | undefined,
  kept: readonly string[],
): Promise<boolean> {
  const lines = describeChanges(body, view, secret, kept);
  ctx.out.info(lines.length ? `Changes to MCP server ${opts.connectorId}:` : `No change to MCP server ${opts.connectorId}`);
  for (const line of lines) ctx.out.info(`  ${escapeControls(line)}`);
  return ctx.prompt.confirm(`Send this update to MCP server ${opts.connectorId} in app ${opts.appId}?`, { default: false });
}

/** The one config a request body sets, or undefined when it is malformed (validation then says how). */
function configOf(body: UpdateCredentialsRequest): { kind: ConfigKind; config: Record<string, unknown> } | undefined {
  if (!isJsonObject(body)) return undefined;
  const ext = body.externalConfig ?? null;
  const hosted = body.hostedConfig ?? null;
  if ((ext === null) === (hosted === null)) return undefined;
  const config: unknown = ext ?? hosted;
  return isJsonObject(config) ? { kind: ext !== null ? 'external' : 'hosted', config } : undefined;
}

/**
 * Every request carries a mask with paths relative to the config, as the
 * service keys them (service-notes.md §3): a path under the config's name is
 * rewritten (the service would silently ignore it), and without a mask one is
 * derived from the fields that are set, so nothing is replaced by omission.
 */
function settleUpdateMask(body: UpdateCredentialsRequest, fromFile: boolean, ctx: CommandContext): void {
  if (!isJsonObject(body)) return;
  const given = body.updateMask;
  if (typeof given === 'string' && given.trim() !== '') {
    const { mask, rewritten } = relativeUpdateMask(given);
    if (rewritten.length) {
      ctx.out.info(`note: update mask paths are relative to the config; sending ${mask} instead of ${given}`);
      body.updateMask = mask;
    }
    refuseUnmasked(body, mask, fromFile, ctx);
    return;
  }
  const c = configOf(body);
  if ((given !== undefined && given !== null && typeof given !== 'string') || !c) return;
  body.updateMask = deriveUpdateMask(c.config);
  if (!body.updateMask) {
    throw new UsageError(
      fromFile
        ? `--from-file: ${rootOf(c.kind)} sets no field, so there is nothing to change`
        : 'nothing to change: name what to set (--url, --auth and its inputs, --config, --token-sharing, ...)',
      fromFile ? undefined : 'or walk through the choices with --interactive',
    );
  }
}

/**
 * What is set but outside a given mask is sent and not applied (the service
 * answers 200 having changed nothing of it): from flags a usage error, in a
 * --from-file request (proto semantics allow it) a warning. The catalog ID
 * identifies the entry and is always carried, in the mask or not.
 */
function refuseUnmasked(body: UpdateCredentialsRequest, mask: string, fromFile: boolean, ctx: CommandContext): void {
  const c = configOf(body);
  if (!c) return;
  const masked = mask
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const covered = (path: string) => masked.some((m) => m === path || m.startsWith(`${path}.`) || path.startsWith(`${m}.`));
  const outside = deriveUpdateMask(c.config)
    .split(',')
    .filter((p) => p && p !== 'mcpServerCatalogId' && !covered(p));
  if (!outside.length) return;
  const what = `${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} set but not in the update mask (${mask}), so the service would not change ${outside.length === 1 ? 'it' : 'them'}`;
  if (fromFile) ctx.out.warn(`--from-file: ${what}`);
  else
    throw new UsageError(
      what,
      `add ${outside.join(',')} to --update-mask, or leave --update-mask out to send a mask of everything you set`,
    );
}

/**
 * A hosted request always carries the server's catalog entry ID, even when
 * only its auth changes (service-notes.md §3). Without one from the user, it
 * is read from the server and sent outside the mask: it identifies, it does not change.
 */
async function addStoredCatalogId(
  body: UpdateCredentialsRequest,
  opts: SetCredentialsOptions,
  view: () => Promise<McpServerView | null>,
): Promise<void> {
  const c = configOf(body);
  if (
    c?.kind !== 'hosted' ||
    (c.config.mcpServerCatalogId !== undefined && c.config.mcpServerCatalogId !== null && c.config.mcpServerCatalogId !== '')
  )
    return;
  const mcpServer = await view();
  const id = typeof mcpServer?.mcpServerCatalogId === 'string' ? mcpServer.mcpServerCatalogId : '';
  if (!id) {
    const external = mcpServer?.serverType === ServerType.EXTERNAL ? ' (it is an external server)' : '';
    throw new UsageError(
      `MCP server ${opts.connectorId} in app ${opts.appId} has no catalog ID${external}, and a hosted request must carry one`,
      opts.fromFile !== undefined ? 'set hostedConfig.mcpServerCatalogId in the request' : 'pass --catalog-id',
    );
  }
  body.hostedConfig = { mcpServerCatalogId: id, ...c.config };
}

/** --from-file FILE|-: the whole request body as JSON. */
async function readRequestFile(opts: SetCredentialsOptions, ctx: CommandContext): Promise<UpdateCredentialsRequest> {
  const conflicting = BUILDER_KEYS.filter((k) => isGiven(opts[k]));
  if (conflicting.length) {
    throw new UsageError(
      `--from-file sends the file as the whole request; it cannot be combined with ${[...new Set(conflicting)].map(flagName).join(', ')}`,
    );
  }
  const src = opts.fromFile!;
  let text: string;
  if (src === '-') {
    if (ctx.io.isStdinTTY)
      throw new UsageError(
        '--from-file - expects the request on a pipe, not a terminal',
        'agctl mcp set-credentials APP CONNECTOR --from-file - < request.json',
      );
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
  return body;
}

/**
 * OAuth2 extra parameters under names that look secret: they are stored and
 * shown as they are, so a warning names the flags for a client secret.
 */
function warnPlainSecrets(d: ReturnType<typeof draftFromFlags>, ctx: CommandContext): void {
  const v = d.values as { extraAuthorizeParams?: Record<string, string>; extraTokenParams?: Record<string, string> };
  for (const [flag, params] of [
    ['--oauth2-authorize-param', v.extraAuthorizeParams],
    ['--oauth2-token-param', v.extraTokenParams],
  ] as const) {
    for (const k of Object.keys(params ?? {}).filter(looksSecret)) {
      ctx.out.warn(
        `${flag} ${k}=...: extra parameters are stored and shown as they are, not sealed; a client secret belongs in --oauth2-client-secret-file or --oauth2-client-secret-stdin`,
      );
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
async function buildRequest(
  opts: SetCredentialsOptions,
  ctx: CommandContext,
  view: () => Promise<McpServerView | null>,
): Promise<{ body: UpdateCredentialsRequest; replace: boolean }> {
  checkStdinUse(opts);
  const d = draftFromFlags(opts);
  warnPlainSecrets(d, ctx);
  warnIgnoredParams(d, ctx);
  await readFlagSecrets(opts, d, ctx);
  await readConfigInputs(opts, d, ctx);

  if (opts.interactive) {
    if (!ctx.canPrompt)
      throw new UsageError(
        '--interactive needs a terminal (stdin and stdout), CI unset and no --no-input',
        noPromptHint(ctx.io, ctx.env, ctx.flags.input),
      );
    if (d.mask !== undefined) throw new UsageError('--interactive builds a whole config; it cannot be combined with --update-mask');
    const { walkThrough } = await import('../prompts.js');
    await walkThrough(d, ctx, { view: await view() });
  }

  // The kind: from the flags, else from the server's view; asked only when the view does not say.
  d.kind ??= kindOfServerType((await view())?.serverType);
  if (!d.kind) {
    if (!ctx.canPrompt)
      throw new UsageError(
        `the view of MCP server ${opts.connectorId} does not say whether it is external or hosted: pass --external or --hosted`,
      );
    d.kind = await ctx.prompt.select<ConfigKind>('What kind of MCP server is it?', [
      { value: 'external', name: 'External' },
      { value: 'hosted', name: 'Hosted' },
    ]);
  }
  if (d.maskPaths === null && d.mask !== undefined) d.maskPaths = maskPaths(d.mask, d.kind);

  // Secrets the method needs and no flag gave: env var, else a prompt, else a usage error naming the inputs.
  for (const s of neededSecrets(d)) await obtainSecret(d, s, ctx, { required: true });
  // Optional secrets of the method (an AWS session token, ...) may still come from their env vars.
  for (const s of SECRET_INPUTS) {
    if (s.kind === d.auth && inMask(d, s) && d.secrets[s.field] === undefined && ctx.env[s.env]) d.secrets[s.field] = ctx.env[s.env]!;
  }
  return { body: toBody(d), replace: Boolean(d.replaceConfigFields) };
}

function validationHint(message: string, fromFile: boolean): string | undefined {
  const path = message.split(':')[0] ?? '';
  if (fromFile) return undefined;
  const flag = flagForPath(path);
  return flag ? `set it with ${flag}` : undefined;
}
