// Output people can script and read: --jq, tables on a pipe and on a
// terminal, the pager, inherited flags in help, `agctl version`.
import { PassThrough, Readable } from 'node:stream';
import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { IO } from '../../../src/cli/io.js';
import { BIN, baseEnv, cliFor, tempDir } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/server.js';
import type { Columns } from '../../../src/cli/columns.js';
import { COLUMNS as RULE_COLUMNS } from '../../../src/cli/commands/rules/list/command.js';
import { COLUMNS as TASK_COLUMNS } from '../../../src/cli/commands/task/list/command.js';
import { COLUMNS as MCP_COLUMNS } from '../../../src/cli/commands/mcp/list/command.js';
import { COLUMNS as CATALOG_COLUMNS } from '../../../src/cli/commands/mcp/catalog/list/command.js';
import { COLUMNS as LISTENER_COLUMNS } from '../../../src/cli/commands/webhook/listeners/list/command.js';

const s = await startTestServer();
const work = tempDir('agctl-output-e2e-');
const app = s.demo.rules.appId as string;
const creds = { AGCTL_BASE_URL: s.baseUrl, AGCTL_CLIENT_ID: s.plainClient.clientId, AGCTL_CLIENT_SECRET: s.plainClient.clientSecret };
const cli = cliFor(join(work, 'cfg'), creds);
const rules = (await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=250`)).body.list as {
  id: string;
  enabled: boolean;
  displayName: string;
  condition: string;
}[];

/** Runs main() with stdout a terminal of the given size. */
async function onTerminal(args: string[], env: Record<string, string>, size: { columns: number; rows: number }) {
  const stdout = Object.assign(new PassThrough(), { isTTY: true, ...size });
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const io: IO = {
    stdin: Readable.from([]),
    stdout,
    stderr,
    isStdoutTTY: true,
    isStdinTTY: false,
    isStderrTTY: false,
    onInterrupt: () => () => {},
    onTerminate: () => () => {},
  };
  const code = await main(['node', BIN, ...args], { io, env: { ...baseEnv(join(work, 'tty')), ...creds, ...env } });
  await new Promise<void>((resolve) => setImmediate(resolve));
  return { code, stdout: out, stderr: err };
}

describe('--jq', () => {
  it('filters the JSON a command prints, with jq itself; strings print raw, other values as JSON', async () => {
    const [ids, objects, count, implied] = await Promise.all([
      cli(['rules', 'list', app, '--jq', '.[] | select(.enabled) | .id']),
      cli(['rules', 'list', app, '--jq', '.[:2][] | {id, priority}']),
      cli(['rules', 'list', app, '--jq', 'length']),
      cli(['rules', 'list', app, '--jq', '.'], { env: { AGCTL_OUTPUT: 'table' } }),
    ]);
    expect(ids.code, ids.stderr).toBe(0);
    expect(ids.stdout).toBe(
      rules
        .filter((r) => r.enabled)
        .map((r) => `${r.id}\n`)
        .join(''),
    );
    expect(rules.some((r) => !r.enabled)).toBe(true);
    expect(objects.stdout).toBe(
      rules
        .slice(0, 2)
        .map((r) => JSON.stringify({ id: r.id, priority: (r as { priority?: number }).priority }, null, 2) + '\n')
        .join(''),
    );
    expect(count.stdout).toBe(`${rules.length}\n`);
    // --jq implies -o json, over AGCTL_OUTPUT=table
    expect(implied.json()).toEqual(rules);
  });

  it('works on any command that prints JSON', async () => {
    const r = await cli(['version', '--jq', '.version']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("$ENV and env are the invocation's environment; a trailing comment still works", async () => {
    const r = await cli(['version', '--jq', '[$ENV.AGCTL_JQ_TEST, env.AGCTL_JQ_TEST, ($ENV.HOME == env.HOME)] # both'], {
      env: { AGCTL_JQ_TEST: 'bar baz' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['bar baz', 'bar baz', true]);
    const home = await cli(['version', '--jq', '$ENV.HOME'], { env: { HOME: '/somewhere/else' } });
    expect(home.stdout).toBe('/somewhere/else\n');
  });

  it('is a usage error on commands that never print JSON', async () => {
    const runs = await Promise.all([
      cli(['help', 'exit-codes', '--jq', '.']),
      cli(['completion', 'bash', '--jq', '.']),
      cli(['serve', '--jq', '.', '--port', '0']),
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'usage',
        message: expect.stringMatching(/^--jq filters JSON output: `(help|completion|serve)` prints none$/),
      });
    }
  });

  it("refuses an expression that does not compile before anything is sent: exit 2, jq's message, no stack", async () => {
    const before = (await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=250`)).body.list.length;
    const r = await cli(['rules', 'delete', app, rules[0]!.id, '--yes', '--jq', '.[] |||']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'usage',
      exitCode: 2,
      message: expect.stringMatching(/^--jq: syntax error, unexpected '\|'.*line 1, column \d+$/),
    });
    expect(r.stderr).not.toMatch(/\bat .*\.(js|ts):\d+/);
    expect((await s.api(`/api/v1/apps/${app}/entitlement_configuration_rules?page_size=250`)).body.list).toHaveLength(before);
  });

  it('an error at run time: what jq printed before it, then exit 2 with its message', async () => {
    const r = await cli(['rules', 'list', app, '--jq', '.[0].id, .[0].id.x']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(`${rules[0]!.id}\n`);
    expect(JSON.parse(r.stderr).error.message).toMatch(/^--jq: Cannot index string with string/);
  });

  it('cannot be combined with -o table', async () => {
    const r = await cli(['rules', 'list', app, '-o', 'table', '--jq', '.']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^agctl: --jq filters JSON output: it cannot be combined with -o table\nhint: /);
    // A mistake commander finds first is told the same way: -o table decides over --jq.
    const parse = await cli(['rules', 'list', app, '-o', 'table', '--jq', '.', '--no-such-flag']);
    expect([parse.code, parse.stderr]).toEqual([2, "agctl: unknown option '--no-such-flag'\n"]);
  });
});

