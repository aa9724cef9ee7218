#!/usr/bin/env zsh
# Real zsh completion, for tests: types command lines and a TAB into an
# interactive zsh (in a pseudo-terminal, zsh/zpty) with compinit loaded, and
# prints every match the completion system adds, one a line ("MATCH:<word>"),
# plus "PATH:<$PATH>" as seen inside the completion function.
#
# usage: zsh -f zsh-complete.zsh <completion script>
# then, on stdin, one case a line: <mode> TAB <PATH> TAB <command line>
#   mode source: the script is sourced (as with `source <(agctl completion zsh)`)
#   mode fpath:  the script is installed as _agctl in a directory on $fpath and
#                autoloaded by compinit (as the README installs it)
#   mode insert: sourced, and the TAB inserts what it completes (a single match,
#                or the common part of several): the answer also has a line
#                "BUFFER:<the command line after the TAB>"
#   PATH:        the interactive zsh's $PATH
# Each case's answer ends with a line "<<<END>>>". The cases of one mode and
# PATH are typed into one interactive zsh, one after the other (the line is
# cleared with ^U between them). compinit keeps a dump per mode, as it does in
# ~/.zcompdump for a user: the shells after the first of a mode skip reading
# every completion function on $fpath (most of a shell's start).
zmodload zsh/zpty || { print -u2 'zsh-complete: zsh/zpty is missing'; exit 3 }
file=$1
tmp=$(mktemp -d)
trap 'zpty -d; rm -rf $tmp' EXIT
cat > $tmp/init.zsh <<'INIT'
PROMPT= RPROMPT= PS2=
unsetopt zle_bracketed_paste 2>/dev/null
autoload -Uz compinit && compinit -u -d $__dump
bindkey '^M' undefined-key; bindkey '^J' undefined-key
bindkey '^I' complete-word
bindkey '^U' kill-whole-line
__cap_buffer() { print -r -- "BUFFER:$BUFFER"; print -r -- '<<<BUFFER>>>' }
zle -N __cap_buffer && bindkey '^B' __cap_buffer
zstyle ':completion:*' insert-tab false
# compsys runs these once per completion: the last one sets them again for the
# next, and lists nothing, nor inserts anything but in mode insert (the line is
# cleared after it)
__cap_mark() { print -r -- '<<<MARK>>>' }
__cap_done() {
  (( __insert )) || compstate[insert]=
  compstate[list]=
  __cap_mark
  compprefuncs=(__cap_mark) comppostfuncs=(__cap_done)
}
compprefuncs=(__cap_mark) comppostfuncs=(__cap_done)
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
mkdir $tmp/fn && cp $file $tmp/fn/_agctl
typeset -A sessions # "mode PATH" -> zpty session name
local mode dirs cmdline key s line insert
while IFS=$'\t' read -r mode dirs cmdline; do
  key="$mode $dirs" s=${sessions[$key]}
  if [[ -z $s ]]; then
    s=z$#sessions; sessions[$key]=$s
    zpty $s "PATH=${(q)dirs} zsh -f -i"
    if [[ $mode == fpath ]]; then
      zpty -w $s "__dump=${(q)tmp}/zcompdump.$mode; fpath=(${(q)tmp}/fn \$fpath); source ${(q)tmp}/init.zsh"
    else
      [[ $mode == insert ]] && insert=1 || insert=0
      zpty -w $s "__insert=$insert; __dump=${(q)tmp}/zcompdump.$mode; source ${(q)tmp}/init.zsh; source ${(q)file}"
    fi
    repeat 50; do zpty -r $s line || break; [[ $line == READY* ]] && break; done
  fi
  zpty -w -n $s $'\C-u'"$cmdline"$'\t'
  integer marks=0
  while zpty -r $s line; do
    line=${line//$'\r'/}; line=${line%$'\n'}
    if [[ $line == *'<<<MARK>>>'* ]]; then (( ++marks == 2 )) && break; continue; fi
    (( marks == 1 )) && [[ $line == *(MATCH|PATH):* ]] && print -r -- ${(M)line%%(MATCH|PATH):*}
  done
  (( marks == 2 )) || { print -u2 "zsh-complete: no completion ran for: $cmdline"; exit 4 }
  if [[ $mode == insert ]]; then
    zpty -w -n $s $'\C-b'
    while zpty -r $s line; do
      line=${line//$'\r'/}; line=${line%$'\n'}
      [[ $line == *'<<<BUFFER>>>'* ]] && break
      [[ $line == *BUFFER:* ]] && print -r -- ${(M)line%%BUFFER:*}
    done
  fi
  print -r -- '<<<END>>>'
done
