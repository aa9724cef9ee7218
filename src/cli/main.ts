// Entry point: fast paths first (so `agctl --version` loads nothing), then the
// commander program tree, whose actions import their command modules lazily.
import { readFileSync } from 'node:fs';

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
  const { buildProgram } = await import('./program.js');
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const { handleTopLevelError } = await import('./run.js');
    handleTopLevelError(err, args);
  }
}
