// Preloaded (NODE_OPTIONS=--import) into a spawned agctl to make a genuine
// unexpected error: opening config.json throws a plain Error, as a bug would.
// Used to check that only such errors print "please report it" and a stack.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const openSync = fs.openSync;
fs.openSync = function (path, ...rest) {
  if (String(path).endsWith('config.json')) throw new Error('injected fault');
  return openSync.call(this, path, ...rest);
};
syncBuiltinESMExports();
