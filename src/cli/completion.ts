// Shell completion scripts generated from the commander program tree, so a new
// command or flag appears in completions without hand edits.
//
// What a flag's value completes to comes from its declaration: commander's
// `.choices()` give the values, `completeWith()` (src/cli/declare.ts) values or
// file names the flag's name does not tell; otherwise an argument named <path>,
// <file>, <dir> (also in <url|path> or <key=path>) completes file or directory
// names, and other values complete nothing. Positional arguments complete their
// `.choices()` or `completeWith()` values, and for `help` the help topics and
// command names.
//
// Values only the program knows at completion time (profile names, the IDs a
// list route gives) are asked of `agctl __complete -- <words>` by the scripts
// (the cobra and gh model): the declarations say where, with
// `completeWith(item, { dynamic: source })`.
// Command names, flags and fixed values stay in the generated script: asking
// the program would start node on every TAB (0.1 to 0.3 s).
import type { Argument, Command, Option } from 'commander';
import { HELP_TOPICS } from './commands/help/command.js';
import type { ShellName } from './commands/completion/command.js';
import { COMPLETE_COMMAND } from './commands/__complete/command.js';
import { declaredCompletion, type DynamicSource, type ValueSpec } from './declare.js';

/** How a value completes (the declarations say it, see completeWith). */
export type Spec = ValueSpec;

interface OptionInfo {
  flags: string[];
  description: string;
  takesValue: boolean;
  choices?: string[];
  /** How the value completes (only when takesValue). */
  value?: Spec;
}

export interface Node {
  path: string[];
  subcommands: { name: string; description: string }[];
  options: OptionInfo[];
  /** Values of the positional arguments, in order (`dynamic`: asked of the program); `rest` when the last one is variadic. */
  args: { values: string[]; rest: boolean; dynamic?: DynamicSource }[];
}

/** The argument name of an option's flags ("--data-file <path>" -> "path"). */
const argName = (o: Option) => /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1]?.replace(/\.\.\.$/, '') ?? 'value';

function valueSpec(o: Option): Spec {
  const declared = declaredCompletion(o);
  if (declared?.kind === 'dynamic') return declared;
  if (o.argChoices) return { kind: 'choices', choices: [...o.argChoices] };
  if (declared) return declared;
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

function argValues(cmd: Command): Node['args'] {
  return cmd.registeredArguments.map((a: Argument) => {
    const declared = declaredCompletion(a);
    const values = a.argChoices ? [...a.argChoices] : declared?.kind === 'choices' ? declared.choices : [];
    return { values, rest: a.variadic, ...(declared?.kind === 'dynamic' ? { dynamic: declared.source } : {}) };
  });
}

const isHidden = (c: Command) => Boolean((c as unknown as { _hidden?: boolean })._hidden);

export function collectTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const globals = program.options.filter((o) => !o.hidden).map(optionInfo);
  const visit = (cmd: Command, path: string[]) => {
    const own = path.length === 0 ? [] : cmd.options.filter((o) => !o.hidden).map(optionInfo);
    nodes.push({
      path,
      subcommands: cmd.commands.filter((c) => !isHidden(c)).map((c) => ({ name: c.name(), description: c.description() })),
      options: [...own, ...globals, { flags: ['--help', '-h'], description: 'show help', takesValue: false }],
      args: argValues(cmd),
    });
    for (const c of cmd.commands) if (!isHidden(c)) visit(c, [...path, c.name()]);
  };
  visit(program, []);
  return nodes;
}

/**
 * Every flag that takes a value, with how its value completes. A flag means the
 * same everywhere in the tree (a unit test checks it), so one table serves
 * every command.
 */
export function valueFlags(nodes: Node[]): Map<string, Spec> {
  const map = new Map<string, Spec>();
  for (const n of nodes) for (const o of n.options) if (o.takesValue) for (const f of o.flags) if (!map.has(f)) map.set(f, o.value!);
  return map;
}

