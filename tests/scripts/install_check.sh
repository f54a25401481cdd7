#!/usr/bin/env bash
# Installs the build into a fresh prefix and runs the installed tmasim from / on an
# installed catalog scenario and with an explicit --arch: the binary must find its arch
# configs relative to itself, not in the source tree it was built from.
#   usage: install_check.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
prefix=$(mktemp -d "${TMPDIR:-/tmp}/tmasim-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cd /
"$prefix/bin/tmasim" run "$prefix/share/tmasim/catalog/guide/tma_2d_load_modify_store.yaml" --backend model --arch h200 --quiet
"$prefix/bin/tmasim" explain proxy.generic_to_async | grep -q "fence.proxy.async"
test -f "$prefix/share/doc/tmasim/semantics.md"
# It reads the prefix's configs, not the source tree's: without the prefix's h100-sxm.yaml
# the arch is unknown there, and the error names the prefix.
mv "$prefix/share/tmasim/arch/h100-sxm.yaml" "$prefix/h100-sxm.yaml.hidden"
err=$("$prefix/bin/tmasim" run "$prefix/share/tmasim/catalog/guide/tma_2d_load_modify_store.yaml" --backend model --arch h100-sxm 2>&1 || true)
echo "$err" | grep -q "unknown arch 'h100-sxm' (no $prefix/share/tmasim/arch/h100-sxm.yaml)"
mv "$prefix/h100-sxm.yaml.hidden" "$prefix/share/tmasim/arch/h100-sxm.yaml"
out=$("$prefix/bin/tmasim" run "$prefix/share/tmasim/catalog/teach/07_store_no_fence.yaml" --backend model 2>&1 || true)
echo "$out" | grep -q "expect:      hazard proxy.generic_to_async at op 'store': PASS"
echo "installed tmasim ran the catalog from / (prefix $prefix)"
