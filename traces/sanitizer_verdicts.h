#pragma once
// The model's hazards against compute-sanitizer's, per hazard: both found it, the model
// only (a class the sanitizer cannot see, named), or the sanitizer only (a model gap: a
// failure). A device run made with `--sanitize TOOL` says so in its provenance (`extra`
// key `sanitizer`) and carries the tool's findings as diagnostics `sanitizer.<tool>.<kind>`
// whose detail `ops` lists the ops of every access (device/sanitizer_ops.h).
#include <string>
#include <vector>

#include "scenarios/run_result.h"
#include "traces/trace_writer.h"

namespace tmasim {

// Which tool can confirm a model rule ("racecheck"; "" for none), and what the sanitizer
// cannot see when no tool can (docs/semantics.md H40 lists them).
struct SanitizerCoverage {
    std::string tool;
    std::string blind_to;  // "the async proxy: ...", "mbarrier transaction counts: ..."
};
SanitizerCoverage sanitizer_coverage(const std::string& rule);

struct HazardVerdict {
    enum class Kind { agree, model_only, sanitizer_only };
    Kind kind = Kind::agree;
    std::string rule;   // the model's rule, or the sanitizer's for sanitizer_only
    int op = -1;
    std::string where;  // "race.shared_raw at #2 shared.load"
    std::string why;    // agree: the sanitizer's finding; model_only: what it cannot see
};
std::string to_string(HazardVerdict::Kind kind);  // "agree", "model-only", "sanitizer-only"

// "racecheck", or "" when the run was not made under compute-sanitizer.
std::string sanitizer_tool(const RunResult& run);

// A sanitizer finding about a scenario op that the tool can judge: not one in the executor's
// own code (detail executor_code) nor one outside what the tool follows (outside_tool).
bool compared_finding(const Diagnostic& d);

// model: the model's diagnostics (only hazards count), or the scenario's `expect` as one
// diagnostic; device: a run made under compute-sanitizer. One verdict per distinct model
// (rule, op) and one per sanitizer finding no model hazard shares an op with.
std::vector<HazardVerdict> compare_hazards(const std::vector<Diagnostic>& model, const RunResult& device,
                                           const OpNames& names);

struct HazardCounts {
    size_t agree = 0, model_only = 0, sanitizer_only = 0;
    void add(const std::vector<HazardVerdict>& verdicts);
};
// "agree: 3, model-only: 5, sanitizer-only: 0"
std::string counts_line(const HazardCounts& counts);

}  // namespace tmasim
