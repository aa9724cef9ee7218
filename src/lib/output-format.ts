// The output formats, declared once: -o's choices, AGCTL_OUTPUT and a
// profile's `output` are read against this list.

/**
 * `table`: columns fitted to the terminal; `wide`: every column, nothing cut;
 * `json`: the service's answer as received; `yaml`: the same document as YAML.
 */
export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const isOutputFormat = (s: string): s is OutputFormat => (OUTPUT_FORMATS as readonly string[]).includes(s);
