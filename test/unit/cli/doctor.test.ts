// The pure parts of agctl doctor: a store that does not load, in words (the
// proxy that applies is src/lib/proxy.ts's, tested with it).
import { describe, expect, it } from 'vitest';
import { describeError, storeProblem } from '../../../src/cli/commands/doctor/store.js';

describe('storeProblem', () => {
  it('a module built for another Node.js: both versions and the rebuild', () => {
    const p = storeProblem(new Error("The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 137."));
    expect(p.problem).toBe('better-sqlite3 was built for another Node.js (module version 127; this Node.js needs 137)');
    expect(p.hint).toContain('npm rebuild better-sqlite3');
  });

  it('a module not installed, and anything else, in one line', () => {
    const missing = storeProblem(Object.assign(new Error("Cannot find package 'better-sqlite3' imported from /x/db.js"), { code: 'ERR_MODULE_NOT_FOUND' }));
    expect(missing.problem).toBe("better-sqlite3 is not installed or not built: Cannot find package 'better-sqlite3' imported from /x/db.js");
    expect(storeProblem(new Error('disk on fire\n    at x (y.js:1:1)')).problem).toBe('the store does not load: disk on fire');
    expect(describeError('x'.repeat(400))).toHaveLength(301);
  });
});
