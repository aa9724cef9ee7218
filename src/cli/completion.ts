// Shell completion scripts generated from the commander program tree, so a new
// command or flag appears in completions without hand edits.
//
// What a flag's value completes to comes from its definition: commander's
// `.choices()` give the values; an argument named <path>, <file>, <dir> (also
// in <url|path> or <key=path>) completes file or directory names; other values
// complete nothing.
import type { Command, Option } from 'commander';

/** How the value of a flag or positional argument completes. */
export type ValueSpec =
  | { kind: 'choices'; choices: string[] }
  | { kind: 'file'; keyed: boolean } // keyed: the value is key=path, the path after the last '='
  | { kind: 'dir' }
  | { kind: 'none'; name: string };

export interface OptionInfo {
  flags: string[];
  description: string;
  takesValue: boolean;
  choices?: string[];
  /** How the value completes (only when takesValue). */
  value?: ValueSpec;
}

export interface Node {
  path: string[];
  subcommands: { name: string; description: string }[];
  options: OptionInfo[];
}

/** Flags whose value is a file name although their argument is not named <path>/<file>. */
const FILE_OPTIONS: Record<string, ValueSpec> = {
  '--out': { kind: 'file', keyed: false }, // webhook keygen --out <prefix>: a file name prefix
};

/** The argument name of an option's flags ("--data-file <path>" -> "path"). */
const argName = (o: Option) => /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1]?.replace(/\.\.\.$/, '') ?? 'value';

export function valueSpec(o: Option): ValueSpec {
  if (o.argChoices) return { kind: 'choices', choices: [...o.argChoices] };
  const explicit = o.long ? FILE_OPTIONS[o.long] : undefined;
  if (explicit) return explicit;
  const name = argName(o);
  for (const alt of name.split('|')) {
    const keyed = alt.includes('=');
    const last = alt.slice(alt.lastIndexOf('=') + 1);
    if (/^(dir|directory)$/.test(last)) return { kind: 'dir' };
    if (/^(path|file)$/.test(last)) return { kind: 'file', keyed };
  }
  return { kind: 'none', name };
}

function optionInfo(o: Option): OptionInfo {
  const flags = [o.long, o.short].filter((f): f is string => Boolean(f));
  const takesValue = Boolean(o.required || o.optional);
  return {
    flags,
    description: o.description ?? '',
    takesValue,
    ...(o.argChoices ? { choices: [...o.argChoices] } : {}),
    ...(takesValue ? { value: valueSpec(o) } : {}),
  };
}

export function collectTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const globals = program.options.filter((o) => !o.hidden).map(optionInfo);
  const visit = (cmd: Command, path: string[]) => {
    const own = path.length === 0 ? [] : cmd.options.filter((o) => !o.hidden).map(optionInfo);
    nodes.push({
      path,
      subcommands: cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map((c) => ({ name: c.name(), description: c.description() })),
      options: [...own, ...globals, { flags: ['--help', '-h'], description: 'show help', takesValue: false }],
    });
    for (const c of cmd.commands) visit(c, [...path, c.name()]);
  };
  visit(program, []);
  return nodes;
}

/**
 * Every flag that takes a value, with how its value completes. A flag means the
 * same everywhere in the tree (a unit test checks it), so one table serves
 * every command.
 */
export function valueFlags(nodes: Node[]): Map<string, ValueSpec> {
  const map = new Map<string, ValueSpec>();
  for (const n of nodes) for (const o of n.options) if (o.takesValue) for (const f of o.flags) if (!map.has(f)) map.set(f, o.value!);
  return map;
}