describe('output format', () => {
  it('a missing argument: the usage line after the error; with -o json or --jq, the one JSON error shape instead', async () => {
    const [text, json, jq] = await Promise.all([
      cli(['rules', 'list']),
      cli(['-o', 'json', 'rules', 'list']),
      cli(['rules', 'list', '--jq', '.']),
    ]);
    expect([text.code, text.stderr]).toEqual([
      2,
      "agctl: missing required argument 'app-id'\nUsage: agctl rules list [options] <app-id>\nSee `agctl rules list --help`.\n",
    ]);
    for (const r of [json, jq]) {
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stderr)).toEqual({
        error: { code: 'usage', message: "missing required argument 'app-id'", hint: null, exitCode: 2, status: null, details: [] },
      });
    }
  });

  it('-o and AGCTL_OUTPUT take any case', async () => {
    const [upper, env] = await Promise.all([
      cli(['-o', 'JSON', 'rules', 'list', app]),
      cli(['rules', 'list', app], { env: { AGCTL_OUTPUT: 'Json' } }),
    ]);
    expect(upper.json()).toEqual(rules);
    expect(env.json()).toEqual(rules);
  });
});

describe('tables', () => {
  it('on a pipe: nothing is cut, columns two spaces apart, no borders', async () => {
    const r = await cli(['rules', 'list', app]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PRIORITY {2}ID +NAME +ENABLED {2}CONDITION +REQUEST POLICY$/);
    expect(r.stdout).not.toMatch(/[│┌─…]/);
    const longest = rules.reduce((a, b) => (b.condition.length > a.condition.length ? b : a));
    expect(longest.condition.length).toBeGreaterThan(40);
    for (const rule of rules) {
      const line = lines.find((l) => l.includes(` ${rule.id} `))!;
      expect(line).toContain(rule.displayName);
      expect(line).toContain(rule.condition);
    }
  });

  it('on a terminal: fits its width, cutting the condition and leaving out the lowest-ranked column; headers whole', async () => {
    const r = await onTerminal(['rules', 'list', app], {}, { columns: 100, rows: 200 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(lines[0]).toMatch(/^PRIORITY {2}ID +NAME +ENABLED {2}CONDITION$/);
    expect(r.stderr).toBe('hint: REQUEST POLICY left out to fit 100 columns (-o wide shows them)\n');
    expect(r.stdout).toContain('…');
    for (const rule of rules) expect(r.stdout).toContain(` ${rule.id} `);
  });
});

describe('tables on narrow terminals', () => {
  const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d/;
  it.each([
    [['task', 'list'], /^ID +NUMBER +NAME +STEP +STATE +CREATED$/, 200, true],
    [['mcp', 'list', 'ai-tools'], /^CONNECTOR ID +NAME +KIND +AUTH METHOD +URL OR CATALOG ENTRY +UPDATED$/, 200, true],
    [['mcp', 'catalog', 'list'], /^ID +NAME +SERVICE +CONFIG FIELDS +DESCRIPTION$/, 200, false],
  ])('%j is a table that fits its terminal, times as their age on a terminal, whole on a pipe', async (args, header, columns, timed) => {
    const [tty, piped] = await Promise.all([onTerminal(args, {}, { columns, rows: 500 }), cli(args)]);
    expect(tty.code, tty.stderr).toBe(0);
    const lines = tty.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(header);
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(columns);
    expect(tty.stdout).not.toMatch(ISO);
    if (timed) {
      for (const l of lines.slice(1)) expect(l, l).toMatch(/ (just now|\d+(m|h|d|mo|y) ago|in \d+(m|h|d|mo|y))$/);
      expect(piped.stdout).toMatch(/ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n/);
      expect(piped.stdout).not.toMatch(/ ago\n/);
    }
  });

  const LISTS: [string[], Columns][] = [
    [['rules', 'list', app], RULE_COLUMNS],
    [['task', 'list'], TASK_COLUMNS],
    [['mcp', 'list', 'ai-tools'], MCP_COLUMNS],
    [['mcp', 'catalog', 'list'], CATALOG_COLUMNS],
    [['webhook', 'listeners', 'list'], LISTENER_COLUMNS],
  ];
  const WIDTHS = [60, 80, 120, 200];

  it.each(LISTS)(
    '%j at 60, 80, 120 and 200 columns: one line a row, no line past the edge, the columns left out the lowest-ranked and named',
    async (args, columns) => {
      const piped = await cli(args);
      expect(piped.code, piped.stderr).toBe(0);
      const rowCount = piped.stdout.trimEnd().split('\n').length - 1;
      expect(rowCount).toBeGreaterThan(0);
      const names = columns.map(([n]) => n);
      for (const width of WIDTHS) {
        const tty = await onTerminal(args, {}, { columns: width, rows: 500 });
        expect(tty.code, tty.stderr).toBe(0);
        const lines = tty.stdout.trimEnd().split('\n');
        // Never wrapped: a header and a line a row.
        expect(lines, `${width}`).toHaveLength(rowCount + 1);
        for (const l of lines) expect(l.length, `${width}: ${l}`).toBeLessThanOrEqual(width);
        const shown = names.filter((n) => new RegExp(`(^|  )${n}(  |$)`).test(lines[0]!));
        // The header is the shown columns in their declared order, nothing else.
        expect(lines[0]!.split(/ {2,}/)).toEqual(shown);
        const left = names.filter((n) => !shown.includes(n));
        // What is left out ranks below everything shown.
        const rank = (n: string) => columns.find(([c]) => c === n)![1];
        for (const l of left) for (const k of shown) expect(rank(l), `${width}: ${l} left out before ${k}`).toBeGreaterThanOrEqual(rank(k));
        if (left.length) expect(tty.stderr, `${width}`).toContain(`hint: ${left.join(', ')} left out to fit ${width} columns`);
        else expect(tty.stderr, `${width}`).not.toContain('left out');
      }
    },
  );

  it('-o wide shows every column whole on a narrow terminal; --columns chooses and orders them; --columns help lists them', async () => {
    const wide = await onTerminal(['rules', 'list', app, '-o', 'wide'], {}, { columns: 60, rows: 500 });
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout.split('\n')[0]).toMatch(/^PRIORITY +ID +NAME +ENABLED +CONDITION +REQUEST POLICY$/);
    for (const r of rules) expect(wide.stdout).toContain(r.condition);
    const picked = await onTerminal(['rules', 'list', app, '--columns', 'condition,ID'], {}, { columns: 200, rows: 500 });
    expect(picked.stdout.split('\n')[0]).toMatch(/^CONDITION +ID$/);
    const help = await cli(['rules', 'list', app, '--columns', 'help']);
    expect([help.code, help.stdout]).toEqual([0, 'priority\nid\nname\nenabled\ncondition\nrequest-policy\n']);
    const bad = await cli(['rules', 'list', app, '--columns', 'name,nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no column "nope"; the columns are priority, id, name, enabled, condition, request-policy');
  });

  it('--columns on a get command picks its fields by label; help lists them', async () => {
    const id = rules[0]!.id;
    const picked = await cli(['rules', 'get', app, id, '--columns', 'condition,rule']);
    expect(picked.code, picked.stderr).toBe(0);
    expect(picked.stdout).toMatch(/^Condition: +.+\nRule: +.+\n$/);
    const help = await cli(['rules', 'get', app, id, '--columns', 'help']);
    expect(help.stdout.split('\n')).toContain('request-policy');
    const bad = await cli(['rules', 'get', app, id, '--columns', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--columns: no field "nope" here\nhint: the fields are rule, app, /);
  });

  it('-o yaml prints the answer -o json prints, as YAML', async () => {
    const [yaml, json] = await Promise.all([cli(['rules', 'list', app, '-o', 'yaml']), cli(['rules', 'list', app, '-o', 'json'])]);
    expect(yaml.code, yaml.stderr).toBe(0);
    const { load } = await import('js-yaml');
    expect(load(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    expect(yaml.stdout).toMatch(/^- id: /);
  });
});

describe('the pager', () => {
  const PAGER = `sed 's/^/| /'`;
  it('takes a table longer than the terminal (AGCTL_PAGER over PAGER, run by the shell, LESS=FRX)', async () => {
    const paged = await onTerminal(['rules', 'list', app], { AGCTL_PAGER: PAGER, PAGER: 'false' }, { columns: 200, rows: 10 });
    expect(paged.code, paged.stderr).toBe(0);
    const lines = paged.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(rules.length + 1);
    for (const l of lines) expect(l).toMatch(/^\| /);
    const less = await onTerminal(['rules', 'list', app], { PAGER: 'echo "LESS=$LESS"; cat >/dev/null' }, { columns: 200, rows: 10 });
    expect(less.stdout).toBe('LESS=FRX\n');
    const own = await onTerminal(
      ['rules', 'list', app],
      { PAGER: 'echo "LESS=$LESS"; cat >/dev/null', LESS: 'R' },
      { columns: 200, rows: 10 },
    );
    expect(own.stdout).toBe('LESS=R\n');
  });

  it('is less (with LESS=FRX) when neither variable is set and less is on PATH, as git does; none without it', async () => {
    const bin = join(work, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'less'), `#!/bin/sh\necho "LESS=$LESS"\nsed 's/^/| /'\n`, { mode: 0o755 });
    const unset = { AGCTL_PAGER: undefined, PAGER: undefined, LESS: undefined } as unknown as Record<string, string>;
    const [paged, json, missing] = await Promise.all([
      onTerminal(['rules', 'list', app], { ...unset, PATH: `${bin}${delimiter}${process.env.PATH}` }, { columns: 200, rows: 10 }),
      onTerminal(
        ['rules', 'list', app, '-o', 'json'],
        { ...unset, PATH: `${bin}${delimiter}${process.env.PATH}` },
        { columns: 200, rows: 10 },
      ),
      onTerminal(['rules', 'list', app], { ...unset, PATH: join(work, 'no-such-dir') }, { columns: 200, rows: 10 }),
    ]);
    expect(paged.code, paged.stderr).toBe(0);
    const lines = paged.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('LESS=FRX');
    expect(lines.slice(1)).toHaveLength(rules.length + 1);
    for (const l of lines.slice(1)) expect(l).toMatch(/^\| /);
    expect(JSON.parse(json.stdout)).toEqual(rules);
    expect(missing.code, missing.stderr).toBe(0);
    expect(missing.stderr).toBe('');
    expect(missing.stdout.trimEnd().split('\n')).toHaveLength(rules.length + 1);
  });

  it('is not used for a table that fits, on a pipe, for JSON, or when it cannot start (the table is printed directly)', async () => {
    const [fits, piped, json, missing, none] = await Promise.all([
      onTerminal(['rules', 'list', app], { PAGER }, { columns: 200, rows: 100 }),
      cli(['rules', 'list', app], { env: { PAGER } }),
      cli(['rules', 'list', app, '-o', 'json'], { env: { PAGER } }),
      onTerminal(['rules', 'list', app], { PAGER: 'no-such-pager-agctl' }, { columns: 200, rows: 10 }),
      onTerminal(['rules', 'list', app], { AGCTL_PAGER: '', PAGER }, { columns: 200, rows: 10 }),
    ]);
    for (const r of [fits, piped, missing, none]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(rules.length + 1);
      expect(r.stdout).toMatch(/^PRIORITY/);
    }
    expect(json.json()).toEqual(rules);
  });
});

describe('help and version', () => {
  it("every subcommand's help lists the global flags under Inherited flags", async () => {
    const [login, list] = await Promise.all([cli(['login', '--help']), cli(['rules', 'list', '--help'])]);
    for (const r of [login, list]) {
      expect(r.code).toBe(0);
      const inherited = r.stdout.slice(r.stdout.indexOf('\nInherited flags:\n'));
      expect(r.stdout).toContain('\nInherited flags:\n');
      for (const flag of [
        '--profile <name>',
        '--base-url <url>',
        '--client-id <id>',
        '-o, --output <format>',
        '--jq <expression>',
        '--no-input',
        '--debug',
      ])
        expect(inherited).toContain(flag);
      expect(inherited).not.toContain('--version');
    }
  });

  it('agctl version prints the version, Node.js and the platform; -o json the same as an object', async () => {
    const [text, json] = await Promise.all([cli(['version']), cli(['version', '-o', 'json'])]);
    const v = json.json();
    expect(v).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
    });
    expect(text.stdout).toBe(`agctl ${v.version}\nNode.js ${process.versions.node} (${process.platform} ${process.arch})\n`);
  });
});
