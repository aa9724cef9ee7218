// Shared set-up of the CLI tests against the fake tenant.
import { afterAll, expect } from 'vitest';
import { baseEnv, cliFor, tempDir } from '../../helpers/cli.js';
import { startFakeTenant, type FakeTenant, type FakeTenantOptions } from '../../fake-tenant/server.js';

/**
 * A fake tenant closed after the test file, which then fails if the tenant
 * received a request the vendor OpenAPI forbids (or gave an answer it forbids)
 * that the test did not take with `takeViolations()`.
 */
export async function tenant(opts: FakeTenantOptions = {}): Promise<FakeTenant> {
  const t = await startFakeTenant(opts);
  afterAll(async () => {
    await t.close();
    expect(t.violations, 'requests or answers the vendor OpenAPI forbids').toEqual([]);
  });
  return t;
}

/**
 * The CLI against a tenant with a bearer token it issued (AGCTL_ACCESS_TOKEN):
 * the commands' own behaviour, apart from the token flow (tested in auth.test.ts).
 */
export function tenantCli(t: FakeTenant) {
  const dir = tempDir();
  const env = { AGCTL_BASE_URL: t.baseUrl, AGCTL_ACCESS_TOKEN: t.issueToken() };
  return { cli: cliFor(dir, env), spawnEnv: { ...baseEnv(dir), ...env } };
}

/** Splits a printed shell command (words, '...' quoting as agctl prints it) into its arguments. */
export function shellWords(line: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const m of line.matchAll(re)) out.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!);
  return out;
}
