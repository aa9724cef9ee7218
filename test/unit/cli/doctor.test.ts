// The pure part of agctl doctor: an error in one bounded line (the store's
// own messages are tested with it, test/unit/server/store-sqlite.test.ts).
import { describe, expect, it } from 'vitest';
import { describeError } from '../../../src/cli/commands/doctor/store.js';

describe('describeError', () => {
  it('keeps the first line, at most 300 characters', () => {
    expect(describeError(new Error('disk on fire\n    at x (y.js:1:1)'))).toBe('disk on fire');
    expect(describeError('x'.repeat(400))).toHaveLength(301);
    expect(describeError({ message: '' })).toBe('[object Object]');
  });
});

describe('agctl doctor on a terminal', () => {
  it('shows its marks and hints in colour, not as escaped colour codes', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { fakeIO } = await import('../../helpers/io.js');
    const { CommandContext } = await import('../../../src/cli/context.js');
    const { run } = await import('../../../src/cli/commands/doctor/run.js');
    const dir = mkdtempSync(join(tmpdir(), 'agctl-doctor-tty-'));
    try {
      const f = fakeIO({ tty: true });
      // CI set: the keyring is not tried; no base URL: no network.
      const ctx = new CommandContext({ io: f.io, env: { AGCTL_CONFIG_DIR: join(dir, 'cfg'), CI: '1' }, flags: { color: true } });
      await ctx.out.styles();
      await run({} as Parameters<typeof run>[0], ctx);
      expect(f.out()).toMatch(/^\x1b\[3[23]m[✓!]\x1b\[39m Node\.js /m);
      expect(f.out()).toMatch(/\x1b\[2mhint: run `agctl login`/);
      expect(f.out()).not.toContain('\\x1b');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
