# bash completion for aifsim: commands, each command's options, shipped scenario names and catalog
# ids. Everything is asked of aifsim itself (--help, catalog), so it stays in step with the program.
_aifsim()
{
  local cur prev words cword
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  local prog=${COMP_WORDS[0]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null | sed -n 's/^  \([a-z]*\)  .*/\1/p') --help --version" -- "$cur"))
    return
  fi
  local cmd=${COMP_WORDS[1]}
  case "$prev" in
    --system)
      COMPREPLY=($(compgen -W "$("$prog" catalog systems 2>/dev/null | awk 'NR > 2 { print $1 }')" -- "$cur")); return ;;
    --model)
      COMPREPLY=($(compgen -W "$("$prog" catalog models 2>/dev/null | awk 'NR > 1 { print $1 }')" -- "$cur")); return ;;
    -o|--output|-p|--profile|-c|--catalog|--recipes|--from)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [ "$cmd" = help ]; then
    COMPREPLY=($(compgen -W "keys columns $("$prog" --help 2>/dev/null | sed -n 's/^  \([a-z]*\)  .*/\1/p')" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$("$prog" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur"))
    return
  fi
  case "$cmd" in
    run|plan)
      COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -W "$("$prog" catalog scenarios 2>/dev/null | awk 'NF > 1 && $1 !~ /^\(/ { print $1 }')" -- "$cur")) ;;
    catalog)
      if [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "systems models scenarios keys show import" -- "$cur"))
      elif [ "$prev" = show ]; then
        COMPREPLY=($(compgen -W "$("$prog" catalog systems 2>/dev/null | awk 'NR > 2 { print $1 }') $("$prog" catalog models 2>/dev/null | awk 'NR > 1 { print $1 }')" -- "$cur"))
      else
        COMPREPLY=($(compgen -f -- "$cur"))
      fi ;;
    *)
      COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -F _aifsim aifsim
