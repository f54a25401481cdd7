#include "traces/summary.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "scenarios/values.h"

namespace tmasim {
namespace {

struct OpStats {
    size_t events = 0;
    int64_t first = 0, last = 0;
};

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

void print_provenance(const Provenance& p, std::ostream& out) {
    out << fmt::format("scenario:    {}", or_dash(p.scenario));
    if (!p.scenario_file.empty()) out << " (" << p.scenario_file << ")";
    out << '\n';
    out << fmt::format("backend:     {}, gpu {}", or_dash(p.backend), or_dash(p.gpu));
    if (p.sm_clock_mhz > 0) out << fmt::format(" @ {} MHz", p.sm_clock_mhz);
    if (!p.model_config.empty()) out << ", config " << p.model_config;
    if (!p.driver.empty()) out << ", driver " << p.driver;
    if (!p.cuda.empty()) out << ", cuda " << p.cuda;
    if (p.backend == "model") out << ", seed " << p.seed;
    out << '\n';
}

void print_diagnostics(const RunResult& r, std::ostream& out) {
    out << "diagnostics: " << (r.diagnostics.empty() ? "none" : std::to_string(r.diagnostics.size())) << '\n';
    for (const Diagnostic& d : r.diagnostics) {
        out << "  " << to_string(d.outcome);
        if (!d.rule.empty()) out << " " << d.rule;
        if (d.op >= 0) out << " at op #" << d.op;
        for (int64_t i : d.iters) out << "[" << i << "]";
        out << " (cta " << d.cta << "): " << d.message << '\n';
        for (const auto& [k, v] : d.detail) out << "    " << k << " = " << v << '\n';
    }
}

void print_events(const RunResult& r, const OpNames& names, std::ostream& out) {
    std::map<int, OpStats> per_op;
    std::set<int> ctas;
    size_t model_only = 0;
    for (const TraceEvent& e : r.events) {
        ctas.insert(e.cta);
        if (e.model_only) ++model_only;
        auto [it, fresh] = per_op.try_emplace(e.op);
        OpStats& s = it->second;
        s.first = fresh ? e.t : std::min(s.first, e.t);
        s.last = fresh ? e.t : std::max(s.last, e.t);
        ++s.events;
    }
    out << fmt::format("events:      {} ({} model-only) in {} CTA(s)\n", r.events.size(), model_only,
                       ctas.size());
    if (per_op.empty()) return;
    size_t name_w = 4;
    for (const auto& [op, s] : per_op) {
        auto it = names.find(op);
        if (it != names.end()) name_w = std::max(name_w, it->second.size());
    }
    out << fmt::format("  {:>4}  {:<{}}  {:>6}  {:>10}  {:>10}\n", "op", "name", name_w, "events", "first t",
                       "last t");
    for (const auto& [op, s] : per_op) {
        auto it = names.find(op);
        std::string name = it == names.end() || it->second.empty() ? "?" : it->second;
        out << fmt::format("  {:>4}  {:<{}}  {:>6}  {:>10}  {:>10}\n", "#" + std::to_string(op), name, name_w,
                           s.events, s.first, s.last);
    }
}

void print_memory(const RunResult& r, std::ostream& out) {
    out << "memory:      " << (r.memory.empty() ? "none" : std::to_string(r.memory.size()) + " image(s)") << '\n';
    for (const MemoryImage& m : r.memory) {
        std::string where = m.space == "global" ? "global " + m.name
                                                : fmt::format("{} {} (cta {})", m.space, m.name, m.cta);
        out << fmt::format("  {:<32}  {:>8} bytes  {}\n", where, image_size(m), image_hash(m).text());
    }
}

}  // namespace

void print_summary(const RunResult& r, std::ostream& out, const OpNames& names) {
    print_provenance(r.provenance, out);
    out << "outcome:     " << to_string(r.outcome) << '\n';
    print_diagnostics(r, out);
    print_events(r, names, out);
    print_memory(r, out);
}

}  // namespace tmasim
