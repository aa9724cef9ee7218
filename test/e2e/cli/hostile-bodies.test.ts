// A tenant answering gigabytes, on the token endpoint and on API routes,
// announced by Content-Length or chunked. agctl reads at most its cap (32 MiB
// for API answers, AGCTL_MAX_RESPONSE_BYTES to change it; 16 KiB for a token
// answer), refuses unread an answer announcing more, closes the connection
// and exits 9 naming the size. The tenant streams lazily and counts the body
// bytes it managed to hand to the socket before the client closed it (the
// socket buffers of the loopback hold a few MB more than the client read);
// it gives up after 64 MiB, so that a client without a cap ends too (and
// fails the count).
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { hostileTenant, type Behaviour } from '../../helpers/hostile-tenant.js';

const GiB4 = 4 * 1024 ** 3;
const MiB = 1024 ** 2;
/** What the loopback's socket buffers may hold beyond what the client read. */
const SOCKET_SLACK = 8 * MiB;

async function run(b: Behaviour, args: string[], env: Record<string, string> = {}) {
  const t = await hostileTenant(b);
  const auth =
    b.kind === 'huge-body' && b.on === 'token' ? { AGCTL_CLIENT_ID: 'bot', AGCTL_CLIENT_SECRET: 'shh' } : { AGCTL_ACCESS_TOKEN: 'tok' };
  const cli = cliFor(tempDir('agctl-hostile-bodies-'), { AGCTL_BASE_URL: t.url, ...auth, ...env });
  const r = await cli(args);
  await t.close();
  return { r, t };
}

describe('a tenant answering gigabytes', () => {
  for (const announce of [true, false]) {
    const how = announce ? 'announced by Content-Length' : 'chunked';

    it.concurrent(`API route, ${how}: exit 9 at the default cap of 32 MiB, the connection closed`, async () => {
      const { r, t } = await run({ kind: 'huge-body', on: 'api', bytes: GiB4, announce }, ['rules', 'list', 'app']);
      expect(r.code, r.stderr).toBe(9);
      const what = announce ? `announces ${GiB4} bytes \\(Content-Length\\)` : `goes on past ${32 * MiB} bytes`;
      expect(r.stderr).toMatch(
        new RegExp(
          `^agctl: the answer from ${t.url}/api/v1/apps/app/entitlement_configuration_rules is too large: it ${what}, and agctl reads at most 32 MiB\\n`,
        ),
      );
      expect(r.stderr).toContain('hint: if so large an answer is expected, raise AGCTL_MAX_RESPONSE_BYTES');
      expect(r.stdout).toBe('');
      // Refused unread, or read up to the cap: never the rest.
      expect(t.stats.bodyBytes).toBeLessThanOrEqual((announce ? 0 : 32 * MiB) + SOCKET_SLACK);
      expect(t.stats.requests.api).toBe(1);
    });

    it.concurrent(`token endpoint, ${how}: exit 9 at 16 KiB, no API call made`, async () => {
      const { r, t } = await run({ kind: 'huge-body', on: 'token', bytes: GiB4, announce }, ['rules', 'list', 'app']);
      expect(r.code, r.stderr).toBe(9);
      const what = announce ? `announces ${GiB4} bytes \\(Content-Length\\)` : `goes on past ${16 * 1024} bytes`;
      expect(r.stderr).toMatch(
        new RegExp(`^agctl: the answer from ${t.url}/auth/v1/token is too large: it ${what}, and agctl reads at most 16 KiB\\n`),
      );
      expect(r.stderr).toContain('hint: a token answer is a small JSON object: check the base URL');
      expect(t.stats.bodyBytes).toBeLessThanOrEqual(SOCKET_SLACK);
      expect([t.stats.requests.token, t.stats.requests.api]).toEqual([1, 0]);
    });
  }

  it.concurrent('AGCTL_MAX_RESPONSE_BYTES sets the cap: a 1 MiB cap stops a chunked answer at 1 MiB; -o json names the error', async () => {
    const { r, t } = await run({ kind: 'huge-body', on: 'api', bytes: GiB4, announce: false }, ['api', '/api/v1/x', '-o', 'json'], {
      AGCTL_MAX_RESPONSE_BYTES: String(MiB),
    });
    expect(r.code, r.stderr).toBe(9);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'response_too_large',
      exitCode: 9,
      message: `the answer from ${t.url}/api/v1/x is too large: it goes on past ${MiB} bytes, and agctl reads at most 1 MiB`,
    });
    expect(t.stats.bodyBytes).toBeLessThanOrEqual(MiB + SOCKET_SLACK);
  });

  it.concurrent('the answers of one command stop at 8 times the cap in all: pages of big new items end before the page bound', async () => {
    const { r, t } = await run({ kind: 'endless-pages', items: 1, pad: 40_000 }, ['rules', 'list', 'app'], {
      AGCTL_MAX_RESPONSE_BYTES: String(64 * 1024),
    });
    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toBe(
      `agctl: the answers from ${t.url} are too large: together they go on past 512 KiB, and agctl reads at most that for one command\n` +
        'hint: ask for less (--limit), or raise AGCTL_MAX_RESPONSE_BYTES: a command reads at most 8 times as much in all\n',
    );
    // 13 pages of 40 KB fit in 512 KiB; the 14th is refused on its Content-Length.
    expect(t.stats.requests.api).toBe(14);
  });

  it.concurrent('AGCTL_MAX_RESPONSE_BYTES raises the cap: an answer of 40 MiB is read whole', async () => {
    const { r, t } = await run({ kind: 'huge-body', on: 'api', bytes: 40 * MiB, announce: true }, ['rules', 'list', 'app'], {
      AGCTL_MAX_RESPONSE_BYTES: String(64 * MiB),
    });
    // Read to its end (then found not to be JSON: the body is filler).
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('HTTP 200 with a body that is not valid JSON');
    expect(t.stats.bodyBytes).toBe(40 * MiB);
  });

  it.concurrent('AGCTL_MAX_RESPONSE_BYTES that is not a number of bytes in range: exit 2 before anything is sent', async () => {
    for (const bad of ['abc', '12MB', '100', String(512 * MiB), '-5']) {
      const { r, t } = await run({ kind: 'one-page', nextPageToken: '' }, ['rules', 'list', 'app'], { AGCTL_MAX_RESPONSE_BYTES: bad });
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain(`agctl: AGCTL_MAX_RESPONSE_BYTES: "${bad}" is not a whole number of bytes from 1024 to 268435456`);
      expect(t.stats.requests.api).toBe(0);
    }
  });
});

describe('a compressed answer', () => {
  it.concurrent('is not asked for and not decoded: a gzip bomb is exit 9, read as the bytes it is', async () => {
    const { r, t } = await run({ kind: 'gzip', inflated: 16 * MiB }, ['rules', 'list', 'app']);
    expect(t.stats.lastHeaders['accept-encoding']).toBeUndefined();
    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toMatch(
      /^agctl: unexpected response from .*: HTTP 200 compressed \(Content-Encoding: gzip\), which agctl does not ask for\n/,
    );
  });
});
