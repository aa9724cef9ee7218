// agctl doctor: the declaration.
import { Command, type Input } from '../../declare.js';
import { helpText } from '../../help-text.js';

export const command = () =>
  new Command('doctor')
    .description(
      'Check this machine and the profile: Node.js, the embedded store, the keyring, the config directory, the network path to the tenant, the clock, the cached token',
    )
    .addHelpText('after', () =>
      helpText(
        `
Each check takes a few seconds at most, and says what is wrong and what to
do. Nothing secret is printed: the cached token is described by its expiry
alone. The network checks (DNS, TCP, TLS, the proxy that applies, the clock
against the tenant's Date header) need the profile's base URL; \`agctl auth
status\` proves the credentials themselves.

Exit 0 when nothing is broken (a warning is not), else the exit code of the
first failed check, as the commands it affects exit: 11 for a store that
does not load, 2 for this machine's setup (config directory, profile), 9 for
the network path.
With -o json: \`{ ok, checks: [{ name, status, detail, hint }] }\`, \`status\`
being ok, warn, fail or skip.`,
        ['agctl doctor', 'agctl doctor --profile ci -o json'],
      ),
    );

export type DoctorInput = Input<ReturnType<typeof command>>;
