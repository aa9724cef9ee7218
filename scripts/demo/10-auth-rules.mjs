// Log in (both client-secret forms), inspect auth state, list and delete rules.
export const title = 'Log in and manage entitlement configuration rules';

export default async function ({ agctl, ready }) {
  const key = ready.clients.find((c) => c.form === 'key');
  const plain = ready.clients.find((c) => c.form === 'plain');
  const app = ready.demo.rules.appId;

  // A key secret (secret-token:...): the CLI signs a client assertion instead of sending it.
  // The first login also makes "default" the current profile.
  agctl(['login', '--base-url', ready.baseUrl, '--client-id', key.clientId, '--client-secret-stdin'], { input: key.clientSecret });
  // A plain secret, into a second profile, from stdin; --no-switch keeps "default" current.
  agctl(['login', '--profile', 'ci', '--no-switch', '--base-url', ready.baseUrl, '--client-id', plain.clientId, '--client-secret-stdin'], {
    input: plain.clientSecret + '\n',
  });
  agctl(['auth', 'list']);
  agctl(['auth', 'switch', 'ci']);
  agctl(['auth', 'status']);
  agctl(['auth', 'switch', 'default']);
  agctl(['auth', 'switch', 'nosuch'], { expect: 2 });
  agctl(['rules', 'list', app, '--profile', 'nosuch'], { expect: 2 });
  agctl(['auth', 'status', '--profile', 'ci', '-o', 'json']);
  agctl(['auth', 'token'], { quiet: true });
  agctl(['rules', 'list', app, '--limit', '8']);
  agctl(['rules', 'list', app, '--page-size', '5', '-o', 'json'], { quiet: true });
  // jq built in: --jq filters any JSON output (and implies -o json).
  agctl(['rules', 'list', app, '--jq', '.[] | select(.enabled) | .id']);
  agctl(['version']);
  const first = ready.demo.rules.ids[0];
  agctl(['rules', 'get', app, first]);
  agctl(['rules', 'delete', app, first, '--dry-run']);
  agctl(['rules', 'delete', app, first, 'no-such-rule', '--yes'], { expect: 5 });
  agctl(['rules', 'delete', app, first], { expect: 2 });
  agctl(['rules', 'list', app, '--limit', '3', '--profile', 'ci']);
  agctl(['rules', 'list', 'no-such-app'], { expect: 5 });
  agctl(['help', 'exit-codes']);
  agctl(['completion', 'bash'], { quiet: true });
  agctl(['--embedded', 'rules', 'list', ready.demo.apps.empty]);
  agctl(['logout', '--profile', 'ci']);
  agctl(['rules', 'list', app, '--profile', 'ci'], { expect: 3 });
}
