#!/usr/bin/env bash
# The bash completion offers every subcommand `tmasim --help` lists and every option each
# subcommand's --help lists (a subcommand's subcommands too: bench executor-overhead), by its
# long name, and completes --backend and rule ids.   usage: completion_check.sh TMASIM SOURCE_DIR
set -euo pipefail
tmasim=$1; root=$2
export PATH="$(dirname "$tmasim"):$PATH"
source "$root/cli/completion/tmasim.bash"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _tmasim; echo "${COMPREPLY[*]}"; }
subcommands_of() { sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'; }
# "  -o,--output TEXT  ..." -> --output; an option with only a short name keeps it.
options_of() {
  sed -n '/^Options:/,/^$/p' | awk 'NR > 1 && /^  -/ {n = split($1, names, ","); print names[n]}' | grep -v '^--help$' || true
}
offered=" $(complete_words tmasim '') "
missing=0; checked=0
check_options() {  # words of the command line before the option, e.g. "bench kernel-overhead"
  local help; help=$("$tmasim" "$@" --help)
  local offered_opts=" $(complete_words tmasim "$@" -) "
  for opt in $(printf '%s\n' "$help" | options_of); do
    checked=$((checked + 1))
    [[ "$offered_opts" == *" $opt "* ]] || { echo "completion of 'tmasim $*' lacks option $opt"; missing=1; }
  done
  for nested in $(printf '%s\n' "$help" | subcommands_of); do
    [[ " $(complete_words tmasim "$@" '') " == *" $nested "* ]] || { echo "completion lacks 'tmasim $* $nested'"; missing=1; }
    check_options "$@" "$nested"
  done
}
for sub in $("$tmasim" --help | subcommands_of); do
  [[ "$offered" == *" $sub "* ]] || { echo "completion lacks subcommand $sub"; missing=1; }
  check_options "$sub"
done
[ "$missing" -eq 0 ] || exit 1
[ "$checked" -gt 40 ] || { echo "only $checked options found in the subcommands' --help: the scan is broken"; exit 1; }
[[ " $(complete_words tmasim run x.yaml --backend m) " == *" model "* ]] || { echo "no --backend completion"; exit 1; }
[[ " $(complete_words tmasim explain race.early) " == *" race.early_pass "* ]] || { echo "no rule id completion"; exit 1; }
echo "completion offers every subcommand, its $checked options, backends and rule ids"
