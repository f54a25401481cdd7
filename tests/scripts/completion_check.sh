#!/usr/bin/env bash
# The bash completion offers every subcommand `tmasim --help` lists, and completes
# --backend and rule ids.   usage: completion_check.sh TMASIM SOURCE_DIR
set -euo pipefail
tmasim=$1; root=$2
export PATH="$(dirname "$tmasim"):$PATH"
source "$root/cli/completion/tmasim.bash"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _tmasim; echo "${COMPREPLY[*]}"; }
offered=" $(complete_words tmasim '') "
for sub in $("$tmasim" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'); do
  [[ "$offered" == *" $sub "* ]] || { echo "completion lacks subcommand $sub"; exit 1; }
done
[[ " $(complete_words tmasim run x.yaml --backend m) " == *" model "* ]] || { echo "no --backend completion"; exit 1; }
[[ " $(complete_words tmasim explain race.early) " == *" race.early_pass "* ]] || { echo "no rule id completion"; exit 1; }
echo "completion offers every subcommand, backends and rule ids"
