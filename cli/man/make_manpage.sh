#!/usr/bin/env bash
# Writes the tmasim(1) man page from the binary's own help: `tmasim --help`, then each
# subcommand's (and a subcommand's subcommands') --help, so the page says what the binary
# does and cannot go stale. Run after every link of tmasim (cli/CMakeLists.txt).
#   usage: make_manpage.sh TMASIM OUT.1
set -euo pipefail
tmasim=$1; out=$2
version=$("$tmasim" --version)

# The subcommands a help text lists under "Subcommands:".
subcommands_of() { sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'; }

# CLI11's help as man source: "Options:"-style headings become bold lines, each option or
# positional ("  -o,--output TEXT   text", the text maybe on the lines after, indented) a
# tagged paragraph that man fills to the reader's width; other lines are paragraphs.
# Backslashes and hyphens are escaped, a line's leading dot or quote defused.
help_to_man() {
  awk -v skip_first="${1:-1}" '
    function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); sub(/^[.'"'"']/, "\\\\&&", s); return s }
    NR == 1 && skip_first == 1 { next }  # a subcommand summary, printed under its heading
    /^Usage: / { sub(/^Usage: [^ ]*tmasim/, "Usage: tmasim"); plain = 0; print ".PP"; print esc($0); next }
    /^[A-Z][A-Za-z ]*:$/ { plain = 0; print ".PP"; print "\\fB" esc($0) "\\fR"; next }
    /^  [^ ]/ {
      line = substr($0, 3); gap = match(line, /  +/)
      name = gap ? substr(line, 1, gap - 1) : line
      text = gap ? substr(line, gap + RLENGTH) : ""
      plain = 0; print ".TP"; print "\\fB" esc(name) "\\fR"; if (text != "") print esc(text); next
    }
    /^ +[^ ]/ { sub(/^ +/, ""); print esc($0); next }
    /^$/ { plain = 0; next }
    { if (!plain) print ".PP"; print esc($0); plain = 1; next }
  '
}

{
  echo ".TH TMASIM 1 \"\" \"$version\" \"User Commands\""
  echo ".SH NAME"
  echo "tmasim \\- run YAML scenarios of GPU asynchronous data movement on a SystemC model or a Hopper GPU"
  echo ".SH SYNOPSIS"
  echo ".B tmasim"
  echo ".I subcommand"
  echo "[\\fIoptions\\fR] [\\fIarguments\\fR]"
  echo ".SH DESCRIPTION"
  "$tmasim" --help | help_to_man 0
  echo ".SH SUBCOMMANDS"
  for sub in $("$tmasim" --help | subcommands_of); do
    help=$("$tmasim" "$sub" --help)
    echo ".SS \"tmasim $sub\""
    printf '%s\n' "$help" | head -1 | sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\\&&/"
    printf '%s\n' "$help" | help_to_man
    for nested in $(printf '%s\n' "$help" | subcommands_of); do
      echo ".SS \"tmasim $sub $nested\""
      "$tmasim" "$sub" "$nested" --help | help_to_man
    done
  done
  echo ".SH FILES"
  echo ".TP"
  echo ".I <prefix>/share/tmasim/arch, catalog, sweeps"
  echo "The arch configs (found beside the binary), the scenario catalog and the sweeps."
  echo ".TP"
  echo ".I <prefix>/share/doc/tmasim"
  echo "README.md and the documents it links, in the repository's layout: docs/semantics.md (the rule"
  echo "reference every diagnostic cites; \\fBtmasim explain B12\\fR prints a section), scenarios/FORMAT.md"
  echo "(the scenario format), traces/FORMAT.md (the trace format)."
  echo ".SH SEE ALSO"
  echo "\\fBtmasim explain\\fR lists the rule ids; the learning path is"
  echo "\\fI<prefix>/share/doc/tmasim/scenarios/catalog/teach/README.md\\fR."
} > "$out.tmp"
mv "$out.tmp" "$out"
