#!/usr/bin/env node
// Builds dist/ from src/ with esbuild: ESM, code splitting, one file per entry
// point and per lazily imported module (each `import()` target keeps its path,
// e.g. dist/cli/commands/rules/list.js), shared code in dist/chunk-*.js.
// Packages stay in node_modules (imported at run time), except the ones in
// BUNDLED, each read as a few files instead of many: commander, which every
// command line loads, and zod and jose (about 95 and 45 ES modules), which
// serve, --embedded, the MCP commands and key-secret logins load.
// dist/contents.json lists the sources in each output file; dist/help.json
// holds the help pages bin/agctl.js prints without loading the program.
// Type-checking is not done here: `npm run typecheck` (tsc --noEmit).
//
//   node scripts/build.mjs                 build (dist/ is emptied first)
//   node scripts/build.mjs --if-stale      build only when an input is newer than the last build
//   node scripts/build.mjs --sourcemap     also write source maps (run with node --enable-source-maps)
//   node scripts/build.mjs --if-esbuild    do nothing when esbuild (a dev dependency) is not installed:
//                                          npm's `prepare`, which also runs where dev dependencies were left out
import { existsSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const stamp = join(dist, '.build-stamp');

/**
 * Modules other code imports from dist/ by path: the CLI entry (bin/agctl.js),
 * the program tree and completion scripts (scripts/gen-completions.mjs), the
 * task-view paths (the tour) and the key loader (a unit test of the built file).
 */
const ENTRIES = ['cli/main.ts', 'cli/program.ts', 'cli/completion.ts', 'api/tasks.ts', 'webhook/keys.ts'];

/** Packages compiled into dist/ (see the top); every other package is imported from node_modules at run time. */
const BUNDLED = new Set(['commander', 'zod', 'jose']);

/** Leaves a package import (not a relative path) to run time unless the package is in BUNDLED. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) => {
      const name = a.path.startsWith('@') ? a.path.split('/').slice(0, 2).join('/') : a.path.split('/')[0];
      return BUNDLED.has(name) || a.path.startsWith('node:') ? undefined : { path: a.path, external: true };
    });
  },
};

/**
 * commander requires node:child_process at load time for executable
 * subcommands, which agctl has none of; loading it (with net and dgram) is a
 * few per cent of `agctl --help`. Bundled commander gets a stand-in that loads
 * it on first use.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (a) =>
      a.importer.includes('/node_modules/commander/') ? { path: 'child_process', namespace: 'lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "exports.spawn = (...a) => require('node:child_process').spawn(...a);",
      loader: 'js',
    }));
  },
};

/**
 * The declarations a `subcommands.ts` lists (`() => import('./…/command.js')`)
 * are small and needed together (the root help needs every top-level one, a
 * group's help all of its own): they are bundled with their list, not written
 * a file each (which would double the files `agctl --help` reads). The runs
 * stay a file each, loaded when their command runs.
 */
const declarationsWithList = {
  name: 'declarations-with-list',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]commands[\\/](.+[\\/])?subcommands\.ts$/ }, (a) => {
      const specs = [];
      const source = readFileSync(a.path, 'utf8').replace(
        /\(\) => import\(('[^']+\/command\.js')\)/g,
        (_, spec) => `async () => __declaration${specs.push(spec) - 1}`,
      );
      return { contents: `${specs.map((s, i) => `import * as __declaration${i} from ${s};`).join('\n')}\n${source}`, loader: 'ts' };
    });
  },
};

/** Every file whose change calls for a rebuild. */
function inputs() {
  const files = [join(root, 'package.json'), join(root, 'tsconfig.json'), fileURLToPath(import.meta.url)];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(join(root, 'src'));
  return files;
}

/** Whether dist/ is older than an input, or was built with other options. */
function stale(options) {
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== options) return true;
  const built = statSync(stamp).mtimeMs;
  return inputs().some((f) => statSync(f).mtimeMs > built);
}

const args = process.argv.slice(2);
let build;
try {
  ({ build } = await import('esbuild'));
} catch (err) {
  if (args.includes('--if-esbuild') && err?.code === 'ERR_MODULE_NOT_FOUND') process.exit(0);
  throw err;
}
const sourcemap = args.includes('--sourcemap');
const options = JSON.stringify({ sourcemap });
if (args.includes('--if-stale') && !stale(options)) process.exit(0);

const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const started = new Date();
rmSync(dist, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ENTRIES.map((e) => `src/${e}`),
  outbase: 'src',
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [lazyChildProcess, externalPackages, declarationsWithList],
  sourcemap: sourcemap ? 'linked' : false,
  // The version is written into the build: `agctl --version` reads no file.
  define: { AGCTL_BUILD_VERSION: JSON.stringify(version) },
  // A bundled CommonJS package requires Node's built-in modules: give the ESM chunks a `require`.
  banner: { js: "import { createRequire as __agctlRequire } from 'node:module'; const require = __agctlRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
});
// Which sources each output file holds (dist/ path -> source paths): the
// start-up tests read it to tell what a command line loaded.
const contents = Object.fromEntries(
  Object.entries(result.metafile.outputs)
    .filter(([f]) => f.endsWith('.js'))
    .map(([f, o]) => [f, Object.keys(o.inputs)]),
);
writeFileSync(join(dist, 'contents.json'), JSON.stringify(contents, null, 1) + '\n');
// The root's and each group's help page, made by the program just built: bin/agctl.js prints them
// for `agctl --help` and `agctl <group> --help` without loading the program tree.
const { helpPages } = await import(pathToFileURL(join(dist, 'cli', 'program.js')).href);
writeFileSync(join(dist, 'help.json'), JSON.stringify(await helpPages()) + '\n');
writeFileSync(stamp, options);
// Dated from the start: a source saved during the build makes the next check rebuild.
utimesSync(stamp, started, started);
