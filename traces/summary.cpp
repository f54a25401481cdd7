#include "traces/summary.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "scenarios/values.h"
#include "traces/diagnostic_groups.h"

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

// One entry per merged group (traces/diagnostic_groups.h): the headline where the caller gives
// one, then the line of the form "  <outcome> <rule> at <where> (cta N): <message>" that
// scripts read, <where> naming the iterations when the group covers several instances.
void print_diagnostics(const RunResult& r, bool all_instances, const DiagnosticHeadline& headline,
                       std::ostream& out) {
    const std::vector<DiagnosticGroup> groups = group_diagnostics(r.diagnostics, all_instances);
    out << "diagnostics: " << (groups.empty() ? "none" : std::to_string(groups.size()));
    if (groups.size() != r.diagnostics.size()) out << " (" << r.diagnostics.size() << " instances)";
    out << '\n';
    for (const DiagnosticGroup& g : groups) {
        const Diagnostic& d = g.first;
        if (headline) out << headline(g) << '\n';
        out << "  " << to_string(d.outcome);
        if (!d.rule.empty()) out << " " << d.rule;
        // Without an op only the count is said: "hang <rule>, 2 instances (cta 0)".
        if (const std::string where = group_where(g); !where.empty()) out << (d.op >= 0 ? " at " : ", ") << where;
        out << " (cta " << d.cta << "): " << d.message << '\n';
        for (const auto& [k, v] : d.detail) out << "    " << k << " = " << v << '\n';
        if (g.instances > 1)
            out << "    (the first of " << g.instances << " instances; --all-instances prints each)\n";
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
    // `t` is SM cycles since the CTA's first warp entered the kernel (traces/FORMAT.md).
    out << fmt::format("  {:>4}  {:<{}}  {:>6}  {:>16}  {:>16}\n", "op", "name", name_w, "events",
                       "first t (cycles)", "last t (cycles)");
    for (const auto& [op, s] : per_op) {
        auto it = names.find(op);
        std::string name = it == names.end() || it->second.empty() ? "?" : it->second;
        out << fmt::format("  {:>4}  {:<{}}  {:>6}  {:>16}  {:>16}\n", "#" + std::to_string(op), name, name_w,
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

void print_summary(const RunResult& r, std::ostream& out, const OpNames& names, bool all_instances,
                   const DiagnosticHeadline& headline) {
    print_provenance(r.provenance, out);
    out << "outcome:     " << to_string(r.outcome) << '\n';
    print_diagnostics(r, all_instances, headline, out);
    print_events(r, names, out);
    print_memory(r, out);
}

}  // namespace tmasim
