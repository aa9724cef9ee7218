// Tables as kubectl and gh draw them: on a terminal they fit its width; on a pipe nothing is cut.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../../src/cli/io.js';
import { Output, RECORDS_BELOW, age, fitTable, plainColumns, styled, visible } from '../../../src/cli/output.js';
import type { Columns } from '../../../src/cli/columns.js';

function capture(tty: boolean, columns?: number, now?: number, color = false, format: 'table' | 'wide' = 'table') {
  let text = '';
  let errText = '';
  const stdout = Object.assign(new PassThrough(), { isTTY: tty, columns });
  const stderr = new PassThrough();
  stdout.on('data', (d) => (text += String(d)));
  stderr.on('data', (d) => (errText += String(d)));
  const io = { stdin: new PassThrough(), stdout, stderr, isStdoutTTY: tty, isStdinTTY: false, isStderrTTY: false } as unknown as IO;
  return { out: new Output(io, format, color, now === undefined ? undefined : () => now), text: () => text, stderr: () => errText };
}

const HEAD = ['PRIORITY', 'ID', 'NAME', 'ENABLED', 'CONDITION'];
const ROWS = [
  [10, 'ecr-001', 'Route 1: Sales and marketing', 'yes', 'subject.department == "Sales" && subject.region == "EMEA"'],
  [20, 'ecr-002', 'Route 2: Engineering', 'no', 'subject.department == "Engineering"'],
];

