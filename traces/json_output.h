#pragma once
// The machine-readable output of `tmasim run --json` and `tmasim diff --json`: one JSON
// document per command (shapes in traces/FORMAT.md, "JSON output"). The CLI adds what only
// it knows (the expectation check, the trace path, the exit code).
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/run_result.h"
#include "traces/diagnostic_groups.h"
#include "traces/trace_diff.h"
#include "traces/trace_writer.h"

namespace tmasim {

using OrderedJson = nlohmann::ordered_json;

// Bumped when a key changes meaning or goes away; new keys do not bump it.
constexpr int kJsonOutputVersion = 1;
// tmasim-run's own: version 2 merged `diagnostics` per (rule, op, CTA) (traces/FORMAT.md,
// "Merged diagnostics"), so an entry may stand for several instances; version 3 gives the
// integer values of provenance `extra` and diagnostic `detail` as numbers, not strings.
constexpr int kRunJsonVersion = 3;
// tmasim-diff's own: version 2, integer values of the provenances' `extra` as numbers.
constexpr int kDiffJsonVersion = 2;

OrderedJson provenance_json(const Provenance& p);
// One merged diagnostic: the first instance's keys, then `instances`, `iterations` (the
// text the summary prints) and `instance_iters` (each distinct loop index list).
OrderedJson diagnostic_json(const DiagnosticGroup& group, const OpNames& names);
// Adds what the caller knows about a diagnostic to its entry (the CLI: the scenario's file,
// line and column, why and fix).
using DiagnosticAnnotation = std::function<void(const DiagnosticGroup&, OrderedJson&)>;
// "run": provenance, outcome, diagnostics (merged unless `all_instances`), their summary,
// per-op event counts, memory hashes. Integer values of `extra` and `detail` are numbers.
OrderedJson run_json(const RunResult& result, const OpNames& names, bool all_instances = false,
                     const DiagnosticAnnotation& annotate = {});
// "diff": both provenances, outcome, races not observed, memory with the first differing
// elements, timing summaries and the worst rows, the verdict.
OrderedJson diff_json(const DiffReport& report);

// One line (no pretty printing), invalid UTF-8 replaced rather than thrown on.
std::string dump_json(const OrderedJson& j);

}  // namespace tmasim
