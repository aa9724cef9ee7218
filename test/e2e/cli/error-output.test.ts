// Error lines never carry raw control characters: an escape sequence in an
// argument or in a server's message is printed as a visible escape (\x1b),
// so it cannot recolour, retitle or clear the user's terminal.
import { describe, expect, it } from 'vitest';
import { cliFor, tempDir, type CliResult } from '../../helpers/cli.js';
import { sendJson, tinyServer } from '../../unit/client/tiny-server.js';

const t = await tinyServer();
// The server's message holds an OSC title sequence, BEL, CSI "clear screen" and an 8-bit CSI (C1).
const EVIL = 'bad \u001b]0;pwned\u0007 value\u001b[2J\u009b31m\r\nX';
t.reset((_req, res) => sendJson(res, 400, { code: 3, message: EVIL, details: [] }));
const cli = cliFor(tempDir('agctl-error-output-'), { AGCTL_BASE_URL: t.url, AGCTL_ACCESS_TOKEN: 'static-token' });
const SHOWN = 'bad \\x1b]0;pwned\\x07 value\\x1b[2J\\x9b31m\\r\\nX';

function expectNoControls(r: CliResult) {
  // Only the line ends of the output itself.
  expect(r.stderr.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
}

describe('control characters in error output', () => {
  it('from a server message: shown as escapes, in the error line and in rules delete reports', async () => {
    const [list, del, json] = await Promise.all([
      cli(['rules', 'list', 'crm-app']),
      cli(['rules', 'delete', 'crm-app', 'ecr-001', '--yes']),
      cli(['rules', 'list', 'crm-app', '-o', 'json']),
    ]);
    expect([list.code, list.stderr]).toEqual([7, `agctl: ${SHOWN} (HTTP 400, InvalidArgument)\n`]);
    expect([del.code, del.stderr]).toEqual([7, `✗ rule ecr-001: ${SHOWN} (HTTP 400, InvalidArgument)\n`]);
    // JSON keeps the message itself, with every control character escaped by the encoder
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stderr).error.message).toBe(EVIL);
    expect(json.stderr).toContain('\\u009b31m');
    for (const r of [list, del, json]) expectNoControls(r);
  });

  it("from an argument: in agctl's own errors and in commander's", async () => {
    const [id, flag, unknown] = await Promise.all([
      cli(['rules', 'list', 'x\u001b[31m\u009b']),
      cli(['rules', 'list', 'crm-app', '--limit', '\u001b[31m']),
      cli(['rules', 'list', 'crm-app', '--bogus\u001b[2J']),
    ]);
    expect([id.code, id.stderr]).toEqual([2, 'agctl: invalid app ID "x\\x1b[31m\\x9b": it contains a control character\n']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^agctl: option '--limit <n>' argument '\\x1b\[31m' is invalid\./);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus\\x1b[2J'");
    for (const r of [id, flag, unknown]) expectNoControls(r);
    expect(t.seen).toHaveLength(3); // the first test's requests only: nothing was sent here
  });
});

describe('JSON errors before the command line is parsed', () => {
  it('follow -o json in every spelling, after any global flag that takes a value (read from the declarations)', async () => {
    const { buildProgram } = await import('../../../src/cli/program.js');
    const valued = (await buildProgram()).options.filter((o) => o.required && o.long !== '--output' && o.long !== '--jq');
    expect(valued.length).toBeGreaterThan(2);
    const lines = valued.flatMap((o) => [['-o', 'json'], ['--output=json'], ['-ojson']].map((json) => [o.long!, 'v', ...json, 'rulez']));
    const results = await Promise.all(lines.map((args) => cli(args)));
    for (const [i, r] of results.entries()) {
      expect(r.code, lines[i]!.join(' ')).toBe(2);
      expect(JSON.parse(r.stderr).error, lines[i]!.join(' ')).toMatchObject({ exitCode: 2 });
    }
    // The value of a global flag is not -o: here the profile is named "-o", and the error is a line.
    const r = await cli(['--profile', '-o', 'json', 'rulez']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agctl: unknown command 'json'/);
  });
});