describe('Output.table', () => {
  it.each([80, 60])('fits a %i-column terminal, leaving out the last columns (ranked by position) and saying so', async (columns) => {
    const c = capture(true, columns);
    await c.out.table(HEAD, ROWS);
    const lines = c.text().trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(columns);
    expect(lines[0]).toMatch(/^PRIORITY {2}ID/);
    expect(c.text()).toContain('ecr-001');
    expect(c.stderr()).toMatch(new RegExp(`^hint: .*CONDITION left out to fit ${columns} columns \\(-o wide shows them\\)\n$`));
  });

  it('leaves a table that fits, or one on a pipe, whole', async () => {
    const wide = capture(true, 200);
    await wide.out.table(HEAD, ROWS);
    expect(wide.text()).toContain('subject.department == "Sales" && subject.region == "EMEA"');
    const pipe = capture(false, 40);
    await pipe.out.table(HEAD, ROWS);
    expect(pipe.text()).toContain('subject.department == "Sales" && subject.region == "EMEA"');
  });

  it(`shows records instead of a table only below ${RECORDS_BELOW} columns, the same for every table`, async () => {
    const c = capture(true, RECORDS_BELOW - 1);
    await c.out.table(HEAD, ROWS);
    const text = c.text();
    for (const l of text.trimEnd().split('\n')) expect(l.length, l).toBeLessThanOrEqual(RECORDS_BELOW - 1);
    expect(text).toBe(
      [
        'PRIORITY   10',
        'ID         ecr-001',
        'NAME       Route 1: Sales and marketing',
        'ENABLED    yes',
        'CONDITION  subject.department ==',
        '           "Sales" && subject.region ==',
        '           "EMEA"',
        '',
        'PRIORITY   20',
        'ID         ecr-002',
        'NAME       Route 2: Engineering',
        'ENABLED    no',
        'CONDITION  subject.department ==',
        '           "Engineering"',
        '',
      ].join('\n'),
    );
    // At the documented width: still a table, low-ranked columns left out.
    const table = capture(true, RECORDS_BELOW);
    await table.out.table(HEAD, ROWS);
    expect(table.text()).toMatch(/^PRIORITY {2}ID/);
  });

  it('in records, wraps free text at spaces onto continuation lines, and never breaks an ID or a URL (the terminal wraps them whole)', async () => {
    const url = 'http://127.0.0.1:4567/api/v1/webhooks/incoming/3MabJ5Rmfw8x0cey0OQ3WMPP0ph';
    const c = capture(true, 34);
    await c.out.table(['ID', 'NAME', 'URL'], [['3MabJ5Rmfw8x0cey0OQ3WMPP0ph', 'a webhook with a long name', url]]);
    expect(c.text()).toBe(`ID    3MabJ5Rmfw8x0cey0OQ3WMPP0ph\nNAME  a webhook with a long name\nURL   ${url}\n`);
    const narrower = capture(true, 20);
    await narrower.out.table(['ID', 'NAME', 'URL'], [['3MabJ5Rmfw8x0cey0OQ3WMPP0ph', 'a webhook with a long name', url]]);
    expect(narrower.text()).toBe(`ID    3MabJ5Rmfw8x0cey0OQ3WMPP0ph\nNAME  a webhook with\n      a long name\nURL   ${url}\n`);
  });

  it('draws no borders: a header row, columns two spaces apart, trailing spaces trimmed', async () => {
    const c = capture(true, 200);
    await c.out.table(
      ['ID', 'NAME', 'ENABLED'],
      [
        ['a', 'first rule', 'yes'],
        ['bb', 'x', 'no'],
      ],
    );
    expect(c.text()).toBe('ID  NAME        ENABLED\na   first rule  yes\nbb  x           no\n');
  });

  it('cuts only free text, never a header, an ID or a number, down to 40% of the width; then leaves out the lowest-ranked columns', async () => {
    const head: Columns = [
      ['ID', 3],
      ['NAME', 1],
      ['DESCRIPTION', 2],
      ['N', 4],
    ];
    const description = 'a long description of what the rule does, with many words';
    const rows = [['an-id-that-is-long', 'short name', description, '123456']];
    const c = capture(true, 80);
    await c.out.table(head, rows);
    const [top, row] = c.text().trimEnd().split('\n');
    expect(top).toMatch(/^ID\s+NAME\s+DESCRIPTION\s+N$/);
    // The description alone gives way: 40 columns (80, less the others), ending in …
    expect(row).toBe(`an-id-that-is-long  short name  ${description.slice(0, 39)}…  123456`);
    expect(c.stderr()).toBe('');
    // At 60 the description would go below 24 (40%): N (rank 4) is left out instead, and the description gets its room back.
    const narrow = capture(true, 60);
    await narrow.out.table(head, rows);
    expect(narrow.text()).toBe(
      `ID                  NAME        DESCRIPTION\nan-id-that-is-long  short name  ${description.slice(0, 27).trimEnd()}…\n`,
    );
    expect(narrow.stderr()).toBe('hint: N left out to fit 60 columns (-o wide shows them)\n');
    // At 51, the ID (rank 3) too.
    const fewer = capture(true, 51);
    await fewer.out.table(head, rows);
    expect(fewer.text()).toBe(`NAME        DESCRIPTION\nshort name  ${description.slice(0, 38).trimEnd()}…\n`);
    expect(fewer.stderr()).toBe('hint: ID, N left out to fit 51 columns (-o wide shows them)\n');
  });

  it('never wraps a row: every line of a fitted table is one row, at 60, 80, 120 and 200 columns', async () => {
    const url = 'http://127.0.0.1:4567/api/v1/webhooks/incoming/3MabJ5Rmfw8x0cey0OQ3WMPP0ph';
    const head: Columns = [
      ['ID', 4],
      ['NAME', 1],
      ['AUTH', 2],
      ['URL', 6],
    ];
    const rows = [
      ['3MabJ5Rmfw8x0cey0OQ3WMPP0ph', 'Demo: HMAC webhook with a long name', 'HMAC', url],
      ['3MacKQ0OjQQa0cey0OQ3WMPP0ph', 'other', 'JWT', url],
    ];
    for (const width of [60, 80, 120, 200]) {
      const c = capture(true, width);
      await c.out.table(head, rows);
      const lines = c.text().trimEnd().split('\n');
      expect(lines, String(width)).toHaveLength(3);
      for (const l of lines) expect(visible(l), `${width}: ${l}`).toBeLessThanOrEqual(width);
    }
  });

  it('with -o wide shows every column whole on a terminal of any width', async () => {
    const c = capture(true, 60, undefined, false, 'wide');
    await c.out.table(HEAD, ROWS);
    expect(c.text()).toContain('subject.department == "Sales" && subject.region == "EMEA"');
    expect(c.stderr()).toBe('');
  });

  it('with --columns shows the columns picked, in that order', async () => {
    const c = capture(false);
    c.out.pickColumns(['CONDITION', 'ID']);
    await c.out.table(HEAD, ROWS);
    expect(c.text()).toBe(
      'CONDITION                                                  ID\nsubject.department == "Sales" && subject.region == "EMEA"  ecr-001\nsubject.department == "Engineering"                        ecr-002\n',
    );
  });
});

