// The finder of dead exports (scripts/dead-exports.ts), which `npm run lint` runs
// on the tree: every export of src/ is imported somewhere else (src, test,
// scripts or bin); one used only in its own file is not exported.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deadExports } from '../../scripts/dead-exports.js';

describe('dead exports', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'agctl-dead-exports-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(tmp, path)), { recursive: true });
    writeFileSync(join(tmp, path), text);
  };

  it('finds the exports no other file imports, and tells the ones still used in their own file', () => {
    write(
      'src/a.ts',
      [
        'export const used = 1;',
        'export const onlyHere = 2;',
        'export function unused() {}',
        'export type T = number;',
        'export const viaType = 3;',
        'export { onlyHere as alias };',
        'const x = onlyHere;',
      ].join('\n'),
    );
    write(
      'src/b.ts',
      "import { used } from \"./a.js\";\nexport type U = typeof import('./a.js').T;\nconst { fromDynamic } = await import('./c.js');\nexport const both = [used, fromDynamic];\n",
    );
    write('src/c.ts', 'export const fromDynamic = 1;\nexport const notTaken = 2;\n');
    write('src/d.ts', 'export const wholeModule = 1;\n');
    write('src/e.ts', 'export const fromDist = 1;\n');
    write(
      'test/t.test.ts',
      "import * as d from '../src/d.js';\nimport type { U } from '../src/b.js';\nimport { both } from '../src/b.js';\nimport { viaType } from '../src/a.js';\n",
    );
    write('bin/run.js', "const { fromDist } = await import('../dist/e.js');\n");
    expect(deadExports(tmp)).toEqual([
      { file: 'src/a.ts', name: 'alias', usedInFile: false },
      { file: 'src/a.ts', name: 'onlyHere', usedInFile: true },
      { file: 'src/a.ts', name: 'unused', usedInFile: false },
      { file: 'src/c.ts', name: 'notTaken', usedInFile: false },
    ]);
  });
});
