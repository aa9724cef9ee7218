// Entry point: fast paths first (so `agctl --version` loads nothing), then the
// commander program tree, whose actions import their command modules lazily.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(version() + '\n');
    return;
  }
  // undici parses HTTP with a WebAssembly build of llhttp. V8 optimises that
  // module on background threads and process exit waits for them: ~45 ms of
  // every short command. The baseline compiler alone is plenty for a CLI.
  setFlagsFromString('--liftoff-only');
  const { buildProgram } = await import('./program.js');
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const { handleTopLevelError } = await import('./run.js');
    handleTopLevelError(err, args);
  }
}