/** The flags of `map`, grouped by identical value spec (by `key`) for `case` branches. */
function groupBySpec(map: Map<string, ValueSpec>, key: (spec: ValueSpec) => string = (s) => JSON.stringify(s)): [ValueSpec, string[]][] {
  const groups = new Map<string, [ValueSpec, string[]]>();
  for (const [flag, spec] of map) {
    const k = key(spec);
    if (!groups.has(k)) groups.set(k, [spec, []]);
    groups.get(k)![1].push(flag);
  }
  return [...groups.values()];
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashScript(program: Command): string {
  const name = program.name();
  const nodes = collectTree(program);
  const values = valueFlags(nodes);
  const caseLine = (n: Node, body: string) => `    ${q(n.path.join(' '))}) ${body} ;;`;
  const subs = nodes.filter((n) => n.subcommands.length).map((n) => caseLine(n, `subs=${q(n.subcommands.map((s) => s.name).join(' '))}`));
  const flags = nodes.map((n) => caseLine(n, `flags=${q(n.options.flatMap((o) => o.flags).join(' '))}`));
  const valueCases = groupBySpec(values, (s) => (s.kind === 'none' ? 'none' : JSON.stringify(s))).map(([spec, fl]) => {
    const body =
      spec.kind === 'choices'
        ? `COMPREPLY=( $(compgen -W ${q(spec.choices.join(' '))} -- "$2") )`
        : spec.kind === 'file'
          ? 'compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$2") )'
          : spec.kind === 'dir'
            ? 'compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -d -- "$2") )'
            : 'compopt +o default 2>/dev/null; COMPREPLY=()';
    return `    ${fl.join('|')}) ${body} ;;`;
  });
  return `# bash completion for ${name} (generated by \`${name} completion bash\`; do not edit)
_${name}_subs() { # the subcommands of command path $1
  case "$1" in
${subs.join('\n')}
    *) subs='' ;;
  esac
}
_${name}_flags() { # the flags of command path $1
  case "$1" in
${flags.join('\n')}
    *) flags='' ;;
  esac
}
_${name}_takes_value() {
  case " ${[...values.keys()].join(' ')} " in
    *" $1 "*) return 0 ;;
  esac
  return 1
}
_${name}_value() { # completes value $2 of flag $1; fails when $1 takes no value
  case "$1" in
${valueCases.join('\n')}
    *) return 1 ;;
  esac
  return 0
}
_${name}() {
  local cur flag value e i w cmdpath='' subs flags words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  # the value of a flag: --flag value, --flag=value, --flag key=value (bash splits words at '=')
  e=$((COMP_CWORD - 1)) value=$cur
  if [[ $cur == = ]]; then e=$COMP_CWORD value=''; fi
  if [[ \${COMP_WORDS[e]} == = ]] && (( e >= 2 )); then
    flag="\${COMP_WORDS[e-1]}"
    [[ $flag == -* ]] || flag="\${COMP_WORDS[e-2]}"
  else
    flag="\${COMP_WORDS[e]}"
  fi
  if [[ $flag == -* ]] && _${name}_value "$flag" "$value"; then return 0; fi
  # the command path (flag values skipped)
  for (( i=1; i<COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    if [[ $w == = ]]; then i=$((i + 1)); continue; fi
    if [[ $w == -* ]]; then
      if [[ \${COMP_WORDS[i+1]} != = ]] && _${name}_takes_value "$w"; then i=$((i + 1)); fi
      continue
    fi
    _${name}_subs "$cmdpath"
    if [[ " $subs " == *" $w "* ]]; then cmdpath="\${cmdpath:+$cmdpath }$w"; fi
  done
  _${name}_flags "$cmdpath"
  _${name}_subs "$cmdpath"
  words="$subs $flags"
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _${name} ${name}
`;
}

export function zshScript(program: Command): string {
  const name = program.name();
  const nodes = collectTree(program);
  const values = valueFlags(nodes);
  const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/:/g, '\\:');
  const item = (n: string, d: string) => q(`${esc(n)}:${esc(d)}`);
  const caseLine = (n: Node, body: string) => `    (${q(n.path.join(' '))}) ${body} ;;`;
  const subs = nodes
    .filter((n) => n.subcommands.length)
    .map((n) => caseLine(n, `subs=(${n.subcommands.map((s) => q(s.name)).join(' ')}); descs=(${n.subcommands.map((s) => item(s.name, s.description)).join(' ')})`));
  const flags = nodes.map((n) => caseLine(n, `flags=(${n.options.flatMap((o) => o.flags.map((f) => item(f, o.description))).join(' ')})`));
  const valueCases = groupBySpec(values).map(([spec, fl]) => {
    const body =
      spec.kind === 'choices'
        ? `vals=(${spec.choices.map(q).join(' ')}); _describe -t values 'value' vals`
        : spec.kind === 'file'
          ? spec.keyed
            ? "compset -P '*='; _files"
            : '_files'
          : spec.kind === 'dir'
            ? '_files -/'
            : `_message -e values ${q(spec.name)}`;
    return `    (${fl.join('|')}) ${body} ;;`;
  });
  return `#compdef ${name}
# zsh completion for ${name} (generated by \`${name} completion zsh\`; do not edit)
_${name}_subs() { # the subcommands of command path $1: names and name:description
  case "$1" in
${subs.join('\n')}
    (*) subs=(); descs=() ;;
  esac
}
_${name}_flags() { # the flags of command path $1, as flag:description
  case "$1" in
${flags.join('\n')}
    (*) flags=() ;;
  esac
}
_${name}_takes_value() {
  case "$1" in
    (${[...values.keys()].join('|')}) return 0 ;;
  esac
  return 1
}
_${name}_value() { # completes the value of flag $1
  local -a vals
  case "$1" in
${valueCases.join('\n')}
  esac
}
_${name}() {
  # (no local named path: in zsh it is tied to PATH)
  local cmdpath='' w cur="\${words[CURRENT]}" ret=1
  local -i i
  local -a subs descs flags
  # the value of a flag: --flag value, --flag=value
  if [[ $cur == -*=* ]] && _${name}_takes_value "\${cur%%=*}"; then
    compset -P '*='
    _${name}_value "\${cur%%=*}"
    return
  fi
  if (( CURRENT > 2 )) && [[ \${words[CURRENT-1]} == -* ]] && _${name}_takes_value "\${words[CURRENT-1]}"; then
    _${name}_value "\${words[CURRENT-1]}"
    return
  fi
  # the command path (flag values skipped)
  for (( i=2; i<CURRENT; i++ )); do
    w="\${words[i]}"
    if [[ $w == -* ]]; then
      [[ $w != *=* ]] && _${name}_takes_value "$w" && (( i++ ))
      continue
    fi
    _${name}_subs "$cmdpath"
    if (( \${subs[(Ie)$w]} )); then cmdpath="\${cmdpath:+$cmdpath }$w"; fi
  done
  _${name}_flags "$cmdpath"
  _${name}_subs "$cmdpath"
  _describe -t commands 'command' descs && ret=0
  _describe -t options 'option' flags && ret=0
  return ret
}
# autoloaded from $fpath (a file named _${name}): complete now; sourced: register
if [[ \${funcstack[1]} == _${name} ]]; then
  _${name} "$@"
else
  compdef _${name} ${name}
fi
`;
}

