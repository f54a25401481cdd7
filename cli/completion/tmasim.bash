# bash completion for tmasim: subcommands, their options, backends, arch configs, rule ids
# (from `tmasim explain`) and file names. Installed to share/bash-completion/completions/.
_tmasim() {
    local cur prev words cword
    _init_completion 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
    }
    local subcommands="validate run sweep diff export report codegen explain schema bench layout capture"
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
        --shared-dump) COMPREPLY=($(compgen -W "auto on off" -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --output|-o|--diff-against|--cache-dir|--csv|--slurm|--collect|--scenarios|--from|--library|--cuobjdump) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    # Every option of every subcommand's --help (tests/scripts/completion_check.sh checks it).
    local opts=""
    case "$sub" in
        validate|schema) opts="" ;;
        run) opts="--backend --output --diff-against --arch --seed --max-work --watchdog --cache-dir --trace
                   --shared-dump --warm-launches --l2 --trace-words-in --memory-bytes --ctas-together --jobs
                   --quiet --all-instances --json --ncu --sanitize --color --time-limit --progress" ;;
        sweep) opts="--jobs --output --csv --arch --l2 --trace --quiet --list --slurm --per-task --collect" ;;
        diff) opts="--tolerance --top --align --json" ;;
        export) opts="--output" ;;
        report) opts="--output --all-instances" ;;
        codegen) opts="--output --compile --cubin --trace --trace-words --shared-dump --quiet" ;;
        layout) opts="--shape --type --linear" ;;
        capture) opts="--output --kernel --limit --library --cuobjdump --from" ;;
        bench)
            case "${words[2]}" in
                executor-overhead) opts="--case --ctas --tiles --reps --warmup --scenarios --cache-dir --keep-kernels
                                         --variant --experiments" ;;
                kernel-overhead) opts="--case --ctas --work --reps --warmup --watchdog --scenarios --cache-dir" ;;
                *)
                    if [ "$cword" -eq 2 ]; then
                        COMPREPLY=($(compgen -W "executor-overhead kernel-overhead --help" -- "$cur"))
                        return
                    fi ;;
            esac ;;
        explain)
            # The rule ids (`tmasim explain B12`, a section id, is typed, not offered).
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
