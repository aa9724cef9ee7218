// agctl webhook listeners create: a listener and its automation on the embedded
// server. An HMAC secret is taken from a file, stdin, the environment or a
// prompt, or generated into a new 0600 file (--secret-out); never printed.
import { rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../../../../lib/exit.js';
import { isFsError, pathProblem } from '../../../../../lib/fs-errors.js';
import type { CreateListenerRequest } from '../../../../../api/webhook-listeners.js';
import { createListener } from '../../../../../client/webhook-listeners.js';
import { newHmacSecret } from '../../../../../webhook/sign.js';
import type { CommandContext } from '../../../../context.js';
import { allowedRanges, readWebhookSecret } from '../../common.js';
import { listenerAllowedFrom, listenerShown } from '../show.js';
import type { CreateInput } from './command.js';

type CreateOptions = CreateInput['opts'];

/** Writes a new secret to a file that must not exist yet (mode 0600); returns its absolute path. */
function writeNewSecretFile(path: string, secret: string): string {
  const file = resolve(path);
  try {
    writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if (!isFsError(err)) throw err;
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UsageError(`--secret-out ${path}: the file already exists`, 'name a new file: a secret file is never overwritten');
    throw new UsageError(`--secret-out ${path}: cannot write ${file}: ${pathProblem(file, err)}`);
  }
  return file;
}

/** The request, and where a generated secret goes. */
async function buildRequest(opts: CreateOptions, ctx: CommandContext): Promise<{ req: CreateListenerRequest; secretOut?: string }> {
  const req: CreateListenerRequest = { authMethod: opts.authMethod };
  if (opts.name !== undefined) req.name = opts.name;
  const ranges = allowedRanges(opts.allowedCidr);
  if (ranges.length) req.allowedCidrs = ranges;
  const secretFlags = [
    opts.secretOut !== undefined && '--secret-out',
    opts.secretFile !== undefined && '--secret-file',
    opts.secretStdin && '--secret-stdin',
  ].filter(Boolean);
  if (opts.authMethod === 'JWT') {
    if (secretFlags.length) throw new UsageError(`${secretFlags[0]} applies to HMAC listeners: a JWT listener has no secret`);
    if (!opts.jwksUrl)
      throw new UsageError(
        'a JWT listener needs --jwks-url (the key set that verifies senders)',
        'make a key pair with: agctl webhook keygen',
      );
    req.jwksUrl = opts.jwksUrl;
    return { req };
  }
  if (opts.jwksUrl !== undefined) throw new UsageError('--jwks-url applies to JWT listeners: add --auth-method jwt');
  if (opts.secretOut !== undefined) {
    if (secretFlags.length > 1)
      throw new UsageError(`use either --secret-out (a new secret) or ${secretFlags[1]} (a secret of yours), not both`);
    return { req, secretOut: opts.secretOut };
  }
  req.secret = await readWebhookSecret(ctx, opts, 'or pass --secret-out FILE to have a new secret generated into FILE (mode 0600)');
  return { req };
}

export async function run({ opts }: CreateInput, ctx: CommandContext): Promise<number> {
  const { req, secretOut } = await buildRequest(opts, ctx);
  const api = await ctx.api();
  // A generated secret is saved before the listener exists, so it cannot be lost after.
  let secretFile: string | undefined;
  if (secretOut !== undefined) {
    req.secret = newHmacSecret();
    secretFile = writeNewSecretFile(secretOut, req.secret);
  }
  let listener;
  try {
    listener = await createListener(api, req);
  } catch (err) {
    if (secretFile) rmSync(secretFile, { force: true });
    throw err;
  }
  if (ctx.out.json) {
    ctx.out.printJson(listenerShown(listener));
    return 0;
  }
  ctx.out.fields([
    ['ID', listener.id],
    ['Name', listener.automation.name],
    ['URL', listener.url],
    ['Auth', listener.authMethod],
    ...(listener.jwksUrl ? ([['JWKS URL', listener.jwksUrl]] as [string, string][]) : []),
    ['Allowed from', listenerAllowedFrom(listener)],
    ...(listener.authMethod === 'HMAC'
      ? ([['Secret', secretFile ? `saved to ${secretFile} (mode 0600)` : 'as given (not shown)']] as [string, string][])
      : []),
  ]);
  const how =
    listener.authMethod === 'JWT'
      ? '--jwt-key PRIVATE_JWK'
      : secretFile
        ? `--secret-file ${secretFile}`
        : `--secret-file FILE (or ${'$'}AGCTL_WEBHOOK_SECRET)`;
  ctx.out.info(`Send an event with: agctl webhook send ${listener.id} -d '{}' ${how}`);
  return 0;
}
