#include "traces/diagnostic_groups.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace tmasim {
namespace {

std::string plural(size_t n, const std::string& word) {
    return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string index_text(int64_t lo, int64_t hi) {
    return lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
}

}  // namespace

std::vector<DiagnosticGroup> group_diagnostics(const std::vector<Diagnostic>& diagnostics, bool all_instances) {
    std::vector<DiagnosticGroup> groups;
    std::vector<std::set<std::vector<int64_t>>> iters;
    // A diagnostic without an op (found after the run, e.g. a barrier left mid-phase) has
    // only its message to tell it from another of its rule: the message joins the key.
    using Key = std::tuple<Outcome, std::string, int, int, std::string>;
    std::map<Key, size_t> index;
    for (const Diagnostic& d : diagnostics) {
        size_t g = groups.size();
        if (!all_instances) {
            const Key key{d.outcome, d.rule, d.op, d.cta, d.op < 0 ? d.message : std::string()};
            g = index.try_emplace(key, groups.size()).first->second;
        }
        if (g == groups.size()) {
            groups.push_back({d, 0, {}});
            iters.emplace_back();
        }
        ++groups[g].instances;
        if (!d.iters.empty()) iters[g].insert(d.iters);
    }
    for (size_t g = 0; g < groups.size(); ++g) groups[g].iterations.assign(iters[g].begin(), iters[g].end());
    return groups;
}

std::string iterations_text(const DiagnosticGroup& g, size_t max_pieces) {
    // The iterations are sorted, so a range is a run of tuples that share the outer indices
    // and whose last index goes up by one.
    std::vector<std::string> pieces;
    size_t i = 0;
    const auto& its = g.iterations;
    while (i < its.size()) {
        size_t j = i;
        while (j + 1 < its.size() && its[j + 1].size() == its[i].size() &&
               std::equal(its[i].begin(), its[i].end() - 1, its[j + 1].begin()) &&
               its[j + 1].back() == its[j].back() + 1)
            ++j;
        std::string piece;
        const bool nested = its[i].size() > 1;
        for (size_t k = 0; k + 1 < its[i].size(); ++k) piece += "[" + std::to_string(its[i][k]) + "]";
        const std::string last = index_text(its[i].back(), its[j].back());
        piece += nested ? "[" + last + "]" : last;
        pieces.push_back(std::move(piece));
        i = j + 1;
    }
    std::string out;
    for (size_t p = 0; p < pieces.size() && p < max_pieces; ++p) out += (p ? ", " : "") + pieces[p];
    if (pieces.size() > max_pieces) out += fmt::format(", ... ({} more)", pieces.size() - max_pieces);
    return out;
}

std::string group_where(const DiagnosticGroup& g) {
    const Diagnostic& d = g.first;
    if (g.instances == 1) {
        // Exactly the form of an unmerged diagnostic, which scripts and tests read.
        if (d.op < 0) return "";
        std::string s = "op #" + std::to_string(d.op);
        for (int64_t i : d.iters) s += "[" + std::to_string(i) + "]";
        return s;
    }
    std::string s = d.op >= 0 ? "op #" + std::to_string(d.op) : "";
    auto add = [&s](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
    if (!g.iterations.empty()) add((g.iterations.size() == 1 ? "iteration " : "iterations ") + iterations_text(g));
    if (g.iterations.size() != g.instances) add(plural(g.instances, "instance"));
    return s;
}

std::string diagnostics_summary_line(const std::vector<Diagnostic>& diagnostics) {
    const std::vector<DiagnosticGroup> groups = group_diagnostics(diagnostics);
    std::string line = "tmasim: " + plural(groups.size(), "diagnostic");
    if (groups.empty()) return line;
    std::map<Outcome, size_t> per_outcome;
    std::set<std::string> rules;
    for (const DiagnosticGroup& g : groups) {
        ++per_outcome[g.first.outcome];
        if (!g.first.rule.empty()) rules.insert(g.first.rule);
    }
    std::string outcomes;
    // Worst first, as the run's outcome is chosen.
    for (Outcome o : {Outcome::fault, Outcome::hang, Outcome::hazard, Outcome::ok})
        if (auto it = per_outcome.find(o); it != per_outcome.end())
            outcomes += (outcomes.empty() ? "" : ", ") + plural(it->second, to_string(o));
    return fmt::format("{}: {} ({}, {})", line, outcomes, plural(rules.size(), "rule"),
                       plural(diagnostics.size(), "instance"));
}

}  // namespace tmasim
