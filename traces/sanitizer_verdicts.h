#pragma once
// The model's hazards against compute-sanitizer's, per hazard: both found it, the model
// only (a class the sanitizer cannot see, named), or the sanitizer only (a model gap: a
// failure). Two kinds of sanitizer finding are no model gap and are counted apart, each with
// its reason: one that PTX does not make a rule (synccheck's "Missing wait" where PTX asks for
// no wait, docs/semantics.md H41), and one at an op the model's run never got to run in full
// (the model's run stopped, a hang or fault, first). A device run made with `--sanitize TOOL` says so in its provenance (`extra`
// key `sanitizer`) and carries the tool's findings as diagnostics `sanitizer.<tool>.<kind>`
// whose detail `ops` lists the ops of every access (device/sanitizer/sanitizer_ops.h).
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
    enum class Kind { agree, model_only, sanitizer_only, not_ptx_rule, not_reached };
    Kind kind = Kind::agree;
    std::string rule;   // the model's rule, or the sanitizer's for sanitizer_only
    int op = -1;
    std::string where;  // "race.shared_raw at #2 shared.load"
    std::string why;    // agree: the sanitizer's finding; model_only: what it cannot see
};
// "agree", "model-only", "sanitizer-only", "not-a-ptx-rule", "not-reached"
std::string to_string(HazardVerdict::Kind kind);
// How tmasim diff heads a verdict's line: "agree, both found it", "SANITIZER ONLY (a model gap)".
const char* verdict_head(HazardVerdict::Kind kind);

// "racecheck", or "" when the run was not made under compute-sanitizer.
std::string sanitizer_tool(const RunResult& run);

// A sanitizer finding about a scenario op that the tool can judge: not one in the executor's
// own code (detail executor_code) nor one outside what the tool follows (outside_tool).
bool compared_finding(const Diagnostic& d);

// model: the model's diagnostics (hazards are compared; a hang or fault says the run stopped
// there), or the scenario's `expect` as one diagnostic; device: a run made under
// compute-sanitizer. One verdict per distinct model (rule, op) and one per sanitizer finding
// no model hazard shares an op with.
std::vector<HazardVerdict> compare_hazards(const std::vector<Diagnostic>& model, const RunResult& device,
                                           const OpNames& names);

struct HazardCounts {
    size_t agree = 0, model_only = 0, sanitizer_only = 0, not_ptx_rule = 0, not_reached = 0;
    void add(const std::vector<HazardVerdict>& verdicts);
};
// "agree: 3, model-only: 5, sanitizer-only: 0", then ", not a PTX rule: 2, not reached by the
// model: 1" when either is not 0 (the first three keep their place for scripts that read them)
std::string counts_line(const HazardCounts& counts);

}  // namespace tmasim
