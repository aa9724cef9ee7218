// Exports of src/ that no other file imports (src, test, scripts or bin):
// read with the TypeScript parser, no type checking. A module imported whole
// (`import * as`, `export *`, an `import()` whose names are not spelled out)
// counts as using every export of it.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ALL = '*';
const SOURCE = /\.(ts|mts|js|mjs)$/;

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : listFiles(p);
    return SOURCE.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The file a relative specifier names (a built `dist/` path stands for its source in `src/`). */
function resolveSpecifier(root: string, from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  let p = resolve(dirname(from), spec);
  const dist = join(root, 'dist') + '/';
  if (p.startsWith(dist)) p = join(root, 'src', p.slice(dist.length));
  const candidates = [p, p.replace(/\.js$/, '.ts'), p.replace(/\.mjs$/, '.mts'), `${p}.ts`, join(p, 'index.ts')];
  return candidates.find((c) => SOURCE.test(c) && existsSync(c));
}

/** The names taken from an `import()` call: the destructured or accessed ones, or every one. */
function dynamicNames(call: ts.Node): string[] {
  let node = call.parent;
  if (ts.isAwaitExpression(node)) {
    const up = node.parent;
    if (ts.isVariableDeclaration(up) && ts.isObjectBindingPattern(up.name)) {
      return up.name.elements.map((e) => (e.propertyName ?? e.name).getText());
    }
    if (ts.isParenthesizedExpression(up) && ts.isPropertyAccessExpression(up.parent)) return [up.parent.name.text];
    node = up;
  }
  return [ALL];
}

export interface DeadExport {
  file: string;
  name: string;
  /** Whether the name is used in its own file (then only `export` goes; else the declaration). */
  usedInFile: boolean;
}

export function deadExports(root: string): DeadExport[] {
  const all = ['src', 'test', 'scripts', 'bin'].flatMap((d) => listFiles(join(root, d)));
  const exported = new Map<string, Set<string>>();
  const used = new Map<string, Set<string>>();
  // Names destructured from an import() whose path is computed (scripts load dist/ or src/ by a joined path).
  const usedAnywhere = new Set<string>();
  const use = (file: string | undefined, names: string[]) => {
    if (!file) return;
    const set = used.get(file) ?? new Set<string>();
    for (const n of names) set.add(n);
    used.set(file, set);
  };
  const texts = new Map<string, string>();

  for (const file of all) {
    const text = readFileSync(file, 'utf8');
    texts.set(file, text);
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
    const inSrc = file.startsWith(join(root, 'src') + '/');
    const names = new Set<string>();
    const target = (spec: ts.Expression | undefined) =>
      spec && ts.isStringLiteralLike(spec) ? resolveSpecifier(root, file, spec.text) : undefined;

    for (const st of sf.statements) {
      const exportedHere = ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (exportedHere) {
        const isDefault = ts.getModifiers(st as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
        if (isDefault) names.add('default');
        else if (ts.isVariableStatement(st)) {
          for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
        } else if (
          (ts.isFunctionDeclaration(st) ||
            ts.isClassDeclaration(st) ||
            ts.isInterfaceDeclaration(st) ||
            ts.isTypeAliasDeclaration(st) ||
            ts.isEnumDeclaration(st)) &&
          st.name
        ) {
          names.add(st.name.text);
        }
      }
      if (ts.isExportAssignment(st)) names.add('default');
      if (ts.isExportDeclaration(st)) {
        const from = target(st.moduleSpecifier);
        if (!st.exportClause) use(from, [ALL]);
        else if (ts.isNamedExports(st.exportClause)) {
          for (const e of st.exportClause.elements) {
            names.add(e.name.text);
            if (st.moduleSpecifier) use(from, [(e.propertyName ?? e.name).text]);
          }
        } else use(from, [ALL]);
      }
      if (ts.isImportDeclaration(st)) {
        const from = target(st.moduleSpecifier);
        const clause = st.importClause;
        if (!clause) continue;
        if (clause.name) use(from, ['default']);
        const b = clause.namedBindings;
        if (b && ts.isNamespaceImport(b)) use(from, [ALL]);
        else if (b)
          use(
            from,
            b.elements.map((e) => (e.propertyName ?? e.name).text),
          );
      }
    }

    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const from = target(node.arguments[0]);
        const taken = dynamicNames(node);
        if (from) use(from, taken);
        else if (!(node.arguments[0] && ts.isStringLiteralLike(node.arguments[0]))) taken.forEach((n) => n !== ALL && usedAnywhere.add(n));
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        const from = resolveSpecifier(root, file, node.argument.literal.text);
        use(from, [node.qualifier ? (ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier.left.getText()) : ALL]);
      } else if (ts.isCallExpression(node) && /\b(importActual|importMock)$/.test(node.expression.getText())) {
        use(target(node.arguments[0]), [ALL]);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    if (inSrc) exported.set(file, names);
  }

  const dead: DeadExport[] = [];
  for (const [file, names] of exported) {
    const u = used.get(file);
    if (u?.has(ALL)) continue;
    for (const name of names) {
      if (u?.has(name) || usedAnywhere.has(name)) continue;
      const occurrences = texts.get(file)!.match(new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'))?.length ?? 0;
      dead.push({ file: relative(root, file), name, usedInFile: occurrences > 1 });
    }
  }
  return dead.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
}

// `npm run lint` runs this file: it lists each dead export and fails when there is one.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dead = deadExports(root);
  for (const d of dead)
    console.error(
      `${d.file}: ${d.name} is exported but no other file imports it${d.usedInFile ? ' (used in its own file: drop its export)' : ''}`,
    );
  if (dead.length) process.exitCode = 1;
}
