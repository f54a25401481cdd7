#include "traces/json_output.h"

#include "traces/provenance_fields.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "scenarios/values.h"
#include "traces/diagnostic_groups.h"

namespace tmasim {
namespace {

// Keys whose values are text even when they look like a number: lists and ranges that
// may hold a single item ("3" of writer_ops "3,5", thread "5" of "0-63"), and user names.
bool always_text(const std::string& key) {
    static const std::set<std::string> keys = {"writer_ops", "writer_threads", "cta_span_ns", "label"};
    return keys.count(key) > 0;
}

// The trace keeps `extra` and `detail` values as text; --json gives an integer as a JSON
// number (kernel_span_ns 2580, not "2580"), so a reader need not parse it again.
OrderedJson value_of_text(const std::string& key, const std::string& text) {
    if (always_text(key) || text.empty() || text.size() > 19) return text;
    int64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || (text[0] == '0' && text.size() > 1)) return text;
    return value;
}

OrderedJson text_map(const std::map<std::string, std::string>& m) {
    OrderedJson j = OrderedJson::object();
    for (const auto& [k, v] : m) j[k] = value_of_text(k, v);
    return j;
}

OrderedJson iters_json(const std::vector<int64_t>& iters) {
    OrderedJson j = OrderedJson::array();
    for (int64_t i : iters) j.push_back(i);
    return j;
}

// Named apart from trace_diff.cpp's op_name ("?" for none), which may share its unity batch.
std::string op_name_or_empty(const OpNames& names, int op) {
    auto it = names.find(op);
    return it == names.end() ? std::string() : it->second;
}

OrderedJson ops_json(const RunResult& r, const OpNames& names) {
    struct Stats {
        size_t events = 0;
        int64_t first = 0, last = 0;
    };
    std::map<int, Stats> per_op;
    for (const TraceEvent& e : r.events) {
        auto [it, fresh] = per_op.try_emplace(e.op);
        Stats& s = it->second;
        s.first = fresh ? e.t : std::min(s.first, e.t);
        s.last = fresh ? e.t : std::max(s.last, e.t);
        ++s.events;
    }
    OrderedJson ops = OrderedJson::array();
    for (const auto& [op, s] : per_op) {
        OrderedJson j;
        j["op"] = op;
        j["name"] = op_name_or_empty(names, op);
        j["events"] = s.events;
        j["first_t"] = s.first;
        j["last_t"] = s.last;
        ops.push_back(std::move(j));
    }
    return ops;
}

OrderedJson memory_json(const RunResult& r) {
    OrderedJson images = OrderedJson::array();
    for (const MemoryImage& m : r.memory) {
        OrderedJson j;
        j["space"] = m.space;
        j["name"] = m.name;
        j["cta"] = m.cta;
        j["size"] = image_size(m);
        const ImageHash hash = image_hash(m);
        j[hash.algorithm] = hash.hex;
        images.push_back(std::move(j));
    }
    return images;
}

OrderedJson summary_json(const TimingSummary& s) {
    OrderedJson j;
    j["paired"] = s.paired;
    j["median_rel_err"] = s.median;
    j["p90_rel_err"] = s.p90;
    j["max_rel_err"] = s.max;
    j["over_tolerance"] = s.over_tolerance;
    return j;
}

OrderedJson memory_diff_json(const MemoryDiff& m) {
    OrderedJson j;
    j["space"] = m.space;
    j["name"] = m.name;
    j["cta"] = m.cta;
    j["status"] = to_string(m.status);
    j["size_a"] = m.size_a;
    j["size_b"] = m.size_b;
    j["mismatch"] = m.is_mismatch;
    j["race_dependent"] = m.race_dependent;
    if (m.opaque) j["opaque"] = true;
    if (m.max_ulps >= 0) {
        j["max_ulps"] = m.max_ulps;
        j["ulp_bound"] = m.ulp_bound;
    }
    j["compared_by"] = m.compared_by_hash ? m.hash_algorithm : "bytes";
    if (m.hashes_incomparable) j["hashes_incomparable"] = true;
    if (m.status == MemoryDiff::Status::differ && !m.compared_by_hash) {
        j["bytes_differing"] = m.diff_count;
        j["first_diff_offset"] = m.first_diff;
        j["element_type"] = m.bytes.type;
        j["elements_differing"] = m.bytes.elements_differing;
        OrderedJson first = OrderedJson::array();
        for (const ElementDifference& e : m.bytes.first)
            first.push_back({{"element", e.element}, {"offset", e.offset}, {"size", e.size}, {"a", e.a}, {"b", e.b}});
        j["first_differences"] = std::move(first);
    }
    return j;
}

}  // namespace

OrderedJson provenance_json(const Provenance& p) {
    OrderedJson j;
    put_provenance_fields(j, p);
    j["extra"] = text_map(p.extra);
    return j;
}

