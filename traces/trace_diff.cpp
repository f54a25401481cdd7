#include "traces/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>
#include <optional>
#include <tuple>

#include "traces/diff_checks.h"

namespace tmasim {
namespace {

// The cross-backend identity of an event is everything in TraceEvent::key(): (op, iters,
// cta, warp, lane, kind); one op executed by one thread (or warp) is that without the kind.
// Each side's events are sorted by it and paired by a merge: a full-chip trace holds 400k
// events, and a map node per event (a tuple holding a vector) was most of a diff's time.
// The order only has to be the same on both sides, so it starts with a hash of the exec:
// most comparisons are then one integer's.
int compare_exec(const TraceEvent& a, const TraceEvent& b) {
    if (a.op != b.op) return a.op < b.op ? -1 : 1;
    if (a.cta != b.cta) return a.cta < b.cta ? -1 : 1;
    if (a.warp != b.warp) return a.warp < b.warp ? -1 : 1;
    if (a.lane != b.lane) return a.lane < b.lane ? -1 : 1;
    if (a.iters != b.iters) return a.iters < b.iters ? -1 : 1;
    return 0;
}

uint64_t exec_hash(const TraceEvent& e) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    auto mix = [&h](uint64_t v) {
        h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdull;
    };
    mix(static_cast<uint64_t>(e.op));
    mix(static_cast<uint64_t>(e.cta));
    mix(static_cast<uint64_t>(e.warp) << 32 | static_cast<uint32_t>(e.lane));
    for (int64_t i : e.iters) mix(static_cast<uint64_t>(i));
    return h;
}

struct Keyed {
    uint64_t exec_hash = 0;
    const TraceEvent* event = nullptr;
};

int compare_keyed_exec(const Keyed& a, const Keyed& b) {
    if (a.exec_hash != b.exec_hash) return a.exec_hash < b.exec_hash ? -1 : 1;
    return compare_exec(*a.event, *b.event);
}
// The kind before the rest of the exec: an exec's issue and complete share a hash, and
// telling them apart by their whole identity (loop indices included) was a fifth of a diff.
int compare_keyed_event(const Keyed& a, const Keyed& b) {
    if (a.exec_hash != b.exec_hash) return a.exec_hash < b.exec_hash ? -1 : 1;
    if (a.event->kind != b.event->kind) return a.event->kind < b.event->kind ? -1 : 1;
    return compare_exec(*a.event, *b.event);
}

// One executed op's begin (issue, wait_begin) and end (complete, wait_end) times.
struct Span {
    Keyed exec;  // any of its events, for its identity
    std::optional<int64_t> first, second;
};

struct Side {
    std::vector<Keyed> events;  // the events a backend can see, by identity
    std::vector<Span> spans;    // by identity
    size_t duplicates = 0;
};

Side index_side(const RunResult& r, size_t& model_only) {
    Side s;
    s.events.reserve(r.events.size());
    for (const TraceEvent& e : r.events) {
        if (e.model_only) {
            ++model_only;
            continue;
        }
        s.events.push_back({exec_hash(e), &e});
    }
    // Stable: of a repeated key (a backend bug) the first in the trace is kept, so pairing
    // stays one-to-one.
    std::stable_sort(s.events.begin(), s.events.end(),
                     [](const Keyed& x, const Keyed& y) { return compare_keyed_event(x, y) < 0; });
    const auto last = std::unique(s.events.begin(), s.events.end(),
                                  [](const Keyed& x, const Keyed& y) { return compare_keyed_event(x, y) == 0; });
    s.duplicates = static_cast<size_t>(s.events.end() - last);
    s.events.erase(last, s.events.end());
    // An exec's events lie among those of its hash (nearly always the exec's alone).
    for (size_t group = 0; group < s.events.size();) {
        const size_t first_span = s.spans.size();
        size_t end = group;
        for (; end < s.events.size() && s.events[end].exec_hash == s.events[group].exec_hash; ++end) {
            const Keyed& k = s.events[end];
            auto span = std::find_if(s.spans.begin() + static_cast<std::ptrdiff_t>(first_span), s.spans.end(),
                                     [&](const Span& x) { return compare_exec(*x.exec.event, *k.event) == 0; });
            if (span == s.spans.end()) span = s.spans.insert(s.spans.end(), Span{k, {}, {}});
            const TraceEvent& e = *k.event;
            if (e.kind == EventKind::issue || e.kind == EventKind::wait_begin) span->first = e.t;
            if (e.kind == EventKind::complete || e.kind == EventKind::wait_end) span->second = e.t;
        }
        // Colliding execs in one hash: in exec order, as on the other side.
        std::sort(s.spans.begin() + static_cast<std::ptrdiff_t>(first_span), s.spans.end(),
                  [](const Span& x, const Span& y) { return compare_exec(*x.exec.event, *y.exec.event) < 0; });
        group = end;
    }
    return s;
}

// Calls `paired(a, b)` for every identity both sorted ranges hold; returns how many of
// each side found no partner.
template <class T, class Compare, class Paired>
std::pair<size_t, size_t> merge_pairs(const std::vector<T>& a, const std::vector<T>& b, Compare compare,
                                      Paired paired) {
    size_t i = 0, j = 0, only_a = 0, only_b = 0;
    while (i < a.size() && j < b.size()) {
        const int c = compare(a[i], b[j]);
        if (c < 0) {
            ++only_a;
            ++i;
        } else if (c > 0) {
            ++only_b;
            ++j;
        } else {
            paired(a[i++], b[j++]);
        }
    }
    return {only_a + (a.size() - i), only_b + (b.size() - j)};
}

// The time of each CTA's first op (its earliest event a backend can see): the end of the
// kernel prologue.
std::map<int, int64_t> first_op_times(const RunResult& r) {
    std::map<int, int64_t> first;
    for (const TraceEvent& e : r.events) {
        if (e.model_only) continue;
        auto it = first.find(e.cta);
        if (it == first.end() || e.t < it->second) first[e.cta] = e.t;
    }
    return first;
}

int64_t time_of(const std::map<int, int64_t>& origin, const TraceEvent& e) {
    auto it = origin.find(e.cta);
    return it == origin.end() ? e.t : e.t - it->second;
}

double rel_err(int64_t a, int64_t b) {
    return std::fabs(static_cast<double>(a) - static_cast<double>(b)) /
           std::max(std::fabs(static_cast<double>(b)), 1.0);
}

std::string op_name(const OpNames& names, int op) {
    auto it = names.find(op);
    return it == names.end() || it->second.empty() ? "?" : it->second;
}

std::string why(const RunResult& r) {
    for (const Diagnostic& d : r.diagnostics)
        if (d.outcome == r.outcome) return d.rule.empty() ? d.message : d.rule + ": " + d.message;
    return "";
}

TimingSummary summarize(const std::vector<TimingRow>& rows, double tolerance) {
    TimingSummary s;
    std::vector<double> errs;
    for (const TimingRow& r : rows) {
        errs.push_back(r.rel_err);
        if (r.rel_err > tolerance) ++s.over_tolerance;
    }
    s.paired = errs.size();
    s.median = percentile(errs, 0.5);
    s.p90 = percentile(errs, 0.9);
    s.max = errs.empty() ? 0 : *std::max_element(errs.begin(), errs.end());
    return s;
}

// `faulted_*`: that run could read nothing back (could_not_read_back), so an image it lacks
// is no functional difference (the outcomes are compared on their own).
MemoryDiff compare_image(const MemoryImage* a, const MemoryImage* b, bool faulted_a, bool faulted_b,
                         const DiffOptions& options) {
    MemoryDiff d;
    const MemoryImage* any = a ? a : b;
    d.space = any->space;
    d.name = any->name;
    d.cta = any->cta;
    d.size_a = a ? image_size(*a) : 0;
    d.size_b = b ? image_size(*b) : 0;
    if (!a || !b) {
        d.status = a ? MemoryDiff::Status::missing_in_b : MemoryDiff::Status::missing_in_a;
        const bool lacking_side_faulted = a ? faulted_b : faulted_a;
        // A snapshot is an op's result like a global tensor: both backends take every one
        // the program reaches, so one taken on one side only is a difference.
        d.is_mismatch = (d.space == "global" || d.space == "snapshot") && !lacking_side_faulted;
        return d;
    }
    if (d.size_a != d.size_b) {
        d.status = MemoryDiff::Status::size_mismatch;
        d.is_mismatch = true;
        return d;
    }
    if (a->digest_only || b->digest_only) {
        // A version 3 trace kept only the hash of an unchanged input: the hashes decide,
        // and the diff says so (no element can be named).
        d.compared_by_hash = true;
        // The digest's algorithm; the side with bytes is hashed the same way.
        d.hash_algorithm = (a->digest_only ? a : b)->digest_only->algorithm;
        const std::optional<ImageHash> hash_a = image_hash_by(*a, d.hash_algorithm);
        const std::optional<ImageHash> hash_b = image_hash_by(*b, d.hash_algorithm);
        d.hashes_incomparable = !hash_a || !hash_b;
        const bool equal = !d.hashes_incomparable && *hash_a == *hash_b;
        d.status = equal ? MemoryDiff::Status::equal : MemoryDiff::Status::differ;
        d.is_mismatch = !equal;
        return d;
    }
    for (size_t i = 0; i < d.size_a; ++i) {
        if (a->bytes[i] == b->bytes[i]) continue;
        if (d.first_diff < 0) d.first_diff = static_cast<int64_t>(i);
        ++d.diff_count;
    }
    d.status = d.diff_count ? MemoryDiff::Status::differ : MemoryDiff::Status::equal;
    d.is_mismatch = d.diff_count > 0;
    const auto rule = options.compares.find(d.space + ":" + d.name);
    if (d.diff_count && rule != options.compares.end()) {
        if (rule->second.kind == ImageCompare::Kind::opaque) {
            d.opaque = true;
            d.is_mismatch = false;
        } else if (const auto type = element_type_of(options.element_types, d.space, d.name)) {
            d.max_ulps = max_ulp_distance(a->bytes, b->bytes, *type);
            d.ulp_bound = rule->second.ulps;
            d.within_ulps = d.max_ulps <= d.ulp_bound;
            d.is_mismatch = !d.within_ulps;
        }
    }
    if (d.diff_count)
        d.bytes = differing_elements(a->bytes, b->bytes, element_type_of(options.element_types, d.space, d.name),
                                     options.differences_shown);
    return d;
}

std::vector<MemoryDiff> compare_memory(const RunResult& a, const RunResult& b, const DiffOptions& options) {
    using ImageId = std::tuple<std::string, std::string, int>;  // space, name, cta
    std::map<ImageId, std::pair<const MemoryImage*, const MemoryImage*>> pairs;
    for (const MemoryImage& m : a.memory) pairs[{m.space, m.name, m.cta}].first = &m;
    for (const MemoryImage& m : b.memory) pairs[{m.space, m.name, m.cta}].second = &m;
    std::vector<MemoryDiff> out;
    for (const auto& [id, p] : pairs)
        out.push_back(compare_image(p.first, p.second, could_not_read_back(a), could_not_read_back(b), options));
    // Globals first: they are the scenario's answer; then the final shared buffers, then the
    // snapshots (each group by name, then cta).
    const auto rank = [](const MemoryDiff& m) { return m.space == "global" ? 0 : m.space == "shared" ? 1 : 2; };
    std::stable_sort(out.begin(), out.end(),
                     [&](const MemoryDiff& x, const MemoryDiff& y) { return rank(x) < rank(y); });
    return out;
}

}  // namespace

