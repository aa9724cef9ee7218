// agctl webhook keygen: the declaration.
import { Command, completeWith, Option, type Input } from '../../../declare.js';
import { helpText } from '../../../help-text.js';
import { JWT_ALGS, anyCase } from '../flags.js';

export const command = () =>
  new Command('keygen')
    .description('Generate a signing key for a JWT listener: a private JWK (0600) and a public JWKS')
    .addOption(
      completeWith(
        new Option('--alg <alg>', `algorithm: ${JWT_ALGS.join(', ')} (any case)`).argParser(anyCase(JWT_ALGS)).default('ES256' as const),
        JWT_ALGS,
      ),
    )
    .option('--kid <id>', 'key ID (default: the RFC 7638 thumbprint of the key)')
    .addOption(
      completeWith(
        new Option('--out <prefix>', 'file name prefix: writes <prefix>.private.jwk.json and <prefix>.jwks.json (default: webhook-<alg>)'),
        'file',
      ),
    )
    .option('--force', 'overwrite existing files')
    .addHelpText('after', () =>
      helpText(
        `
Publish the JWKS file at the HTTPS URL the listener is configured with; keep
the private JWK secret and sign with it: agctl webhook send ... --jwt-key FILE.`,
        ['agctl webhook keygen --alg ES256', 'agctl webhook keygen --alg EdDSA --kid partner-2025 --out keys/partner'],
      ),
    );

export type KeygenInput = Input<ReturnType<typeof command>>;
