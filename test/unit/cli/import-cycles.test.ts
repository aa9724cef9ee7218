// src has no import cycle: every import counts, type-only and dynamic ones too.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** The relative specifiers a module imports (static, type-only, re-exported, dynamic, `typeof import(...)`), read by TypeScript's own scanner. */
function relativeImports(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((s) => s.startsWith('.'));
}

/** The relative imports of each .ts file below `dir` (paths relative to src/). */
function importGraph(dir: string): Map<string, string[]> {
  const files = readdirSync(join(SRC, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const specs = relativeImports(readFileSync(join(SRC, f), 'utf8'));
    graph.set(
      f,
      specs.map((s) => relative(SRC, resolve(SRC, dirname(f), s.replace(/\.js$/, '.ts')))),
    );
  }
  return graph;
}

/** One cycle of the graph (a path that comes back to its start), if any. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string): string[] | undefined => {
    if (state.get(f) === 'open') return [...path.slice(path.indexOf(f)), f];
    if (state.get(f) === 'done' || !graph.has(f)) return undefined;
    state.set(f, 'open');
    path.push(f);
    for (const d of graph.get(f)!) {
      const cycle = visit(d);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(f, 'done');
    return undefined;
  };
  for (const f of graph.keys()) {
    const cycle = visit(f);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('imports', () => {
  it('the cycle finder finds a type-only cycle', () => {
    expect(
      findCycle(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['a.ts']],
          ['c.ts', ['a.ts']],
        ]),
      ),
    ).toEqual(['a.ts', 'b.ts', 'a.ts']);
  });

  it('reads every kind of import, whatever its quotes, and nothing in comments or strings', () => {
    const text = [
      'import {',
      "  a, // the user's",
      '  b,',
      '} from "./double.js";',
      "import type { T } from './type.js';",
      "export { x } from './re-export.js';",
      "export * from './star.js';",
      "const m = await import('./dynamic.js');",
      "type M = typeof import('./type-of.js');",
      "import './side-effect.js';",
      'const s = "import { z } from \'./in-a-string.js\'";',
      "// import { q } from './in-a-comment.js';",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    expect(relativeImports(text)).toEqual([
      './double.js',
      './type.js',
      './re-export.js',
      './star.js',
      './dynamic.js',
      './type-of.js',
      './side-effect.js',
    ]);
  });

  it('src has no import cycle, type-only and dynamic imports included', () => {
    const graph = importGraph('.');
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('cli/run.ts')).toContain('cli/declare.ts');
    expect(graph.get('api/mcp-schema.ts')).toContain('api/secret-fields.ts');
    expect(findCycle(graph)).toBeUndefined();
  });
});