export function fishScript(program: Command): string {
  const name = program.name();
  const nodes = collectTree(program);
  const values = valueFlags(nodes);
  const lines = [
    `# fish completion for ${name} (generated by \`${name} completion fish\`; do not edit)`,
    `function __${name}_subs --description 'the subcommands of a command path'`,
    `    switch "$argv[1]"`,
    ...nodes.filter((n) => n.subcommands.length).map((n) => `        case ${q(n.path.join(' '))}\n            printf '%s\\n' ${n.subcommands.map((s) => q(s.name)).join(' ')}`),
    `    end`,
    `end`,
    `# prints the command path (flag values skipped)`,
    `function __${name}_path`,
    `    set -l tokens (commandline -opc)`,
    `    set -l path ''`,
    `    set -l skip 0`,
    `    for t in $tokens[2..-1]`,
    `        if test $skip = 1; set skip 0; continue; end`,
    `        if string match -q -- '-*' $t`,
    `            if not string match -q -- '*=*' $t; and contains -- $t ${[...values.keys()].map(q).join(' ')}; set skip 1; end`,
    `            continue`,
    `        end`,
    `        if contains -- $t (__${name}_subs "$path"); set path (string trim -- "$path $t"); end`,
    `    end`,
    `    echo $path`,
    `end`,
    `complete -c ${name} -f`,
  ];
  for (const n of nodes) {
    const cond = `test (__${name}_path) = ${q(n.path.join(' '))}`;
    for (const s of n.subcommands) lines.push(`complete -c ${name} -n ${q(cond)} -a ${q(s.name)} -d ${q(s.description)}`);
    for (const o of n.options) {
      const long = o.flags.find((f) => f.startsWith('--'))?.slice(2);
      const short = o.flags.find((f) => /^-[^-]$/.test(f))?.slice(1);
      const parts = [`complete -c ${name} -n ${q(cond)}`];
      if (long) parts.push(`-l ${long}`);
      if (short) parts.push(`-s ${short}`);
      const v = o.value;
      if (v?.kind === 'choices') parts.push(`-x -a ${q(v.choices.join(' '))}`);
      else if (v?.kind === 'file') parts.push('-r -F');
      else if (v?.kind === 'dir') parts.push(`-x -a ${q('(__fish_complete_directories)')}`);
      else if (v) parts.push('-x');
      parts.push(`-d ${q(o.description)}`);
      lines.push(parts.join(' '));
    }
  }
  return lines.join('\n') + '\n';
}

export const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;
export type Shell = keyof typeof SHELLS;
