// agctl webhook keygen: a signing key for a JWT listener.
import { lstatSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../../../lib/exit.js';
import { writePrivateFile } from '../../../../config/secure-file.js';
import { isFsError, pathProblem } from '../../../../lib/fs-errors.js';
import { chmodNoFollow, writeFileAtomic } from '../../../../lib/private-fs.js';
import { KeyError, generateListenerKey } from '../../../../webhook/keys.js';
import type { CommandContext } from '../../../context.js';
import type { KeygenInput } from './command.js';

export async function run({ opts }: KeygenInput, ctx: CommandContext): Promise<number> {
  const prefix = opts.out ?? `webhook-${opts.alg.toLowerCase()}`;
  const privateFile = resolve(`${prefix}.private.jwk.json`);
  const jwksFile = resolve(`${prefix}.jwks.json`);
  if (!opts.force) {
    for (const f of [privateFile, jwksFile])
      if (present(f)) throw new UsageError(`${f} already exists`, 'pass --force to overwrite it, or choose another --out prefix');
  }
  let key: ReturnType<typeof generateListenerKey>;
  try {
    key = generateListenerKey(opts.alg, opts.kid);
  } catch (err) {
    if (err instanceof KeyError) throw new UsageError(err.message);
    throw err;
  }
  let writing = privateFile;
  try {
    // The user's own directory (often the working directory): its mode is not
    // ours to change. Missing directories are created 0700.
    writePrivateFile(privateFile, JSON.stringify(key.privateJwk, null, 2) + '\n', { privateDir: false });
    writing = jwksFile;
    // Written as every local file is (never through a link planted at its name), then made readable: it is public.
    writeFileAtomic(jwksFile, JSON.stringify(key.publicJwks, null, 2) + '\n');
    chmodNoFollow(jwksFile, 0o644);
  } catch (err) {
    if (!isFsError(err)) throw err;
    throw new UsageError(`--out ${prefix}: cannot write ${writing}: ${pathProblem(writing, err)}`);
  }
  if (ctx.out.json) {
    ctx.out.printJson({ alg: key.alg, kid: key.kid, privateKeyFile: privateFile, jwksFile, jwks: key.publicJwks });
    return 0;
  }
  ctx.out.fields([
    ['Algorithm', key.alg],
    ['Key ID', key.kid],
    ['Private JWK', `${privateFile} (mode 0600: keep it secret)`],
    ['Public JWKS', jwksFile],
  ]);
  ctx.out.info(
    `Publish ${jwksFile} at the listener's HTTPS JWKS URL, then send with: agctl webhook send <listener> --jwt-key ${privateFile}`,
  );
  return 0;
}

/** Whether anything is at `path`, a link (even one whose target is missing) included. */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
