// Ordinary user and environment mistakes, through the real binary: each must
// end with one clear line and a fitting exit code, never "unexpected error"
// (exit 1, the bug path) and never a stack trace.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir, type CliResult } from '../../helpers/cli.js';

const work = tempDir('agctl-mistakes-e2e-');
let n = 0;
const cli = (env: Record<string, string | undefined> = {}) => cliFor(join(work, `cfg${n++}`), env);

/** One `agctl: …` line (and at most a hint), the expected exit code, no bug report, no stack. */
function expectClearError(r: CliResult, code: number, line: RegExp | string): void {
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(typeof line === 'string' ? new RegExp(`^agctl: ${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : line);
  expect(lines.length, r.stderr).toBeLessThanOrEqual(2);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
  expect(r.stderr).not.toMatch(/unexpected error|please report it|\n\s+at /);
}

describe('file inputs', () => {
  it('stops reading a file that never ends, and names directories and missing files', async () => {
    const run = cli({ AGCTL_BASE_URL: 'http://127.0.0.1:1', AGCTL_ACCESS_TOKEN: 't' });
    const started = Date.now();
    expectClearError(await run(['mcp', 'set-credentials', 'ai-tools', 'wiki-mcp', '--from-file', '/dev/zero']), 2, '--from-file /dev/zero: larger than 1048576 bytes (1 MiB)');
    expect(Date.now() - started).toBeLessThan(15_000);
    expectClearError(await run(['mcp', 'set-credentials', 'ai-tools', 'wiki-mcp', '--from-file', work]), 2, `--from-file ${work}: is a directory`);
    expectClearError(
      await run(['webhook', 'send', 'http://127.0.0.1:1/x', '--data-file', '/dev/zero'], { env: { AGCTL_WEBHOOK_SECRET: 's' } }),
      2,
      '--data-file /dev/zero: larger than 16777216 bytes (16 MiB)',
    );
    expectClearError(
      await run(['webhook', 'verify', '--request', join(work, 'none.http')], { env: { AGCTL_WEBHOOK_SECRET: 's' } }),
      2,
      `--request ${join(work, 'none.http')}: no such file or directory`,
    );
    expectClearError(
      await run(['webhook', 'send', 'http://127.0.0.1:1/x', '-d', '{}', '--secret-file', '/dev/zero']),
      2,
      '--secret-file /dev/zero: larger than 1048576 bytes (1 MiB)',
    );
  });
});
