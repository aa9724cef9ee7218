// IDs that end up as URL path segments: ".", "..", "" and values with control
// characters would address another route (or none), so every command refuses
// them with a usage error before any request, the token request included.
import { describe, expect, it } from 'vitest';
import { checkPathId, pathSegment } from '../../../src/client/paths.js';
import { UsageError } from '../../../src/lib/exit.js';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { tinyServer } from '../../unit/client/tiny-server.js';

// A server that would answer anything: the tests check it is never asked.
const t = await tinyServer();
const cli = cliFor(tempDir('agctl-path-ids-'), {
  AGCTL_BASE_URL: t.url,
  AGCTL_CLIENT_ID: 'ci-bot',
  AGCTL_CLIENT_SECRET: 'not-used',
  AGCTL_WEBHOOK_SECRET: 'not-used',
});

describe('path IDs', () => {
  it('are checked and encoded in one place', () => {
    for (const ok of ['ecr-001', 'a b', 'a/b', '...', '.x', 'é']) expect(checkPathId(ok, 'rule ID')).toBe(ok);
    expect(pathSegment('a/b?c', 'rule ID')).toBe('a%2Fb%3Fc');
    const cases: [string, string][] = [
      ['', 'it is empty'],
      ['  ', 'it is empty'],
      ['.', 'it would address another route'],
      ['..', 'it would address another route'],
      ['x\ny', 'it contains a control character'],
      ['x\u0085', 'it contains a control character'],
      ['x\u007f', 'it contains a control character'],
    ];
    for (const [id, why] of cases) {
      expect(() => pathSegment(id, 'rule ID')).toThrow(UsageError);
      expect(() => pathSegment(id, 'rule ID')).toThrow(`invalid rule ID "${id}": ${why}`);
    }
  });

  it('are refused by every command before anything is sent (exit 2)', async () => {
    const mcpFlags = ['--external', '--url', 'https://mcp.example.com/mcp', '--auth', 'none'];
    const cases: [string[], RegExp][] = [
      [['rules', 'list', '..'], /^agctl: invalid app ID "\.\.": it would address another route$/],
      [['rules', 'list', '.'], /^agctl: invalid app ID "\.": it would address another route$/],
      [['rules', 'list', ''], /^agctl: invalid app ID "": it is empty$/],
      [['rules', 'list', 'crm\x01app'], /^agctl: invalid app ID "crm.*app": it contains a control character$/],
      [['rules', 'delete', 'crm-app', '..', '--yes'], /^agctl: invalid rule ID "\.\.": it would address another route$/],
      [['rules', 'delete', 'crm-app', '', '--yes'], /^agctl: invalid rule ID "": it is empty$/],
      [['rules', 'delete', 'crm-app', 'ecr-001', '.', '--yes'], /^agctl: invalid rule ID "\.": it would address another route$/],
      [['rules', 'delete', '..', 'ecr-001', '--yes'], /^agctl: invalid app ID "\.\.": it would address another route$/],
      [['task', 'approve-step-up', '..'], /^agctl: invalid task ID "\.\.": it would address another route$/],
      [['task', 'approve-step-up', '.', '--step', 'step-1'], /^agctl: invalid task ID "\.": it would address another route$/],
      [['mcp', 'set-credentials', 'ai-tools', '..', ...mcpFlags], /^agctl: invalid connector ID "\.\.": it would address another route$/],
      [['mcp', 'set-credentials', '.', 'c-1', ...mcpFlags, '--dry-run'], /^agctl: invalid app ID "\.": it would address another route$/],
      [['mcp', 'get', 'ai-tools', '..'], /^agctl: invalid connector ID "\.\.": it would address another route$/],
      [['mcp', 'get', '', 'c-1'], /^agctl: invalid app ID "": it is empty$/],
      [['webhook', 'send', '..', '-d', '{}'], /^agctl: invalid listener ID "\.\.": it would address another route$/],
      [['webhook', 'send', '.', '-d', '{}', '--count', '2'], /^agctl: invalid listener ID "\.": it would address another route$/],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(args)));
    runs.forEach((r, i) => {
      const [args, re] = cases[i]!;
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(2);
      expect(r.stderr.trimEnd().split('\n')[0], args.join(' ')).toMatch(re);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stdout).toBe('');
    });
    expect(t.seen.map((x) => `${x.method} ${x.path}`)).toEqual([]);
  });
});