/** The flags of `map`, grouped by identical value spec (by `key`) for `case` branches. */
function groupBySpec(map: Map<string, Spec>, key: (spec: Spec) => string = (s) => JSON.stringify(s)): [Spec, string[]][] {
  const groups = new Map<string, [Spec, string[]]>();
  for (const [flag, spec] of map) {
    const k = key(spec);
    if (!groups.has(k)) groups.set(k, [spec, []]);
    groups.get(k)![1].push(flag);
  }
  return [...groups.values()];
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Shell tests of the positional index `$2` for a node's arguments: each
 * assigns the argument's values (or asks the program) and returns 0; past
 * the last argument, 1 (no positional argument is expected there).
 */
function argTests(n: Node, assign: (values: string[]) => string, dynamic: string): string | undefined {
  if (!n.args.length) return undefined;
  const tests = n.args.map((a, i) => {
    const action = a.dynamic ? dynamic : a.values.length ? assign(a.values) : ':';
    return `(( $2 ${a.rest ? '>=' : '=='} ${i} )) && { ${action}; return 0; }`;
  });
  return [...tests, 'return 1'].join('; ');
}

const HELP_WORDS = HELP_TOPICS.map(([t]) => t);

function bashScript(program: Command): string {
  const name = program.name();
  const nodes = collectTree(program);
  const values = valueFlags(nodes);
  const caseLine = (n: Node, body: string) => `    ${q(n.path.join(' '))}) ${body} ;;`;
  const subs = nodes.filter((n) => n.subcommands.length).map((n) => caseLine(n, `subs=${q(n.subcommands.map((s) => s.name).join(' '))}`));
  const flags = nodes.map((n) => caseLine(n, `flags=${q(n.options.flatMap((o) => o.flags).join(' '))}`));
  const args = nodes.flatMap((n) => {
    const t = argTests(n, (v) => `args=${q(v.join(' '))}`, `[[ $cur == -* ]] || _${name}_dynamic "$cur"`);
    return t ? [caseLine(n, t)] : [];
  });
  const valueCases = groupBySpec(values, (s) => (s.kind === 'none' ? 'none' : JSON.stringify(s))).map(([spec, fl]) => {
    const body =
      spec.kind === 'choices'
        ? `COMPREPLY=( $(compgen -W ${q(spec.choices.join(' '))} -- "$2") )`
        : spec.kind === 'file'
          ? 'compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$2") )'
          : spec.kind === 'dir'
            ? 'compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -d -- "$2") )'
            : spec.kind === 'dynamic'
              ? `compopt +o default 2>/dev/null; _${name}_dynamic "$2"; COMPREPLY=( "\${dyn[@]}" )`
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
_${name}_args() { # the values of positional argument $2 (from 0) of command path $1; fails when none is expected there
  args=''
  case "$1" in
${args.join('\n')}
  esac
  return 1
}
# $1 as the word it stands for, into dq: quotes and backslashes taken off as bash takes them
# off, nothing expanded (a word with $ or a backquote outside single quotes stays as typed).
# A word with no quote nor backslash, or longer than 1024 characters, stays as typed: bash
# takes one character off a word in time that grows with its length (a pasted body of
# 100,000 characters read one by one would keep TAB busy for a minute).
_${name}_dequote() {
  local w=$1 c n q='' i
  dq=$w
  [[ $w == *[\\"\\'\\\\]* ]] && (( \${#w} <= 1024 )) || return 0
  dq=''
  for (( i=0; i<\${#w}; i++ )); do
    c=\${w:i:1}
    if [[ $q == "'" ]]; then
      if [[ $c == "'" ]]; then q=''; else dq+=$c; fi
    elif [[ $c == '$' || $c == '\`' ]]; then
      dq=$w; return
    elif [[ $c == '\\' ]]; then
      n=\${w:i+1:1}
      if [[ -z $q || $n == [\\"\\\\\\$\\\`] ]]; then dq+=$n; i=$((i + 1)); else dq+=$c; fi
    elif [[ $c == '"' ]]; then
      if [[ $q == '"' ]]; then q=''; else q='"'; fi
    elif [[ $c == "'" && -z $q ]]; then
      q="'"
    else
      dq+=$c
    fi
  done
}
# The values \`${name} ${COMPLETE_COMMAND}\` offers for the word at the cursor ($1, as typed), into the
# array dyn, each quoted for the command line (printf %q) and kept when $1 begins it or its
# quoted form: a literal comparison, never compgen -W, which would expand a value ($(...),
# backquotes, $VAR) as shell code. Nothing when the program fails.
_${name}_dynamic() {
  local i w glue=0 out value rest quoted dq prefix
  local -a line=()
  dyn=()
  # the words up to the cursor as the program gets them (unquoted): bash splits --flag=value
  # and key=value at '='; the word at the cursor is compared here, not there
  for (( i=1; i<=COMP_CWORD; i++ )); do
    # (a quoted or escaped '=' is a word of its own)
    if [[ \${COMP_WORDS[i]} == = ]]; then
      if (( \${#line[@]} )) && [[ \${line[\${#line[@]}-1]} != -* ]]; then line[\${#line[@]}-1]+='='; glue=1; fi
      if (( i == COMP_CWORD && ! glue )); then line+=(''); fi
      continue
    fi
    _${name}_dequote "\${COMP_WORDS[i]}"; w=$dq
    (( i == COMP_CWORD )) && w=''
    if (( glue )); then line[\${#line[@]}-1]+=$w; glue=0; else line+=("$w"); fi
  done
  out=$("\${COMP_WORDS[0]}" ${COMPLETE_COMMAND} -- "\${line[@]}" 2>/dev/null </dev/null)
  _${name}_dequote "$1"; prefix=$dq
  while IFS=$'\t' read -r value rest; do
    [[ -z $value || $value == :* ]] && continue
    printf -v quoted %q "$value"
    if [[ $value == "$prefix"* || $quoted == "$1"* ]]; then dyn+=("$quoted"); fi
  done <<< "$out"
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
  local cur flag value e i w cmdpath='' hpath='' npos=0 subs flags args words
  local -a dyn=()
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
  # the command path, and how many positional arguments follow it; after
  # \`help\`, the command path named as its topic (hpath)
  for (( i=1; i<COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    if [[ $w == = ]]; then i=$((i + 1)); continue; fi
    if [[ $w == -* ]]; then
      if [[ \${COMP_WORDS[i+1]} != = ]] && _${name}_takes_value "$w"; then i=$((i + 1)); fi
      continue
    fi
    if [[ $cmdpath == help ]]; then
      _${name}_subs "$hpath"
      if (( npos == 0 )) && [[ " $subs " == *" $w "* ]]; then hpath="\${hpath:+$hpath }$w"; else npos=$((npos + 1)); fi
    else
      _${name}_subs "$cmdpath"
      if (( npos == 0 )) && [[ " $subs " == *" $w "* ]]; then cmdpath="\${cmdpath:+$cmdpath }$w"; else npos=$((npos + 1)); fi
    fi
  done
  _${name}_flags "$cmdpath"
  if [[ $cmdpath == help ]]; then
    subs='' args=''
    if (( npos == 0 )); then
      _${name}_subs "$hpath"
      [[ -z $hpath ]] && args=${q(HELP_WORDS.join(' '))}
    fi
  else
    _${name}_subs "$cmdpath"
    # where a positional argument is expected, flags only after a '-', and no file names
    if _${name}_args "$cmdpath" "$npos" && [[ $cur != -* ]]; then
      flags=''
      compopt +o default 2>/dev/null
    fi
  fi
  # commands first, as gh: where there are commands or values to offer, flags only after a '-'
  if [[ $cur != -* && -n "$subs$args" ]]; then flags=''; fi
  words="$subs $args $flags"
  # the fixed words (no value from the program among them), then the program's values as they are
  COMPREPLY=( $(compgen -W "$words" -- "$cur") "\${dyn[@]}" )
}
complete -o default -F _${name} ${name}
`;
}

function zshScript(program: Command): string {
  const name = program.name();
  const nodes = collectTree(program);
  const values = valueFlags(nodes);
  const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/:/g, '\\:');
  const item = (n: string, d: string) => q(`${esc(n)}:${esc(d)}`);
  const caseLine = (n: Node, body: string) => `    (${q(n.path.join(' '))}) ${body} ;;`;
  const subs = nodes
    .filter((n) => n.subcommands.length)
    .map((n) =>
      caseLine(
        n,
        `subs=(${n.subcommands.map((s) => q(s.name)).join(' ')}); descs=(${n.subcommands.map((s) => item(s.name, s.description)).join(' ')})`,
      ),
    );
  const flags = nodes.map((n) => caseLine(n, `flags=(${n.options.flatMap((o) => o.flags.map((f) => item(f, o.description))).join(' ')})`));
  const args = nodes.flatMap((n) => {
    const t = argTests(n, (v) => `args=(${v.map(q).join(' ')})`, `[[ $cur == -* ]] || _${name}_dynamic`);
    return t ? [caseLine(n, t)] : [];
  });
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
            : spec.kind === 'dynamic'
              ? `_${name}_dynamic; _describe -t values 'value' args`
              : `_message -e values ${q(spec.name)}`;
    return `    (${fl.join('|')}) ${body} ;;`;
  });
  const topics = HELP_TOPICS.map(([t, d]) => item(t, d)).join(' ');
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
_${name}_args() { # the values of positional argument $2 (from 0) of command path $1; fails when none is expected there
  args=()
  case "$1" in
${args.join('\n')}
  esac
  return 1
}
# The values \`${name} ${COMPLETE_COMMAND}\` offers at the cursor, into args as value:description for
# _describe (a backslash and a colon in a value escaped), whose compadd quotes what it inserts.
# The words are passed unquoted ((Q): as the command will read them), never evaluated.
# Nothing when the program fails.
_${name}_dynamic() {
  local line value
  args=()
  for line in "\${(@f)$("\${words[1]}" ${COMPLETE_COMMAND} -- "\${(@Q)words[2,CURRENT]}" 2>/dev/null </dev/null)}"; do
    [[ -z $line || $line == :* ]] && continue
    value=\${line%%$'\t'*}
    value=\${\${value//\\\\/\\\\\\\\}//:/\\\\:}
    if [[ $line == *$'\t'* ]]; then args+=("$value:\${line#*$'\t'}"); else args+=("$value"); fi
  done
}
_${name}_takes_value() {
  case "$1" in
    (${[...values.keys()].join('|')}) return 0 ;;
  esac
  return 1
}
_${name}_value() { # completes the value of flag $1
  local -a vals args
  case "$1" in
${valueCases.join('\n')}
  esac
}
_${name}() {
  # (no local named path: in zsh it is tied to PATH)
  local cmdpath='' hpath='' w cur="\${words[CURRENT]}" ret=1
  local -i i npos=0
  local -a subs descs flags args
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
  # the command path, and how many positional arguments follow it; after
  # \`help\`, the command path named as its topic (hpath)
  for (( i=2; i<CURRENT; i++ )); do
    w="\${words[i]}"
    if [[ $w == -* ]]; then
      [[ $w != *=* ]] && _${name}_takes_value "$w" && (( i++ ))
      continue
    fi
    if [[ $cmdpath == help ]]; then
      _${name}_subs "$hpath"
      if (( npos == 0 && \${subs[(Ie)$w]} )); then hpath="\${hpath:+$hpath }$w"; else (( npos++ )); fi
    else
      _${name}_subs "$cmdpath"
      if (( npos == 0 && \${subs[(Ie)$w]} )); then cmdpath="\${cmdpath:+$cmdpath }$w"; else (( npos++ )); fi
    fi
  done
  _${name}_flags "$cmdpath"
  if [[ $cmdpath == help ]]; then
    subs=() descs=()
    if (( npos == 0 )); then
      _${name}_subs "$hpath"
      [[ -z $hpath ]] && args=(${topics})
    fi
  else
    _${name}_subs "$cmdpath"
    # where a positional argument is expected, flags only after a '-'
    _${name}_args "$cmdpath" "$npos" && [[ $cur != -* ]] && flags=()
  fi
  # commands first, as gh: where there are commands or values to offer, flags only after a '-'
  if [[ $cur != -* ]] && (( $#descs + $#args )); then flags=(); fi
  _describe -t commands 'command' descs && ret=0
  _describe -t values 'argument' args && ret=0
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

function fishScript(program: Command): string {
  const name = program.name();
  const nodes = collectTree(program);
  const values = valueFlags(nodes);
  const lines = [
    `# fish completion for ${name} (generated by \`${name} completion fish\`; do not edit)`,
    `function __${name}_subs --description 'the subcommands of a command path'`,
    `    switch "$argv[1]"`,
    ...nodes
      .filter((n) => n.subcommands.length)
      .map((n) => `        case ${q(n.path.join(' '))}\n            printf '%s\\n' ${n.subcommands.map((s) => q(s.name)).join(' ')}`),
    `    end`,
    `end`,
    `# prints the command path; with --npos, how many positional arguments follow it;`,
    `# with --help-path, the command path after \`help\` (! when not completing help)`,
    `function __${name}_path`,
    `    set -l tokens (commandline -opc)`,
    `    set -l path ''`,
    `    set -l hpath ''`,
    `    set -l npos 0`,
    `    set -l skip 0`,
    `    for t in $tokens[2..-1]`,
    `        if test $skip = 1; set skip 0; continue; end`,
    `        if string match -q -- '-*' $t`,
    `            if not string match -q -- '*=*' $t; and contains -- $t ${[...values.keys()].map(q).join(' ')}; set skip 1; end`,
    `            continue`,
    `        end`,
    `        if test "$path" = help`,
    `            if test $npos = 0; and contains -- $t (__${name}_subs "$hpath"); set hpath (string trim -- "$hpath $t"); else; set npos (math $npos + 1); end`,
    `        else if test $npos = 0; and contains -- $t (__${name}_subs "$path")`,
    `            set path (string trim -- "$path $t")`,
    `        else`,
    `            set npos (math $npos + 1)`,
    `        end`,
    `    end`,
    `    switch "$argv[1]"`,
    `        case --npos; echo $npos`,
    `        case --help-path; if test "$path" = help; and test $npos = 0; echo $hpath; else; echo '!'; end`,
    `        case '*'; echo $path`,
    `    end`,
    `end`,
    `# the values ${name} ${COMPLETE_COMMAND} offers at the cursor, as fish takes them: one a line, a value`,
    `# (fish escapes it as it inserts it) and its description; the words before the cursor`,
    `# unquoted (-o), never evaluated; fish matches the word at the cursor itself (as typed`,
    `# it may be quoted), so only a --flag= it begins with is passed`,
    `function __${name}_dynamic`,
    `    set -l tokens (commandline -opc)`,
    `    type -q -- $tokens[1]; or return`,
    `    $tokens[1] ${COMPLETE_COMMAND} -- $tokens[2..-1] (commandline -ct | string replace -r -- '^(-[^=]*=)?.*' '$1') 2>/dev/null </dev/null | string match -v -- ':*'`,
    `end`,
    `complete -c ${name} -f`,
  ];
  for (const n of nodes) {
    const cond = `test (__${name}_path) = ${q(n.path.join(' '))}`;
    for (const s of n.subcommands) lines.push(`complete -c ${name} -n ${q(cond)} -a ${q(s.name)} -d ${q(s.description)}`);
    n.args.forEach((a, i) => {
      if (!a.values.length && !a.dynamic) return;
      const c = `${cond}; and test (__${name}_path --npos) ${a.rest ? '-ge' : '-eq'} ${i}`;
      lines.push(`complete -c ${name} -n ${q(c)} -a ${q(a.dynamic ? `(__${name}_dynamic)` : a.values.join(' '))}`);
    });
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
      else if (v?.kind === 'dynamic') parts.push(`-x -a ${q(`(__${name}_dynamic)`)}`);
      else if (v) parts.push('-x');
      parts.push(`-d ${q(o.description)}`);
      lines.push(parts.join(' '));
    }
  }
  // `help <TAB>`: the topics and the command names, level by level
  const helpCond = (p: string[]) => q(`test (__${name}_path --help-path) = ${q(p.join(' '))}`);
  for (const [t, d] of HELP_TOPICS) lines.push(`complete -c ${name} -n ${helpCond([])} -a ${q(t)} -d ${q(d)}`);
  for (const n of nodes)
    for (const s of n.subcommands) lines.push(`complete -c ${name} -n ${helpCond(n.path)} -a ${q(s.name)} -d ${q(s.description)}`);
  return lines.join('\n') + '\n';
}

export const SHELLS: Record<ShellName, (program: Command) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };
