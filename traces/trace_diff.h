#pragma once
// Compares two runs of one scenario: outcome, then functional bytes, then timing.
// B is the reference (usually the device trace), so relative errors divide by B.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "scenarios/run_result.h"
#include "traces/diff_bytes.h"
#include "traces/sanitizer_verdicts.h"
#include "traces/trace_writer.h"

namespace tmasim {

struct DiffOptions {
    // Timing rows whose relative error exceeds this are counted and marked in the table.
    // Timing never decides functional_match(): the model is calibrated, not cycle-exact.
    double tolerance = 0.25;
    int top = 15;      // rows in the worst-offender table
    // Measure event times from each CTA's first op instead of from kernel entry. The kernel
    // prologue varies by hundreds of cycles between identical launches (cache and TLB state
    // at launch), which no model constant captures; aligning separates that noise from the
    // per-op error. Durations are unaffected.
    bool align_first_op = false;
    OpNames op_names;  // names for the table; ops missing here print as "?"
    // Element types of the scenario's buffers, to decode differing bytes; empty: show hex.
    ElementTypes element_types;
    // How the scenario compares each global tensor (GlobalTensor::compare); absent: exactly.
    ImageCompares compares;
    size_t differences_shown = 8;  // differing elements listed per image
};

// One final memory image compared across the two runs.
struct MemoryDiff {
    enum class Status { equal, differ, size_mismatch, missing_in_a, missing_in_b };
    std::string space, name;
    int cta = 0;
    Status status = Status::equal;
    size_t size_a = 0, size_b = 0;
    int64_t first_diff = -1;  // byte offset of the first difference (differ only)
    size_t diff_count = 0;    // bytes that differ (differ only)
    // One side's trace kept only the image's size and hash (FORMAT.md, version 3): equal or
    // differ says whether the hashes agree; diff_count and first_diff are not known.
    bool compared_by_hash = false;
    std::string hash_algorithm;  // that hash's: "fnv1a64" | "xxh64"
    // Both sides kept only a hash, by different algorithms (a version 3 trace's fnv1a64, a
    // version 4 trace's xxh64): nothing can be compared, which counts as a difference.
    bool hashes_incomparable = false;
    // Global tensors and snapshots are the scenario's result and always count (unless the
    // side lacking the image faulted). A final shared buffer only counts when both runs
    // dumped it: a backend may not be able to read shared memory back (e.g. after a fault
    // or a hang), which is no functional difference.
    bool is_mismatch = false;
    // A buffer a hazard the model reported names, compared against a run that showed no
    // hazard: its bytes depend on the race, so a difference is reported, not counted.
    bool race_dependent = false;
    // The scenario's `compare:` let this difference stand: an opaque image (encodings the
    // backends do not share), or float elements all within its ulp bound (max_ulps of ulp_bound).
    bool opaque = false;
    bool within_ulps = false;
    int64_t max_ulps = -1, ulp_bound = 0;
    ByteDifferences bytes;  // differ only: the first differing elements, decoded
};
std::string to_string(MemoryDiff::Status s);

// One paired timing quantity: an event's time, or the duration of an op on one thread
// (issue->complete, wait_begin->wait_end).
struct TimingRow {
    std::string key;   // "op5[2]@cta0.w1.l0:issue", or "...:duration" for durations
    int op = -1;
    std::string name;  // op kind
    int64_t a = 0, b = 0;
    double rel_err = 0;  // |a-b| / max(|b|, 1)
};

struct TimingSummary {
    size_t paired = 0;
    double median = 0, p90 = 0, max = 0;  // relative errors; 0 when nothing paired
    size_t over_tolerance = 0;
};

struct DiffReport {
    Provenance a, b;
    Outcome outcome_a = Outcome::ok, outcome_b = Outcome::ok;
    std::string why_a, why_b;  // the first diagnostic naming the outcome, if any
    std::vector<MemoryDiff> memory;
    TimingSummary events;       // event times (cycles since CTA start)
    TimingSummary durations;    // per-op durations
    size_t unpaired_a = 0, unpaired_b = 0;  // non-model-only events on one side only
    size_t model_only_skipped = 0;
    std::vector<TimingRow> worst;  // events and durations together, worst first, top N
    double tolerance = 0;
    bool aligned_first_op = false;
    // When CTA 0's first op began, in cycles since kernel entry (-1: no event): the prologue.
    int64_t first_op_a = -1, first_op_b = -1;
    // Hazards the model reported while the other run, on hardware, ended ok: a race need not
    // show on a GPU, so this is no outcome mismatch. "proxy.generic_to_async at #8 tma.store
    // (store)", one per distinct rule and op. Empty otherwise.
    std::vector<std::string> races_not_observed;
    // A model run against a device run made under compute-sanitizer: one verdict per hazard
    // (traces/sanitizer_verdicts.h). A sanitizer-only hazard is a model gap: no agreement.
    std::vector<HazardVerdict> hazards;
    bool sanitizer_only() const;
    // Non-empty when the model's arch config is not the other run's GPU ("h100-sxm" model
    // against an NVIDIA H200): the timing then compares two different GPUs.
    std::string arch_warning;
    // Non-empty when the two runs time different kernels: a model prediction of the untraced
    // kernel against a traced device run, say (trace_level in each header).
    std::string trace_level_warning;
    // First warp entry to last warp exit, ns (header kernel_span_ns; -1: not recorded): the
    // one time an untraced device run and the model's default prediction share.
    int64_t kernel_span_ns_a = -1, kernel_span_ns_b = -1;

    bool outcome_match() const { return outcome_a == outcome_b; }
    // The outcomes match, or the only difference is a race the hardware did not show.
    bool outcome_agrees() const { return (outcome_match() || !races_not_observed.empty()) && !sanitizer_only(); }
    bool memory_match() const;
    bool functional_match() const { return outcome_agrees() && memory_match(); }
    // Timing rows over the tolerance: event times plus durations, as the table stars them.
    // |A - B| / B of the kernel spans; -1 when either is not recorded.
    double kernel_span_rel_err() const {
        if (kernel_span_ns_a < 0 || kernel_span_ns_b <= 0) return -1;
        const double d = static_cast<double>(kernel_span_ns_a - kernel_span_ns_b);
        return (d < 0 ? -d : d) / static_cast<double>(kernel_span_ns_b);
    }
    size_t timing_over_tolerance() const { return events.over_tolerance + durations.over_tolerance; }
};

// The arch config that models a GPU by its device name ("NVIDIA H200" -> "h200"); "" when
// no config is known for it.
std::string arch_config_for_gpu(const std::string& gpu);

DiffReport diff_traces(const RunResult& a, const RunResult& b, const DiffOptions& options = {});
// Whether a run could read no memory back: a fault, or a hang whose process was killed at the
// wall-clock limit. An image such a run lacks is no functional difference.
bool could_not_read_back(const RunResult& r);
void print_diff(const DiffReport& report, std::ostream& out);

// Linear interpolation between closest ranks (numpy's default): p in [0, 1].
// `values` need not be sorted; 0 when empty.
double percentile(std::vector<double> values, double p);

}  // namespace tmasim
