#pragma once
// The diagnostics of a run as a reader sees them: one per (outcome, rule, op, CTA), naming
// the loop iterations it covers. A hazard inside a loop is reported once per iteration
// (the model checks each op instance); a 3-stage ring with two mistakes looping 3 times
// gave 6 diagnostics and 48 lines of text for 2 mistakes.
//
// Merging happens here, at presentation, not in the model: the trace keeps one diagnostic
// line per instance, so `tmasim diff`, the expectation check, the sanitizer comparison and
// the trace reader see exactly what the model (or the device) reported, and
// `--all-instances` can print each one (traces/FORMAT.md, "Merged diagnostics").
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/run_result.h"

namespace tmasim {

struct DiagnosticGroup {
    // The group's first instance in the run's diagnostic order (the trace's): its message
    // and detail are the ones shown.
    Diagnostic first;
    size_t instances = 0;
    // The distinct loop indices of its instances, sorted (outermost index first); empty
    // for an op outside any loop.
    std::vector<std::vector<int64_t>> iterations;
};

// Groups in the order of each group's first instance; deterministic for a given list.
// With `all_instances`, one group per diagnostic (nothing merged).
std::vector<DiagnosticGroup> group_diagnostics(const std::vector<Diagnostic>& diagnostics,
                                               bool all_instances = false);

// "0-2", "0, 2, 4-6", nested loops "[0][0-2], [1][1]": consecutive last indices under the
// same outer indices become a range. At most `max_pieces` pieces, then "... (N more)".
// Empty when the group has no iterations.
std::string iterations_text(const DiagnosticGroup& g, size_t max_pieces = 8);

// Where a group is, as the first line of a diagnostic says it: "op #5[1]" for a single
// instance (the form of one diagnostic before merging), "op #5, iterations 0-2" when merged,
// "op #5, 3 instances" when there are several outside a loop (or more instances than
// iterations: "op #5, iterations 0-1, 4 instances"). Empty for a diagnostic without an op
// and a single instance.
std::string group_where(const DiagnosticGroup& g);

// The compute-sanitizer-style line that ends a run's text ("ERROR SUMMARY: N errors"):
// "tmasim: 2 diagnostics: 2 hazards (2 rules, 6 instances)", "tmasim: 0 diagnostics".
// Counted over the merged groups, with the instances they cover.
std::string diagnostics_summary_line(const std::vector<Diagnostic>& diagnostics);

}  // namespace tmasim
