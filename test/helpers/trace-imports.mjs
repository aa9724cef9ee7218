// Preloaded (NODE_OPTIONS=--import) into a spawned agctl: appends the URL of
// every module it imports to the file named by AGCTL_TEST_TRACE, to check what
// a command line loads.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.AGCTL_TEST_TRACE, r.url + '\\n');
  return r;
}`),
);