std::string to_string(MemoryDiff::Status s) {
    switch (s) {
    case MemoryDiff::Status::equal: return "equal";
    case MemoryDiff::Status::differ: return "differ";
    case MemoryDiff::Status::size_mismatch: return "size mismatch";
    case MemoryDiff::Status::missing_in_a: return "missing in A";
    case MemoryDiff::Status::missing_in_b: return "missing in B";
    }
    return "?";
}

bool DiffReport::sanitizer_only() const {
    for (const HazardVerdict& v : hazards)
        if (v.kind == HazardVerdict::Kind::sanitizer_only) return true;
    return false;
}

bool DiffReport::memory_match() const {
    return std::none_of(memory.begin(), memory.end(), [](const MemoryDiff& m) { return m.is_mismatch; });
}

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    double pos = std::clamp(p, 0.0, 1.0) * static_cast<double>(values.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

DiffReport diff_traces(const RunResult& a, const RunResult& b, const DiffOptions& options) {
    DiffReport r;
    r.a = a.provenance;
    r.b = b.provenance;
    r.outcome_a = a.outcome;
    r.outcome_b = b.outcome;
    r.why_a = why(a);
    r.why_b = why(b);
    r.tolerance = options.tolerance;
    r.memory = compare_memory(a, b, options);
    classify_races(a, b, options.op_names, r);
    check_arch(a.provenance, b.provenance, r);
    check_kernel_spans(a.provenance, b.provenance, r);

    Side sa = index_side(a, r.model_only_skipped);
    Side sb = index_side(b, r.model_only_skipped);
    r.unpaired_a = sa.duplicates;
    r.unpaired_b = sb.duplicates;

    const std::map<int, int64_t> first_a = first_op_times(a), first_b = first_op_times(b);
    if (first_a.count(0)) r.first_op_a = first_a.at(0);
    if (first_b.count(0)) r.first_op_b = first_b.at(0);
    r.aligned_first_op = options.align_first_op;
    const std::map<int, int64_t> none;
    const auto& origin_a = options.align_first_op ? first_a : none;
    const auto& origin_b = options.align_first_op ? first_b : none;

    std::vector<TimingRow> event_rows;
    const auto [only_a, only_b] = merge_pairs(
        sa.events, sb.events, compare_keyed_event, [&](const Keyed& ka, const Keyed& kb) {
            const TraceEvent* ea = ka.event;
            const int64_t ta = time_of(origin_a, *ea), tb = time_of(origin_b, *kb.event);
            event_rows.push_back({ea->key(), ea->op, op_name(options.op_names, ea->op), ta, tb, rel_err(ta, tb)});
        });
    r.unpaired_a += only_a;
    r.unpaired_b += only_b;

    std::vector<TimingRow> duration_rows;
    merge_pairs(
        sa.spans, sb.spans, [](const Span& x, const Span& y) { return compare_keyed_exec(x.exec, y.exec); },
        [&](const Span& span_a, const Span& span_b) {
            if (!span_a.first || !span_a.second || !span_b.first || !span_b.second) return;
            const int64_t da = *span_a.second - *span_a.first, db = *span_b.second - *span_b.first;
            std::string key = span_a.exec.event->key();
            key = key.substr(0, key.rfind(':')) + ":duration";
            const int op = span_a.exec.event->op;
            duration_rows.push_back({key, op, op_name(options.op_names, op), da, db, rel_err(da, db)});
        });

    r.events = summarize(event_rows, options.tolerance);
    r.durations = summarize(duration_rows, options.tolerance);

    // Sorted as pointers: a full-chip diff has 500k rows, a string each, of which `top` are
    // shown. Keys are unique, so the order is total and the first `top`
    // of a partial sort are those of a full one.
    std::vector<const TimingRow*> rows;
    rows.reserve(event_rows.size() + duration_rows.size());
    for (const TimingRow& row : event_rows) rows.push_back(&row);
    for (const TimingRow& row : duration_rows) rows.push_back(&row);
    const auto worse = [](const TimingRow* x, const TimingRow* y) {
        if (x->rel_err != y->rel_err) return x->rel_err > y->rel_err;
        return x->key < y->key;
    };
    const size_t shown =
        options.top >= 0 ? std::min(rows.size(), static_cast<size_t>(options.top)) : rows.size();
    std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(shown), rows.end(), worse);
    r.worst.reserve(shown);
    for (size_t i = 0; i < shown; ++i) r.worst.push_back(*rows[i]);
    return r;
}

// Could read back no memory: it faulted (the GPU context cannot be read after a
// fault), or its process was killed at the wall-clock limit (a hang that no watchdog ended:
// a named barrier's bar.sync waits forever).
bool could_not_read_back(const RunResult& r) {
    if (r.outcome == Outcome::fault) return true;
    return r.outcome == Outcome::hang &&
           std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                       [](const Diagnostic& d) {
                           // The op executor's child killed at its wall-clock limit; a kernel
                           // scenario's launch past its watchdog (device/kernel_run: no memory read).
                           return d.rule == "device.wall_clock_limit" || d.rule == "device.kernel_timeout";
                       });
}

}  // namespace tmasim
