// agctl doctor where the store cannot load: better-sqlite3 built for another
// Node.js (the error Node gives when the module is opened) is named, with the
// command that fixes it, exit 2 and no stack trace.
import { describe, expect, it, vi } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';

vi.mock('better-sqlite3', () => ({
  default: class {
    constructor() {
      throw Object.assign(
        new Error(
          "The module '/usr/lib/node_modules/agctl/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 137. This version of Node.js requires\nNODE_MODULE_VERSION 115. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
        ),
        { code: 'ERR_DLOPEN_FAILED' },
      );
    }
  },
}));

describe('agctl doctor with a store that does not load', () => {
  it('names the Node.js the store was built for and the command that fixes it (exit 2)', async () => {
    const cli = cliFor(tempDir('agctl-doctor-store-'));
    const r = await cli(['doctor', '-o', 'json']);
    expect(r.code, r.stderr).toBe(2);
    const out = r.json<{ ok: boolean; checks: { name: string; status: string; detail: string; hint: string | null }[] }>();
    expect(out.ok).toBe(false);
    expect(out.checks.find((c) => c.name === 'store')).toEqual({
      name: 'store',
      status: 'fail',
      detail: 'better-sqlite3 was built for another Node.js (module version 137; this Node.js needs 115)',
      hint: 'run `npm rebuild better-sqlite3` where agctl is installed (or reinstall agctl) with this Node.js',
    });
    const text = await cli(['doctor']);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('✗ store');
    expect(text.stdout + text.stderr).not.toMatch(/\n\s+at /);
  });
});
