// Preloaded (NODE_OPTIONS=--import) into a spawned agctl to make a genuine
// unexpected error: reading config.json throws a plain Error, as a bug would.
// Used to check that only such errors print "please report it" and a stack.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (String(path).endsWith('config.json')) throw new Error('injected fault');
  return readFileSync.call(this, path, ...rest);
};
syncBuiltinESMExports();
