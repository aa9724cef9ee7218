// Commands read the process only through their context (ctx.io, ctx.env,
// ctx.clock): run in-process by the tests, they must not touch the real
// process's signals, streams or environment.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const COMMANDS = fileURLToPath(new URL('../../../src/cli/commands/', import.meta.url));

/** The code of a file without its comments (line and block). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** The lines of `text` that use `process.` or the global `process` object. */
const processUses = (text: string) =>
  code(text)
    .split('\n')
    .filter((l) => /(^|[^.\w$])process\s*[.[]/.test(l));

describe('commands and the process', () => {
  it('finds a use of process in code, not in a comment', () => {
    expect(processUses("// the process.env\nconst a = 1; /* process.exit() */\nprocess.once('SIGTERM', f);\nx.process.y")).toEqual([
      "process.once('SIGTERM', f);",
    ]);
  });

  it('no file under src/cli/commands uses process', () => {
    const files = readdirSync(COMMANDS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(50);
    const uses = files.flatMap((f) => processUses(readFileSync(join(COMMANDS, f), 'utf8')).map((l) => `${f}: ${l.trim()}`));
    expect(uses).toEqual([]);
  });
});
