#!/usr/bin/env bash
# Installs the build into a fresh prefix and runs the installed tmasim from / on an
# installed catalog scenario and with an explicit --arch: the binary must find its arch
# configs relative to itself, not in the source tree it was built from. Then what a newcomer
# with only the prefix opens (issue 39): every document under its own repository path, every
# relative link of every installed .md resolving there, every document path `explain` and a
# run's diagnostics print existing there, each cited section printable, and `man tmasim`.
#   usage: install_check.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
prefix=$(mktemp -d "${TMPDIR:-/tmp}/tmasim-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cd /
"$prefix/bin/tmasim" run "$prefix/share/tmasim/catalog/guide/tma_2d_load_modify_store.yaml" --backend model --arch h200 --quiet
"$prefix/bin/tmasim" explain proxy.generic_to_async | grep -q "fence.proxy.async"
# It reads the prefix's configs, not the source tree's: without the prefix's h100-sxm.yaml
# the arch is unknown there, and the error names the prefix.
mv "$prefix/share/tmasim/arch/h100-sxm.yaml" "$prefix/h100-sxm.yaml.hidden"
err=$("$prefix/bin/tmasim" run "$prefix/share/tmasim/catalog/guide/tma_2d_load_modify_store.yaml" --backend model --arch h100-sxm 2>&1 || true)
echo "$err" | grep -q "unknown arch 'h100-sxm' (no $prefix/share/tmasim/arch/h100-sxm.yaml)"
mv "$prefix/h100-sxm.yaml.hidden" "$prefix/share/tmasim/arch/h100-sxm.yaml"
out=$("$prefix/bin/tmasim" run "$prefix/share/tmasim/catalog/teach/07_store_no_fence.yaml" --backend model 2>&1 || true)
echo "$out" | grep -q "expect:      hazard proxy.generic_to_async at op 'store': PASS"

docs="$prefix/share/doc/tmasim"
fail() { echo "install_check: $*"; exit 1; }
# Two FORMAT.md files, each under its own path (one used to overwrite the other).
grep -q "^# .*scenario" "$docs/scenarios/FORMAT.md" || fail "scenarios/FORMAT.md is not the scenario format"
grep -qi "^# .*trace" "$docs/traces/FORMAT.md" || fail "traces/FORMAT.md is not the trace format"
test -f "$docs/docs/semantics.md" || fail "no docs/semantics.md"

# Every relative link [text](path) outside fenced code, from its document's folder.
links=0
while IFS= read -r md; do
  dir=$(dirname "$md")
  while IFS= read -r target; do
    target=${target%%#*}
    [ -n "$target" ] || continue
    links=$((links + 1))
    [ -e "$dir/$target" ] || fail "${md#$docs/} links $target, which is not installed"
  done < <(awk '/^```/ {fenced = !fenced; next} !fenced' "$md" | grep -o '\](\([^) ]*\))' | sed 's/^](//; s/)$//' |
           grep -v '://' | grep -v '^#' || true)
done < <(find "$docs" -name '*.md')
[ "$links" -gt 20 ] || fail "only $links links found in the installed documents: the scan is broken"

# Each document path a printed line holds must exist; a repository-relative one means
# nothing outside the checkout. Arguments: what printed it, then the text.
check_cited() {
  local what=$1 text=$2 path
  for path in $(printf '%s\n' "$text" | grep -oE '[^ ;:()`"]*[A-Za-z0-9_-]\.md\b' || true); do
    [[ "$path" == /* ]] || fail "$what prints $path, a repository path, not the installed one"
    [ -f "$path" ] || fail "$what prints $path, which does not exist"
  done
}
rules=$("$prefix/bin/tmasim" explain | awk '{print $1}')
[ "$(echo "$rules" | wc -l)" -gt 40 ] || fail "tmasim explain lists too few rules"
sections=0
for rule in $rules; do
  text=$("$prefix/bin/tmasim" explain "$rule")
  check_cited "explain $rule" "$text"
  # "read:        <docs>/docs/semantics.md B12": that section prints.
  for section in $(printf '%s\n' "$text" | sed -n 's/^read: *[^ ]*semantics\.md \([A-Z][0-9]*\).*/\1/p'); do
    "$prefix/bin/tmasim" explain "$section" | grep -q "^\*\*$section\. " || fail "explain $section (cited by $rule) does not print it"
    sections=$((sections + 1))
  done
done
[ "$sections" -gt 30 ] || fail "only $sections rules cite a section: the read: lines changed"
# A run's whole output: the diagnostic lines ("[PTX ...; semantics.md B12]") and the teaching
# block (rule/at/why/fix/see) cite the installed documents.
echo "$out" | grep -q "^see: .*$docs/docs/semantics.md B12" || fail "a run's see: line is not the installed semantics.md"
check_cited "run teach/07 (its diagnostic lines and teaching block)" "$out"

# The man page, from MANPATH, and as a file.
test -f "$prefix/share/man/man1/tmasim.1" || fail "no share/man/man1/tmasim.1"
page=$(MANPATH="$prefix/share/man" MANWIDTH=100 man tmasim 2>/dev/null) || fail "MANPATH=$prefix/share/man man tmasim failed"
for sub in $("$prefix/bin/tmasim" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'); do
  printf '%s\n' "$page" | grep -q "^   tmasim $sub$" || fail "man tmasim has no section for tmasim $sub"
done
printf '%s\n' "$page" | grep -q -- "--diff-against" || fail "man tmasim lacks run's --diff-against"
echo "installed tmasim ran the catalog from / (prefix $prefix); $links links and every rule's citations resolve there; man tmasim works"
