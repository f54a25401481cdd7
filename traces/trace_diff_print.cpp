// The human-readable form of a DiffReport (tmasim diff). Kept apart from the comparison
// so tests can check numbers without parsing text.
#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "traces/trace_diff.h"

namespace tmasim {
namespace {

std::string side_line(const char* label, const Provenance& p) {
    std::string s = fmt::format("{}: backend {}, gpu {}", label, p.backend.empty() ? "?" : p.backend,
                                p.gpu.empty() ? "?" : p.gpu);
    if (p.sm_clock_mhz > 0) s += fmt::format(" @ {} MHz", p.sm_clock_mhz);
    if (!p.scenario.empty()) s += ", scenario " + p.scenario;
    if (!p.tool_version.empty()) s += ", tmasim " + p.tool_version;
    // How the device launched the recorded kernel: two device traces, one cold and one warm,
    // differ by the first fetch of its code and pages, not by anything the kernel did.
    if (p.backend == "device") {
        const auto warm = p.extra.find("warm_launches");
        s += warm == p.extra.end() ? ", one cold launch" : ", after " + warm->second + " warm launch(es)";
    }
    return s;
}

std::string outcome_text(Outcome o, const std::string& why) {
    return why.empty() ? to_string(o) : to_string(o) + " (" + why + ")";
}

std::string pct(double x) { return fmt::format("{:.1f}%", 100.0 * x); }

// Said after the size when a trace kept only an image's hash (FORMAT.md, version 3).
std::string hash_note(const MemoryDiff& m) {
    if (m.hashes_incomparable)
        return ", both traces hold only a hash of this unchanged input, by different algorithms (fnv1a64 up to "
               "version 3, xxh64 from version 4): rerun one with --memory-bytes all";
    return m.compared_by_hash ? ", compared by " + m.hash_algorithm +
                                    ": a trace holds only the hash of this unchanged input"
                              : "";
}

// "snapshot put[3]:stage[1] cta 0: match (512 bytes)".
std::string snapshot_line(const MemoryDiff& m) {
    std::string what;
    switch (m.status) {
    case MemoryDiff::Status::equal: what = fmt::format("match ({} bytes{})", m.size_a, hash_note(m)); break;
    case MemoryDiff::Status::differ:
        if (m.compared_by_hash) {
            what = fmt::format("{}: {} ({} bytes{})", m.is_mismatch ? "MISMATCH" : "differs",
                               m.hashes_incomparable ? "cannot compare" : m.hash_algorithm + " differs", m.size_a,
                               hash_note(m));
            break;
        }
        what = fmt::format("{}: {} of {} bytes differ, first at byte offset {}",
                           m.is_mismatch ? "MISMATCH" : "differs", m.diff_count, m.size_a, m.first_diff);
        break;
    case MemoryDiff::Status::size_mismatch:
        what = fmt::format("MISMATCH: A {} bytes, B {} bytes", m.size_a, m.size_b);
        break;
    case MemoryDiff::Status::missing_in_a:
    case MemoryDiff::Status::missing_in_b:
        what = (m.is_mismatch ? "MISMATCH: taken " : "not compared: taken ") +
               std::string(m.status == MemoryDiff::Status::missing_in_a ? "in B only" : "in A only") +
               (m.is_mismatch ? "" : " (the other run could not read it back)");
        break;
    }
    return fmt::format("snapshot {} cta {}: {}", m.name, m.cta, what);
}

// The first differing elements under a DIFFER line, decoded by the buffer's type:
// "    element 5 (bytes 20..23, i32): A 5, B 7".
void print_differences(const MemoryDiff& m, std::ostream& out) {
    if (m.status != MemoryDiff::Status::differ) return;
    if (m.race_dependent)
        out << "    race-dependent: a race the model reported names this buffer, so its bytes may differ; "
               "not counted\n";
    for (const ElementDifference& e : m.bytes.first) {
        const std::string bytes = e.size == 1 ? fmt::format("byte {}", e.offset)
                                              : fmt::format("bytes {}..{}", e.offset, e.offset + e.size - 1);
        if (m.bytes.type == "bytes")
            out << fmt::format("    {}: A {}, B {}\n", bytes, e.a, e.b);
        else
            out << fmt::format("    element {} ({}, {}): A {}, B {}\n", e.element, bytes, m.bytes.type, e.a, e.b);
    }
    if (m.bytes.elements_differing > m.bytes.first.size())
        out << fmt::format("    ... {} more differing {}\n", m.bytes.elements_differing - m.bytes.first.size(),
                           m.bytes.type == "bytes" ? "bytes" : "elements");
}

void print_memory(const DiffReport& r, std::ostream& out) {
    const bool raced = std::any_of(r.memory.begin(), r.memory.end(), [](const MemoryDiff& m) {
        return m.race_dependent && m.status == MemoryDiff::Status::differ;
    });
    out << "MEMORY: " << (!r.memory_match() ? "MISMATCH" : raced ? "match outside the raced buffers" : "match")
        << '\n';
    if (r.memory.empty()) out << "  (no memory images on either side)\n";
    for (const MemoryDiff& m : r.memory) {
        if (m.space == "snapshot") {
            out << "  " << snapshot_line(m) << '\n';
            print_differences(m, out);
            continue;
        }
        std::string where = m.space == "shared" ? fmt::format("{} {} (cta {})", m.space, m.name, m.cta)
                                                : fmt::format("{} {}", m.space, m.name);
        std::string what;
        switch (m.status) {
        case MemoryDiff::Status::equal:
            what = fmt::format("equal ({} bytes{})", m.size_a, hash_note(m));
            break;
        case MemoryDiff::Status::differ:
            if (m.compared_by_hash) {
                what = fmt::format("{}: {} ({} bytes{})", m.is_mismatch ? "DIFFER" : "differs",
                                   m.hashes_incomparable ? "cannot compare" : m.hash_algorithm + " differs",
                                   m.size_a, hash_note(m));
                break;
            }
            what = fmt::format("{}: {} of {} bytes, first at byte offset {}", m.is_mismatch ? "DIFFER" : "differs",
                               m.diff_count, m.size_a, m.first_diff);
            if (m.opaque) what += " (compare: opaque: bytes the two backends encode differently; not compared)";
            else if (m.max_ulps >= 0)
                what += fmt::format(" ({} ulps at most; compare: ulps {}: {})", m.max_ulps, m.ulp_bound,
                                    m.within_ulps ? "within the bound" : "OVER the bound");
            break;
        case MemoryDiff::Status::size_mismatch:
            what = fmt::format("SIZE MISMATCH: A {} bytes, B {} bytes", m.size_a, m.size_b);
            break;
        case MemoryDiff::Status::missing_in_a:
        case MemoryDiff::Status::missing_in_b:
            what = to_string(m.status) + (m.is_mismatch        ? ""
                                          : m.space == "global" ? " (the other run could not read it back: not compared)"
                                                                : " (shared buffer: not compared)");
            break;
        }
        out << "  " << where << ": " << what << '\n';
        print_differences(m, out);
    }
}

void print_timing(const DiffReport& r, std::ostream& out) {
    const size_t rows = r.events.paired + r.durations.paired;
    size_t starred = 0;
    for (const TimingRow& row : r.worst) starred += row.rel_err > r.tolerance ? 1 : 0;
    out << fmt::format("TIMING: B is the reference; * marks a relative error over the tolerance {}\n",
                       pct(r.tolerance));
    if (r.kernel_span_ns_a >= 0 && r.kernel_span_ns_b >= 0)
        out << fmt::format("kernel: A {} ns, B {} ns from the first warp's entry to the last warp's exit, rel err {}\n",
                           r.kernel_span_ns_a, r.kernel_span_ns_b,
                           pct(r.kernel_span_rel_err()));
    // The summary counts every paired row; the table below lists only the worst, so both
    // numbers are given and they add up.
    out << fmt::format("timing: {} paired events, median rel err {}, p90 {}, max {}, {} over tolerance\n",
                       r.events.paired, pct(r.events.median), pct(r.events.p90), pct(r.events.max),
                       r.events.over_tolerance);
    out << fmt::format("durations: {} paired ops, median rel err {}, p90 {}, max {}, {} over tolerance\n",
                       r.durations.paired, pct(r.durations.median), pct(r.durations.p90),
                       pct(r.durations.max), r.durations.over_tolerance);
    out << fmt::format("over tolerance: {} of {} rows ({} event times, {} durations)\n", r.timing_over_tolerance(),
                       rows, r.events.over_tolerance, r.durations.over_tolerance);
    out << fmt::format("  prologue: CTA 0's first op at A {} / B {} cycles after kernel entry; {}\n", r.first_op_a,
                       r.first_op_b,
                       r.aligned_first_op ? "event times below count from each CTA's first op"
                                          : "event times below count from kernel entry (--align first-op "
                                            "counts from the first op)");
    if (r.worst.empty()) {
        out << "  (no paired events)\n";
    } else {
        out << fmt::format("  the worst {} of {} rows (event times and :duration rows), {} of them *:\n",
                           r.worst.size(), rows, starred);
        size_t key_w = 3, name_w = 7;
        for (const TimingRow& row : r.worst) {
            key_w = std::max(key_w, row.key.size());
            name_w = std::max(name_w, row.name.size());
        }
        out << fmt::format("  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>8}\n", "key", key_w, "op name", name_w,
                           "A cycles", "B cycles", "rel err");
        for (const TimingRow& row : r.worst)
            out << fmt::format("  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>8}{}\n", row.key, key_w, row.name, name_w,
                               row.a, row.b, pct(row.rel_err), row.rel_err > r.tolerance ? " *" : "");
    }
    out << fmt::format("unpaired events: {} only in A, {} only in B; {} model-only events not compared\n",
                       r.unpaired_a, r.unpaired_b, r.model_only_skipped);
}

// One line per hazard of a model run against a compute-sanitizer run, then the counts.
void print_hazard_verdicts(const DiffReport& r, std::ostream& out) {
    if (r.hazards.empty()) return;
    HazardCounts counts;
    counts.add(r.hazards);
    out << "HAZARDS (model vs compute-sanitizer): " << counts_line(counts) << '\n';
    for (const HazardVerdict& v : r.hazards)
        out << "  " << verdict_head(v.kind) << ": " << v.where << ": " << v.why << '\n';
}

}  // namespace

void print_diff(const DiffReport& r, std::ostream& out) {
    out << side_line("A", r.a) << '\n' << side_line("B", r.b) << '\n';
    if (!r.a.scenario_hash.empty() && !r.b.scenario_hash.empty() && r.a.scenario_hash != r.b.scenario_hash)
        out << "NOTE: the traces come from different scenario files (hash " << r.a.scenario_hash << " vs "
            << r.b.scenario_hash << ")\n";
    if (!r.arch_warning.empty()) out << "WARNING: " << r.arch_warning << '\n';
    if (!r.trace_level_warning.empty()) out << "WARNING: " << r.trace_level_warning << '\n';
    if (r.outcome_match()) {
        out << "OUTCOME: match (" << to_string(r.outcome_a) << ")\n";
    } else if (r.outcome_agrees()) {
        out << "OUTCOME: agree: A " << to_string(r.outcome_a) << ", B " << to_string(r.outcome_b)
            << "; a hazard is what the model sees, and a race need not show on hardware\n";
        for (const std::string& race : r.races_not_observed)
            out << "  race predicted by the model, not observable on hardware: " << race << '\n';
    } else
        out << "OUTCOME: MISMATCH: A " << outcome_text(r.outcome_a, r.why_a) << ", B "
            << outcome_text(r.outcome_b, r.why_b) << '\n';
    print_hazard_verdicts(r, out);
    print_memory(r, out);
    print_timing(r, out);
    if (!r.races_not_observed.empty() && !r.memory_match())
        out << "NOTE: bytes differ outside the buffers the model's race names; where the race reaches them "
               "(a store of the raced buffer, say), the hardware may have shown it\n";
    out << "RESULT: " << (r.functional_match() ? "functional match" : "FUNCTIONAL MISMATCH");
    if (r.functional_match() && !r.outcome_match()) out << " (the race the model predicts did not show)";
    out << '\n';
}

}  // namespace tmasim
