// A tenant whose error answers carry messages of megabytes: the message shown
// (the error line, and the JSON error with -o json) is cut at
// MAX_MESSAGE_BYTES with "…(N bytes more)"; an answer without a message shows
// its body cut short (service-notes.md §5).
import { describe, expect, it } from 'vitest';
import { MAX_DETAILS_CHARS, MAX_MESSAGE_BYTES } from '../../../src/client/api.js';
import { cliFor, tempDir } from '../../helpers/cli.js';
import { hostileTenant } from '../../helpers/hostile-tenant.js';

const BYTES = 5_000_000;

async function run(args: string[], raw = false) {
  const t = await hostileTenant({ kind: 'huge-error', status: 400, bytes: BYTES, raw });
  const r = await cliFor(tempDir('agctl-hostile-errors-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok' })(args);
  await t.close();
  return r;
}

describe('a tenant sending error messages of megabytes', () => {
  it.concurrent(`the message is cut at ${MAX_MESSAGE_BYTES} bytes, saying how much was left out`, async () => {
    const r = await run(['rules', 'list', 'app']);
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(
      `agctl: ${'E'.repeat(MAX_MESSAGE_BYTES)}…(${BYTES - MAX_MESSAGE_BYTES} bytes more) (HTTP 400, InvalidArgument)\n`,
    );
  });

  it.concurrent('-o json: the error object carries the cut message too', async () => {
    const r = await run(['rules', 'list', 'app', '-o', 'json']);
    expect(r.code).toBe(7);
    expect(r.stderr.length).toBeLessThan(MAX_MESSAGE_BYTES + 500);
    expect(JSON.parse(r.stderr).error.message).toBe(`${'E'.repeat(MAX_MESSAGE_BYTES)}…(${BYTES - MAX_MESSAGE_BYTES} bytes more)`);
  });

  it.concurrent('without a message, the body is shown cut short', async () => {
    const r = await run(['rules', 'list', 'app'], true);
    expect(r.code).toBe(7);
    expect(r.stderr.length).toBeLessThan(400);
    expect(r.stderr).toMatch(/^agctl: the server's answer has no message: E{199}… \(HTTP 400, InvalidArgument\)\n$/);
  });
});

describe('a tenant sending error details of megabytes', () => {
  it.concurrent(`-o json keeps the leading details that fit in ${MAX_DETAILS_CHARS} characters, and says how many were left out`, async () => {
    const detail = { '@type': 'type.googleapis.com/google.rpc.BadRequest', note: 'd'.repeat(1000) };
    const t = await hostileTenant({
      kind: 'status',
      status: 400,
      headers: {},
      body: JSON.stringify({ code: 3, message: 'bad', details: Array(5000).fill(detail) }),
    });
    const r = await cliFor(tempDir('agctl-hostile-errors-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'tok' })([
      'rules',
      'list',
      'app',
      '-o',
      'json',
    ]);
    await t.close();
    expect(r.code).toBe(7);
    expect(r.stderr.length).toBeLessThan(MAX_DETAILS_CHARS + 1000);
    const { details } = JSON.parse(r.stderr).error;
    const fit = Math.floor(MAX_DETAILS_CHARS / (JSON.stringify(detail).length + 1));
    expect(details).toEqual([...Array(fit).fill(detail), `…(${5000 - fit} more details left out)`]);
  });
});
