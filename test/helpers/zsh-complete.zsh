#!/usr/bin/env zsh
# Real zsh completion, for tests: types a command line and a TAB into an
# interactive zsh (in a pseudo-terminal, zsh/zpty) with compinit loaded, and
# prints every match the completion system adds, one a line ("MATCH:<word>"),
# plus "PATH:<$PATH>" as seen inside the completion function.
#
# usage: zsh -f zsh-complete.zsh source|fpath <completion script> <command line>
#   source: the script is sourced (as with `source <(agctl completion zsh)`)
#   fpath:  the script is installed as _agctl in a directory on $fpath and
#           autoloaded by compinit (as the README installs it)
# With AGCTL_TEST_ZCOMPDUMP set, compinit keeps its dump there (one per mode),
# as it does in ~/.zcompdump for a user: the runs after the first skip reading
# every completion function on $fpath (most of a run's time).
zmodload zsh/zpty || { print -u2 'zsh-complete: zsh/zpty is missing'; exit 3 }
mode=$1 file=$2 cmdline=$3
tmp=$(mktemp -d)
export __dump=${AGCTL_TEST_ZCOMPDUMP:+$AGCTL_TEST_ZCOMPDUMP.$mode}
cat > $tmp/init.zsh <<'INIT'
PROMPT= RPROMPT= PS2=
unsetopt zle_bracketed_paste 2>/dev/null
autoload -Uz compinit && if [[ -n $__dump ]]; then compinit -u -d $__dump; else compinit -u -D; fi
bindkey '^M' undefined-key; bindkey '^J' undefined-key
bindkey '^I' complete-word
zstyle ':completion:*' insert-tab false
__cap_mark() { print -r -- '<<<MARK>>>' }
compprefuncs=(__cap_mark)
comppostfuncs=(__cap_mark exit)
# compadd records what it adds (calls that only compute matches, -O/-A/-D, pass through)
compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
  local -a __hits
  builtin compadd -A __hits "$@"
  print -r -- "PATH:$PATH"
  local h; for h in $__hits; do print -r -- "MATCH:$IPREFIX$h"; done
  builtin compadd "$@"
}
print -r -- READY
INIT
if [[ $mode == fpath ]]; then
  mkdir $tmp/fn && cp $file $tmp/fn/_agctl
  zpty z zsh -f -i
  zpty -w z "fpath=(${(q)tmp}/fn \$fpath); source ${(q)tmp}/init.zsh"
else
  zpty z zsh -f -i
  zpty -w z "source ${(q)tmp}/init.zsh; source ${(q)file}"
fi
local line
repeat 50; do zpty -r z line || break; [[ $line == READY* ]] && break; done
zpty -w -n z "$cmdline"$'\t'
local -i marks=0
while zpty -r z line; do
  line=${line//$'\r'/}; line=${line%$'\n'}
  if [[ $line == *'<<<MARK>>>'* ]]; then (( ++marks == 2 )) && break; continue; fi
  (( marks == 1 )) && [[ $line == *(MATCH|PATH):* ]] && print -r -- ${(M)line%%(MATCH|PATH):*}
done
zpty -d z
rm -rf $tmp
(( marks == 2 )) || { print -u2 'zsh-complete: no completion ran'; exit 4 }
