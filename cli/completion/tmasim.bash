# bash completion for tmasim: subcommands, their options, backends, arch configs, rule ids
# (from `tmasim explain`) and file names. Installed to share/bash-completion/completions/.
_tmasim() {
    local cur prev words cword
    _init_completion 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
    }
    local subcommands="validate run sweep diff export report codegen explain schema bench layout"
    local sub=${words[1]}
    if [ "$cword" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$subcommands --help --version" -- "$cur"))
        return
    fi
    case "$prev" in
        --backend|-b) COMPREPLY=($(compgen -W "model device" -- "$cur")); return ;;
        --arch) COMPREPLY=($(compgen -W "h100-sxm h200 b200" -- "$cur")); return ;;
        --compile) COMPREPLY=($(compgen -W "sm_90a sm_100a" -- "$cur")); return ;;
        --align) COMPREPLY=($(compgen -W "first-op" -- "$cur")); return ;;
        --trace) COMPREPLY=($(compgen -W "all waits none" -- "$cur")); return ;;
        --sanitize) COMPREPLY=($(compgen -W "racecheck synccheck memcheck initcheck" -- "$cur")); return ;;
        --l2) COMPREPLY=($(compgen -W "inputs cold warm" -- "$cur")); return ;;
        --trace-words-in) COMPREPLY=($(compgen -W "auto shared global" -- "$cur")); return ;;
        --memory-bytes) COMPREPLY=($(compgen -W "changed all" -- "$cur")); return ;;
        --output|-o|--diff-against|--cache-dir|--csv|--slurm|--collect) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    local opts=""
    case "$sub" in
        run) opts="--backend --output --diff-against --arch --seed --watchdog --cache-dir --quiet --all-instances --ncu --json --trace --sanitize --l2 --trace-words-in --memory-bytes --max-work --time-limit --progress --jobs" ;;
        sweep) opts="--jobs --output --csv --arch --quiet --list --slurm --per-task --collect" ;;
        diff) opts="--align --json" ;;
        export) opts="--output" ;;
        report) opts="--output --all-instances" ;;
        codegen) opts="--compile" ;;
        layout) opts="--shape --type --linear" ;;
        explain)
            COMPREPLY=($(compgen -W "$(tmasim explain 2>/dev/null | awk '{print $1}')" -- "$cur"))
            return ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _tmasim tmasim
