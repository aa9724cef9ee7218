// The global flags, declared once: the program adds them to its root, and the
// command line is read with the same declarations before commander parses it
// (src/cli/program.ts: which groups to declare, whether errors are JSON).
import { InvalidArgumentError, Option } from 'commander';
import { completeWith } from './declare.js';
import { OUTPUT_FORMATS, isOutputFormat } from '../lib/output-format.js';

/** -o's value, in any case (`-o JSON`). */
function outputFormat(value: string): string {
  const format = value.toLowerCase();
  if (!isOutputFormat(format)) throw new InvalidArgumentError(`Allowed choices are ${OUTPUT_FORMATS.join(', ')}.`);
  return format;
}

/** The global flags, in help order (new options for each program). */
export function globalOptions(): Option[] {
  return [
    completeWith(new Option('--profile <name>', 'configuration profile (env AGCTL_PROFILE)'), { dynamic: 'profiles' }),
    new Option('--base-url <url>', 'service base URL (env AGCTL_BASE_URL)'),
    new Option('--client-id <id>', 'OAuth2 client ID (env AGCTL_CLIENT_ID)'),
    new Option('-o, --output <format>', 'output format (env AGCTL_OUTPUT)').choices(OUTPUT_FORMATS).argParser(outputFormat),
    new Option('--jq <expression>', 'filter JSON output with a jq expression; strings print raw (implies -o json)'),
    new Option('--no-input', 'never prompt; fail on missing input instead'),
    new Option('--no-color', 'disable colour (also NO_COLOR)'),
    new Option('--debug', 'log HTTP requests and responses to stderr, secrets redacted'),
    new Option('--timeout <seconds>', 'per-request timeout in seconds (default 30)'),
    new Option('--embedded', 'run against an embedded server started in this process (no tenant needed)'),
    new Option('--insecure-http', 'allow a plain client secret over http to another machine, warning each time (env AGCTL_INSECURE_HTTP)'),
  ];
}

/** A command line read before commander parses it. */
interface ReadLine {
  /** The words that are not flags or a global flag's value, up to `--`. */
  words: string[];
  /** Whether the line has a `--` (after which nothing is read). */
  dashes: boolean;
  /** The global flags that take a value given, by attribute name (`output`). */
  given: Set<string>;
  /** Their values, the last one winning. */
  values: Map<string, string>;
}

/** Reads `args` with the global flags' declarations: a value-taking flag's value (`--x v`, `--x=v`, `-ov`) is not a word. */
export function readLine(args: readonly string[]): ReadLine {
  const valued = globalOptions().filter((o) => o.required);
  const line: ReadLine = { words: [], dashes: false, given: new Set(), values: new Map() };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      line.dashes = true;
      break;
    }
    const exact = valued.find((o) => a === o.long || a === o.short);
    if (exact) {
      const value = args[++i];
      line.given.add(exact.attributeName());
      if (value !== undefined) line.values.set(exact.attributeName(), value);
      continue;
    }
    const joined = valued.find(
      (o) => a.startsWith(`${o.long}=`) || (o.short !== undefined && a.startsWith(o.short) && a[o.short.length] !== '-'),
    );
    if (joined) line.given.add(joined.attributeName());
    if (joined)
      line.values.set(
        joined.attributeName(),
        a.startsWith(`${joined.long}=`) ? a.slice(joined.long!.length + 1) : a.slice(joined.short!.length),
      );
    else if (!a.startsWith('-')) line.words.push(a);
  }
  return line;
}