describe('big tables', () => {
  // About 125,000 rows were enough for a spread of a column's widths to overflow the stack.
  const rows = Array.from({ length: 130_000 }, (_, i) => [`id-${i}`, `rule ${i}`]);
  it.each([
    ['a pipe', false],
    ['a terminal', true],
  ])('of 130,000 rows print on %s', async (_, tty) => {
    const c = capture(tty, 80);
    await c.out.table(['ID', 'NAME'], rows);
    const lines = c.text().split('\n');
    expect(lines).toHaveLength(rows.length + 2);
    expect(lines[rows.length]).toBe('id-129999  rule 129999');
  });

  it("fields with 130,000 labels (a server's members) print", () => {
    const c = capture(false);
    c.out.fields(rows.map(([k, v]) => [k!, v!]));
    expect(c.text().split('\n')[129_999]).toBe('id-129999: rule 129999');
  });
});

describe('server text in tables and fields', () => {
  // A name as a server may hold it: a title change, a screen clear, a C1 CSI, a line break and a tab.
  const EVIL = 'a\u001b]0;pwned\u0007b\u001b[2Jc\u009b31m\r\nd\te';
  const SHOWN = 'a\\x1b]0;pwned\\x07b\\x1b[2Jc\\x9b31m\\r\\nd\\te';

  it.each([
    ['a terminal', true],
    ['a pipe', false],
  ])('shows control characters as escapes in every cell, on %s', async (_, tty) => {
    const c = capture(tty, 200);
    await c.out.table(
      ['ID', 'NAME'],
      [
        [EVIL, 'x'],
        ['2', ['pre ', EVIL, ' ', styled(EVIL, 'green')]],
      ],
    );
    expect(c.text()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(c.text().split('\n')).toHaveLength(4); // header, two rows, the final newline
    expect(c.text()).toContain(`${SHOWN}  x`);
    expect(c.text()).toContain(`pre ${SHOWN} ${SHOWN}`);
  });

  it('shows control characters as escapes in fields, and a styled part keeps its colour', async () => {
    const c = capture(true, 200, undefined, true);
    await c.out.styles();
    c.out.fields([
      ['Name', EVIL],
      ['Status', [styled('200 OK', 'green'), ' (', EVIL, ')']],
      ['Absent', undefined],
    ]);
    const lines = c.text().split('\n');
    expect(lines[0]).toBe(`Name:   ${SHOWN}`);
    expect(lines[1]).toBe(`Status: \u001b[32m200 OK\u001b[39m (${SHOWN})`);
    expect(lines[2]).toBe('Absent: -');
  });

  it('escapes a label too (a catalog entry names its own members), and prints what a server sent in place of text as String() gives it', async () => {
    const c = capture(false);
    c.out.fields([
      ['ok\u001b[2J', 'v'],
      ['n', null as unknown as string],
      ['o', { style: 'nope' } as unknown as string],
      ['p', { text: 'x', style: 'toString' } as unknown as string],
    ]);
    expect(c.text()).toBe('ok\\x1b[2J: v\nn:         -\no:         [object Object]\np:         [object Object]\n');
    const t = capture(false);
    await t.out.table(['A', 'B'], [[null as unknown as string, { text: 'x' } as unknown as string]]);
    expect(t.text()).toBe('A     B\nnull  [object Object]\n');
  });

  it('shows control characters as escapes on stderr too (info, success, warn, failure), one call one line, the marks in colour', async () => {
    let err = '';
    const stderr = new PassThrough().on('data', (d) => (err += String(d)));
    const io = {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr,
      isStdoutTTY: true,
      isStdinTTY: false,
      isStderrTTY: true,
    } as unknown as IO;
    const out = new Output(io, 'table', true);
    await out.styles();
    out.info(EVIL);
    out.success(['done ', styled(EVIL, 'bold')]);
    out.warn(`dropped ${EVIL}`);
    out.failure(EVIL);
    expect(err).toBe(
      [
        SHOWN,
        `\u001b[32m✓\u001b[39m done \u001b[1m${SHOWN}\u001b[22m`,
        `\u001b[33m!\u001b[39m dropped ${SHOWN}`,
        `\u001b[31m✗\u001b[39m ${SHOWN}`,
        '',
      ].join('\n'),
    );
  });

  it('JSON output escapes DEL and C1 controls too (JSON.stringify leaves them raw): the same value, nothing a terminal acts on', () => {
    const c = capture(true);
    c.out.printJson({ name: EVIL });
    expect(c.text()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.parse(c.text())).toEqual({ name: EVIL });
  });

  it('--jq prints strings raw on a pipe, with control characters (but line breaks and tabs) as escapes on a terminal; its JSON escapes DEL and C1', async () => {
    const [tty, pipe] = [capture(true), capture(false)];
    for (const c of [tty, pipe]) {
      await c.out.useJq('.name, .', {});
      c.out.printJson({ name: EVIL });
    }
    expect(pipe.text()).toBe(`${EVIL}\n${JSON.stringify({ name: EVIL }, null, 2).replace('\u009b', '\\u009b')}\n`);
    expect(tty.text()).toBe(
      `a\\x1b]0;pwned\\x07b\\x1b[2Jc\\x9b31m\\r\nd\te\n${JSON.stringify({ name: EVIL }, null, 2).replace('\u009b', '\\u009b')}\n`,
    );
  });

  it('print: a line of data as it is on a pipe, with control characters (but line breaks and tabs) as escapes on a terminal', () => {
    const [tty, pipe] = [capture(true), capture(false)];
    for (const c of [tty, pipe]) c.out.print(EVIL);
    expect(pipe.text()).toBe(`${EVIL}\n`);
    expect(tty.text()).toBe('a\\x1b]0;pwned\\x07b\\x1b[2Jc\\x9b31m\\r\nd\te\n');
  });

  it('colours a styled cell after fitting and escaping it', async () => {
    const c = capture(true, 200, undefined, true);
    await c.out.table(
      ['ID', 'ENABLED'],
      [
        ['r1', styled('yes', 'green')],
        ['r2', styled('no\u001b[2J', 'dim')],
      ],
    );
    expect(c.text()).toContain('r1  \u001b[32myes\u001b[39m');
    expect(c.text()).toContain('r2  \u001b[2mno\\x1b[2J\u001b[22m');
  });
});

describe('fitTable: which column gives way', () => {
  const rows = ROWS.map((r) => r.map(String));
  const ranked: Columns = [
    ['PRIORITY', 4],
    ['ID', 5],
    ['NAME', 1],
    ['ENABLED', 3],
    ['CONDITION', 2],
  ];
  it('free text gives way down to 40% of the terminal, widest first; the other columns stay whole', () => {
    // Natural widths 8, 7, 28, 7, 57 (115 with the gaps).
    expect(fitTable(ranked, rows, 120)).toEqual({ keep: [0, 1, 2, 3, 4], widths: [8, 7, 28, 7, 57] });
    expect(fitTable(ranked, rows, 110)).toEqual({ keep: [0, 1, 2, 3, 4], widths: [8, 7, 28, 7, 52] });
  });

  it('then the lowest-ranked columns are left out before high-ranked text is cut short, the top-ranked last', () => {
    // At 80 the condition would go below 32: the ID (rank 5) goes, then PRIORITY (rank 4); the condition gets the room.
    expect(fitTable(ranked, rows, 80)).toEqual({ keep: [2, 3, 4], widths: [28, 7, 41] });
    // At 50, ENABLED (rank 3) too.
    expect(fitTable(ranked, rows, 50)).toEqual({ keep: [2, 4], widths: [28, 20] });
    // Two free-text columns share the cut, widest first, each down to 40%.
    expect(
      fitTable(
        [
          ['NAME', 1],
          ['CONDITION', 2],
        ],
        [['a name of forty characters, give or take', 'a condition of about forty characters too']],
        60,
      ),
    ).toEqual({
      keep: [0, 1],
      widths: [34, 24],
    });
    expect(fitTable([['NAME', 1]], [['x'.repeat(100)]], 50)).toEqual({ keep: [0], widths: [50] });
    expect(fitTable(ranked, rows, RECORDS_BELOW - 1)).toBeUndefined();
    expect(fitTable(ranked, rows, undefined)).toEqual({ keep: [0, 1, 2, 3, 4], widths: [8, 7, 28, 7, 57] });
  });

  it('cuts a name with no space that is wider than the terminal, as free text, instead of leaving the other columns out', () => {
    const head: Columns = [
      ['ID', 2],
      ['NAME', 1],
      ['STATE', 3],
    ];
    const rows = [
      ['r1', 'N'.repeat(500), 'open'],
      ['r2', 'Slack', 'closed'],
    ];
    // 80 columns: the name gets 80 - 2 - 6 - 2 * 2 = 68 (above 32, 40% of 80); the ID and the state stay.
    expect(fitTable(head, rows, 80)).toEqual({ keep: [0, 1, 2], widths: [2, 68, 6] });
    // A column of short names with no space is no free text: the table fits as it is.
    expect(fitTable(head, [['r2', 'Slack', 'closed']], 80)).toEqual({ keep: [0, 1, 2], widths: [2, 5, 6] });
  });

  it('never cuts an ID with no space (a KSUID, an event UUID) on any terminal: it stays whole or is left out', () => {
    // The columns of `webhook runs`: a trigger is the event's JSON, with no space.
    const head: Columns = [
      ['RUN', 1],
      ['ID', 5],
      ['EVENT ID', 3],
      ['CREATED', 4],
      ['TRIGGER', 2],
    ];
    const rows = [
      [
        '1',
        '2QGcF7pJxkTq1yN3mV8sZr0aBcD',
        '3f2c9a1e-7b4d-4c2a-9e8f-1a2b3c4d5e6f',
        '5m ago',
        '{"event":"user.created","id":"u-123456789","org":"acme-corp"}',
      ],
    ];
    for (let width = RECORDS_BELOW; width <= 150; width++) {
      const fit = fitTable(head, rows, width)!;
      for (const j of [1, 2]) {
        const k = fit.keep.indexOf(j);
        if (k >= 0) expect([width, head[j]![0], fit.widths[k]]).toEqual([width, head[j]![0], rows[0]![j]!.length]);
      }
    }
  });

  it('never cuts a column that holds a URL: it is left out by its rank instead', () => {
    const head: Columns = [
      ['ID', 2],
      ['NAME', 1],
      ['URL OR CATALOG ENTRY', 3],
      ['KIND', 4],
    ];
    const rows = [
      ['crm-mcp', 'CRM (legacy OAuth2 passthrough mode)', 'https://tickets.internal.example.com/mcp/sse/a/longer/path', 'external'],
      ['dd', 'Datadog', 'catalog 3MacSr4RNE0gAoCMrpH6vfDSxb6', 'hosted'],
    ];
    expect(fitTable(head, rows, 120)).toEqual({ keep: [0, 1, 2, 3], widths: [7, 36, 58, 8] });
    expect(fitTable(head, rows, 100)).toEqual({ keep: [0, 1], widths: [7, 36] });
  });
});

describe('times in tables', () => {
  const now = Date.parse('2026-11-25T09:00:00.000Z');
  it.each([
    ['2026-11-25T08:59:30.000Z', 'just now'],
    ['2026-11-25T08:55:00.000Z', '5m ago'],
    ['2026-11-25T07:13:08.295Z', '1h ago'],
    ['2026-11-22T09:00:00Z', '3d ago'],
    ['2026-08-25T09:00:00+02:00', '3mo ago'],
    ['2024-11-25T09:00:00Z', '2y ago'],
    ['2026-11-25T09:05:00.000Z', 'in 5m'],
  ])('%s is %s', (iso, expected) => expect(age(iso, now)).toBe(expected));

  it('shows as their age on a terminal, whole on a pipe; other cells are left alone', async () => {
    const head = ['ID', 'NOTE', 'CREATED'];
    const rows = [['a', 'created 2026-11-25T07:13:08.295Z', '2026-11-25T07:13:08.295Z']];
    const tty = capture(true, 200, now);
    await tty.out.table(head, rows);
    expect(tty.text()).toBe('ID  NOTE                              CREATED\na   created 2026-11-25T07:13:08.295Z  1h ago\n');
    const pipe = capture(false, undefined, now);
    await pipe.out.table(head, rows);
    expect(pipe.text()).toBe(
      'ID  NOTE                              CREATED\na   created 2026-11-25T07:13:08.295Z  2026-11-25T07:13:08.295Z\n',
    );
  });
});

describe('plainColumns (piped tables)', () => {
  it('pads every cell to its column, two spaces apart, and trims line ends, for any plain text', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const word = () => Array.from({ length: rnd(12) }, () => 'abcXYZ09 ._-=>"'[rnd(15)]).join('');
    for (let t = 0; t < 50; t++) {
      const cols = 1 + rnd(6);
      const head = Array.from({ length: cols }, () => word().toUpperCase() || 'H');
      const rows = Array.from({ length: rnd(8) }, () => Array.from({ length: cols }, word));
      const lines = plainColumns(head, rows).split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(rows.length + 1);
      [head, ...rows].forEach((r, i) => {
        const line = lines[i]!;
        expect(line).toBe(line.trimEnd());
        let at = 0;
        r.forEach((cell, j) => {
          const width = Math.max(...[head, ...rows].map((x) => x[j]!.length));
          expect(line.slice(at, at + cell.length), JSON.stringify({ head, rows })).toBe(cell.slice(0, Math.max(0, line.length - at)));
          at += width + 2;
        });
      });
    }
  });

  it('aligns wide characters and colour codes by the columns they take', () => {
    const out = plainColumns(
      ['NAME', 'ID'],
      [
        ['\u001b[32m漢字\u001b[39m', 'a'],
        ['ab', 'b'],
        ['e\u0301', 'c'],
      ],
    );
    expect(out.replace(/\u001b\[\d+m/g, '')).toBe('NAME  ID\n漢字  a\nab    b\ne\u0301     c\n');
    expect(visible('漢字')).toBe(4);
    expect(visible('🙂x')).toBe(3);
  });
});

describe('Output.list (what every list command prints)', () => {
  function listCapture(format: 'table' | 'json') {
    let stdout = '';
    let stderr = '';
    const out = Object.assign(new PassThrough(), { isTTY: false });
    const err = new PassThrough();
    out.on('data', (d) => (stdout += String(d)));
    err.on('data', (d) => (stderr += String(d)));
    const io = {
      stdin: new PassThrough(),
      stdout: out,
      stderr: err,
      isStdoutTTY: false,
      isStdinTTY: false,
      isStderrTTY: false,
    } as unknown as IO;
    return { out: new Output(io, format, false), stdout: () => stdout, stderr: () => stderr };
  }
  const how = {
    empty: 'Nothing here',
    columns: [
      ['ID', 1],
      ['N', 2],
    ] as const,
    row: (i: { id: string; n: number }) => ({ ID: i.id, N: i.n }),
  };
  const items = [{ id: 'a', n: 1 }];

  it('prints the items (or what json makes of them) as JSON with -o json, nothing on stderr', async () => {
    const c = listCapture('json');
    expect(await c.out.list(items, how)).toBe(false);
    expect(JSON.parse(c.stdout())).toEqual(items);
    const shown = listCapture('json');
    await shown.out.list(items, { ...how, json: (all) => all.map((i) => i.id) });
    expect(JSON.parse(shown.stdout())).toEqual(['a']);
    expect(c.stderr() + shown.stderr()).toBe('');
  });

  it('says `empty` on stderr when there are no items, and draws no table', async () => {
    const c = listCapture('table');
    expect(await c.out.list([], how)).toBe(false);
    expect([c.stdout(), c.stderr()]).toEqual(['', 'Nothing here\n']);
  });

  it('draws a table of a row an item, and says so', async () => {
    const c = listCapture('table');
    expect(await c.out.list(items, how)).toBe(true);
    expect([c.stdout(), c.stderr()]).toEqual(['ID  N\na   1\n', '']);
  });
});
