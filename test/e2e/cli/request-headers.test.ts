// Values that end up in request headers (-H flags of webhook send,
// AGCTL_ACCESS_TOKEN) are checked before anything is sent: a CR/LF, a framing
// header or an unusable token is a usage error naming the flag or variable,
// never a network failure.
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { tinyServer } from '../../unit/client/tiny-server.js';

const t = await tinyServer();
const cli = cliFor(tempDir('agctl-headers-'), { AGCTL_BASE_URL: t.url, AGCTL_WEBHOOK_SECRET: 'not-used' });
const listener = () => `${t.url}/api/v1/webhooks/incoming/L1`;

describe('request headers from the command line', () => {
  it('webhook send -H: CR/LF, framing and connection headers are usage errors (exit 2)', async () => {
    const cases: [string, RegExp][] = [
      ['X-A: a\r\nX-B: b', /^agctl: --header X-A: a header value cannot contain CR, LF or other control characters$/],
      ['X-A: a\nb', /^agctl: --header X-A: a header value cannot contain CR, LF/],
      [
        'Transfer-Encoding: chunked',
        /^agctl: --header Transfer-Encoding: agctl sets the framing and connection headers itself; this one cannot be given$/,
      ],
      ['Expect: 100-continue', /^agctl: --header Expect: agctl sets the framing/],
      ['Content-Length: 5', /^agctl: --header Content-Length: agctl sets the framing/],
      ['Host: evil.example.com', /^agctl: --header Host: agctl sets the framing/],
      ['Connection: close', /^agctl: --header Connection: agctl sets the framing/],
      ['Upgrade: websocket', /^agctl: --header Upgrade: agctl sets the framing/],
      ['X-A: \u2603', /^agctl: --header X-A: a header value cannot contain characters outside ISO-8859-1$/],
    ];
    const runs = await Promise.all(cases.map(([h]) => cli(['webhook', 'send', listener(), '-d', '{}', '-H', h])));
    runs.forEach((r, i) => {
      expect(r.code, `${JSON.stringify(cases[i]![0])}\n${r.stderr}`).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(cases[i]![1]);
      expect(r.stderr).not.toContain('cannot reach');
    });
    // The value (it may be a credential) is never echoed.
    expect(runs[0]!.stderr).not.toContain('X-B');
    expect(t.seen).toEqual([]);
    // An ordinary extra header still goes out.
    t.reset((_req, res) => res.end());
    const ok = await cli(['webhook', 'send', listener(), '-d', '{}', '-H', 'X-Trace: 1\t2']);
    expect(ok.stderr).not.toMatch(/^agctl:/m);
    expect(t.seen.map((x) => x.headers['x-trace'])).toEqual(['1\t2']);
    t.reset((_req, res) => res.end());
  });

  it('AGCTL_ACCESS_TOKEN with CR/LF, spaces or non-ASCII is a usage error naming the variable (exit 2)', async () => {
    for (const token of ['a\r\nX: 1', 'a b', 'tok\n', 'tök']) {
      const r = await cli(['rules', 'list', 'crm-app'], { env: { AGCTL_ACCESS_TOKEN: token } });
      expect(r.code, `${JSON.stringify(token)}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(
        /^agctl: AGCTL_ACCESS_TOKEN is not a usable bearer token: it contains spaces, control characters \(CR, LF, \.\.\.\) or non-ASCII characters\nhint: /,
      );
      expect(r.stderr).not.toContain('X: 1');
    }
    expect(t.seen).toEqual([]);
  });
});
