// agctl doctor where the store cannot load: a driver this Node cannot load
// (node:sqlite on Node 20; better-sqlite3 where it is missing or built for
// another Node) is named in one line with its fix, exit 11, no stack trace.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, tempDir } from '../../helpers/cli.js';
import { unloadableDriver } from '../../helpers/sqlite-drivers.js';

describe('agctl doctor with a store that does not load', () => {
  it('names the driver, why it does not load and the fix (exit 11); the other checks still run', (ctx) => {
    const wanted = unloadableDriver();
    if (!wanted) return ctx.skip();
    const env = { ...baseEnv(tempDir('agctl-doctor-store-')), AGCTL_STORE_BACKEND: wanted };
    const r = spawnSync(process.execPath, [BIN, 'doctor', '-o', 'json'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(11);
    const out = JSON.parse(r.stdout) as { ok: boolean; checks: { name: string; status: string; detail: string }[] };
    expect(out.ok).toBe(false);
    const store = out.checks.find((c) => c.name === 'store')!;
    expect(store.status).toBe('fail');
    expect(store.detail).toContain(wanted === 'node:sqlite' ? 'AGCTL_STORE_BACKEND is node:sqlite' : 'npm rebuild better-sqlite3');
    expect(out.checks.map((c) => c.name)).toContain('config dir');
    const text = spawnSync(process.execPath, [BIN, 'doctor'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(text.status).toBe(11);
    expect(text.stdout).toContain('✗ store');
    expect(text.stdout + text.stderr).not.toMatch(/\n\s+at /);
  });
});
