// What a support engineer asks first: Node.js, the store, the keyring, the
// config directory, the path to the tenant (proxy, DNS, TCP, TLS), the clock
// and the cached token, in one command.
export const title = 'Check the setup (doctor)';

export default async function ({ agctl }) {
  agctl(['doctor']);
  agctl(['doctor', '-o', 'json', '--jq', '[.checks[] | select(.status != "ok") | .name]']);
}