OrderedJson diagnostic_json(const DiagnosticGroup& g, const OpNames& names) {
    const Diagnostic& d = g.first;
    OrderedJson j;
    j["outcome"] = to_string(d.outcome);
    j["rule"] = d.rule;
    j["op"] = d.op;
    j["op_name"] = op_name_or_empty(names, d.op);
    j["iters"] = iters_json(d.iters);
    j["cta"] = d.cta;
    j["message"] = d.message;
    j["detail"] = text_map(d.detail);
    j["instances"] = g.instances;
    j["iterations"] = iterations_text(g);
    OrderedJson all = OrderedJson::array();
    for (const std::vector<int64_t>& it : g.iterations) all.push_back(iters_json(it));
    j["instance_iters"] = std::move(all);
    return j;
}

OrderedJson run_json(const RunResult& r, const OpNames& names, bool all_instances,
                     const DiagnosticAnnotation& annotate) {
    OrderedJson j;
    j["format"] = "tmasim-run";
    j["version"] = kRunJsonVersion;
    j["provenance"] = provenance_json(r.provenance);
    j["outcome"] = to_string(r.outcome);
    const std::vector<DiagnosticGroup> groups = group_diagnostics(r.diagnostics, all_instances);
    OrderedJson diagnostics = OrderedJson::array();
    std::set<std::string> rules;
    for (const DiagnosticGroup& g : groups) {
        diagnostics.push_back(diagnostic_json(g, names));
        if (annotate) annotate(g, diagnostics.back());
        if (!g.first.rule.empty()) rules.insert(g.first.rule);
    }
    j["diagnostics"] = std::move(diagnostics);
    // Counted merged even with all_instances, as the summary line counts.
    const size_t merged = all_instances ? group_diagnostics(r.diagnostics).size() : groups.size();
    j["diagnostic_summary"] = {{"diagnostics", merged},
                               {"rules", rules.size()},
                               {"instances", r.diagnostics.size()},
                               {"line", diagnostics_summary_line(r.diagnostics)}};
    std::set<int> ctas;
    size_t model_only = 0;
    for (const TraceEvent& e : r.events) {
        ctas.insert(e.cta);
        model_only += e.model_only ? 1 : 0;
    }
    j["events"] = {{"total", r.events.size()}, {"model_only", model_only}, {"ctas", ctas.size()}};
    j["ops"] = ops_json(r, names);
    j["memory"] = memory_json(r);
    return j;
}

OrderedJson diff_json(const DiffReport& r) {
    OrderedJson j;
    j["format"] = "tmasim-diff";
    j["version"] = kDiffJsonVersion;
    j["a"] = provenance_json(r.a);
    j["b"] = provenance_json(r.b);
    OrderedJson warnings = OrderedJson::array();
    if (!r.arch_warning.empty()) warnings.push_back(r.arch_warning);
    if (!r.trace_level_warning.empty()) warnings.push_back(r.trace_level_warning);
    if (!r.a.scenario_hash.empty() && !r.b.scenario_hash.empty() && r.a.scenario_hash != r.b.scenario_hash)
        warnings.push_back("the traces come from different scenario files (hash " + r.a.scenario_hash + " vs " +
                           r.b.scenario_hash + ")");
    j["warnings"] = std::move(warnings);
    OrderedJson outcome;
    outcome["a"] = to_string(r.outcome_a);
    outcome["b"] = to_string(r.outcome_b);
    outcome["why_a"] = r.why_a;
    outcome["why_b"] = r.why_b;
    outcome["match"] = r.outcome_match();
    outcome["agree"] = r.outcome_agrees();
    outcome["races_not_observed"] = r.races_not_observed;
    OrderedJson hazards = OrderedJson::array();
    for (const HazardVerdict& v : r.hazards)
        hazards.push_back({{"verdict", to_string(v.kind)}, {"rule", v.rule}, {"op", v.op}, {"where", v.where},
                           {"why", v.why}});
    outcome["hazards"] = std::move(hazards);
    j["outcome"] = std::move(outcome);
    OrderedJson memory = OrderedJson::array();
    for (const MemoryDiff& m : r.memory) memory.push_back(memory_diff_json(m));
    j["memory"] = {{"match", r.memory_match()}, {"images", std::move(memory)}};
    OrderedJson timing;
    timing["tolerance"] = r.tolerance;
    timing["aligned_first_op"] = r.aligned_first_op;
    timing["first_op_a"] = r.first_op_a;
    timing["first_op_b"] = r.first_op_b;
    timing["kernel_span_ns"] = {{"a", r.kernel_span_ns_a}, {"b", r.kernel_span_ns_b},
                                {"rel_err", r.kernel_span_rel_err()}};
    timing["events"] = summary_json(r.events);
    timing["durations"] = summary_json(r.durations);
    timing["over_tolerance"] = r.timing_over_tolerance();
    timing["unpaired_a"] = r.unpaired_a;
    timing["unpaired_b"] = r.unpaired_b;
    timing["model_only_skipped"] = r.model_only_skipped;
    OrderedJson worst = OrderedJson::array();
    for (const TimingRow& row : r.worst) {
        worst.push_back({{"key", row.key}, {"op", row.op}, {"name", row.name}, {"a", row.a}, {"b", row.b},
                         {"rel_err", row.rel_err}, {"over_tolerance", row.rel_err > r.tolerance}});
    }
    timing["worst"] = std::move(worst);
    j["timing"] = std::move(timing);
    j["functional_match"] = r.functional_match();
    return j;
}

std::string dump_json(const OrderedJson& j) {
    return j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

}  // namespace tmasim
