// agctl api: any route of the service with the profile's token, retries and exit codes.
export const title = 'Raw requests with agctl api';

export default async function ({ agctl, ready }) {
  const app = ready.demo.rules.appId;
  const rules = `/api/v1/apps/${app}/entitlement_configuration_rules`;
  // A GET with a query field, status line and headers first.
  agctl(['api', '-X', 'GET', rules, '-f', 'page_size=2', '-i']);
  // Every page, merged into one document.
  agctl(['api', rules, '--paginate'], { quiet: true });
  // A POST search, paged by the token in the body.
  agctl(['api', '/api/v1/search/step-up/transactions', '-F', 'pageSize=1', '--paginate']);
  // The token never leaves /api/ without --allow-any-path; the exit code follows the status.
  agctl(['api', '/auth/v1/token'], { expect: 2 });
  agctl(['api', '/api/v1/apps/no-such-app/entitlement_configuration_rules'], { expect: 5 });
}
